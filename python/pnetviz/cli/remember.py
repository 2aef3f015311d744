"""Remembered options (issue 35, item 2): the options that change a round's outputs are recorded
with its sets, and a later run that does not give them reuses them, so that no output (the
profiled ROC of `--syst`, the PDFs of `--formats`) disappears without a word.

The record: a campaign summary holds `round_options.json` (the output options its command line
gave, by name); a single command's sets hold their command line in their marker. A run:
- without an option the record gives: takes the recorded value (said in one line);
- with a different value: says which sets it replaces; if outputs of the old value would be
  removed (profiled plots, an image format, the b-jet comparison), it stops (exit 2) unless
  `--replace` is given, which also means "exactly this command line" (nothing is reused).

A record is data, read as the command line is (issue 49, item 2): both files through the guarded
reader, each recorded value through the command's own parser (types, choices, ranges) and the
checks the command runs after parsing; a bad value is one line naming the file and the field. An
expression (`--column`, `--columns`) is never taken from a record: a run that does not give the
mapping again is refused (a file in a shared output tree can be changed by anyone who can write it).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pnetviz.errors import InputError
from pnetviz.escape import printable
from pnetviz.io.readers import MAX_SMALL_BYTES, BadFile, read_json, text_list

MANIFEST = "round_options.json"  # in the campaign summary set
MARKER = ".pnetviz-set.json"
NOT_OUTPUTS = frozenset({"threads"})  # options whose value does not change any output
IMAGE_KINDS = frozenset({"binary", "multiclass", "compare", "campaign"})  # the commands with --images
IMAGE_SUFFIXES = (".png", ".pdf", ".svg", ".eps")  # --formats that are images (not root, c)
LATER_FOLDS = ("--images site writes no image into the fold sets after a run's first (the web report draws their "
               "figures live from plots.root; pnetviz render writes them)")  # why bare_sets lose their images
NARROWER = {"all": ("site", "summary", "none"), "site": ("summary", "none"), "summary": ("none",)}  # fewer images
EXPRESSIONS = ("column", "columns")  # the mapping: never reused from a record, given again or refused
RECORD_FIX = "correct that value or remove the file (the options it records are then not reused)"
MARKER_FIX = "correct it, or remove this output set's directory and run again"


@dataclass
class Changes:
    """What a run does to the recorded options: reused (flag -> value), changed (flag -> (old,
    new)), and the files of existing sets its options remove."""

    reused: dict[str, object] = field(default_factory=dict)
    values: dict[str, object] = field(default_factory=dict)  # the reused options by dest, for the run's request
    changed: dict[str, tuple[object, object]] = field(default_factory=dict)
    removed: list[Path] = field(default_factory=list)

    def lines(self, where: str) -> list[str]:
        """Human lines: what is reused, changed and removed (for the run's output and --dry-run)."""
        out = []
        if self.reused:
            out.append(f"reusing the options recorded for {where}: {shown(self.reused)} (give another value to change "
                       "one, or --replace to run with exactly this command line)")  # fmt: skip
        for flag, (old, new) in self.changed.items():
            out.append(f"{flag}: {shown_value(old)} -> {shown_value(new)}: the sets made with the old value are replaced")
        if self.removed:
            out.append(f"removes {len(self.removed)} outputs of the old options, e.g. {self.removed[0]}")
        return out


def shown_value(value: object) -> str:
    return "(not given)" if value is None or value is False else ("on" if value is True else str(value))


def shown(values: dict[str, object]) -> str:
    return " ".join(flag if v is True else f"{flag} {v}" for flag, v in values.items())


def given_options(make_parser: Callable[[], argparse.ArgumentParser], argv: Sequence[str]) -> dict[str, object]:
    """dest -> value of the options `argv` gives explicitly (defaults left out)."""
    try:
        return _parsed(make_parser(), argv)
    except InputError:
        return {}


def _parsed(parser: argparse.ArgumentParser, argv: Sequence[str]) -> dict[str, object]:
    """dest -> value of the options `argv` gives (the parser's defaults dropped; options it does
    not know, e.g. of an older pnetviz in a record, left out); InputError on a bad value. The
    parser is remember's own from then on: -h is a bad value (_NoHelp), not the help and exit 0."""
    for action in parser._actions:  # noqa: SLF001 - argparse has no public way to drop defaults
        action.default = argparse.SUPPRESS
        if isinstance(action, argparse._HelpAction):  # noqa: SLF001
            for flag in action.option_strings:  # every spelling (--he, -qh) is looked up here
                parser._option_string_actions[flag] = _NoHelp(action.option_strings)  # noqa: SLF001
    return vars(parser.parse_known_args(list(argv))[0])


class _NoHelp(argparse.Action):
    """-h in a record: argparse would print the help text and exit 0, the run doing nothing."""

    def __init__(self, option_strings: list[str]) -> None:
        super().__init__(option_strings, argparse.SUPPRESS, nargs=0)

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        raise InputError(f"{option_string} asks for the help text, which no command records")


def output_options(kind: str) -> dict[str, str]:
    """dest -> flag of the evaluation options of `kind` (binary, multiclass, compare, campaign)
    whose value changes the outputs."""
    from pnetviz.cli.options import EVALUATION  # noqa: PLC0415

    options = {o.dest: o.flags[-1] for o in EVALUATION
               if (o.campaign if kind == "campaign" else kind in o.kinds) and o.dest not in NOT_OUTPUTS}  # fmt: skip
    if kind in IMAGE_KINDS:  # which figures get images: a later run without --images keeps them
        options["images"] = "--images"
    return options


def recorded_command(directory: Path) -> list[str] | None:
    """The argv (after `pnetviz <command>`) recorded in a set's marker; None without a marker or
    a command in it. Read by the guarded reader: a damaged marker (a FIFO, not JSON, a command
    that is not a list of strings) is one line naming it."""
    path = Path(directory) / MARKER
    name = printable(path)
    data = read_json(path, "output set marker", MARKER_FIX, limit=MAX_SMALL_BYTES, name=name, missing_ok=True,
                     unique=True)  # fmt: skip
    command = (data or {}).get("command")
    if command is None:
        return None
    command = text_list(command, name, "command", MARKER_FIX)
    return command[2:] if len(command) >= 2 else None


def recorded_rendering(directory: Path) -> list[str]:
    """The image formats `pnetviz render` wrote into a set after its run (its marker's `rendered`), [] if none."""
    data = read_json(Path(directory) / MARKER, "output set marker", MARKER_FIX, limit=MAX_SMALL_BYTES,
                     name=printable(Path(directory) / MARKER), missing_ok=True, unique=True)  # fmt: skip
    rendered = (data or {}).get("rendered")
    return [f for f in rendered if isinstance(f, str) and f] if isinstance(rendered, list) else []


def with_rendered(recorded: dict[str, object], rendered: Sequence[str]) -> dict[str, object]:
    """The recorded output options of a set that `pnetviz render` later gave every image in
    `rendered` (formats): those formats join the recorded ones and --images is all (render draws
    every stored canvas), so that a later run leaving the options out keeps those images (the
    demo's `pnetviz render plots --formats pdf`, then `pnetviz binary ... --fold all`)."""
    if not rendered:
        return recorded
    formats = [f for f in str(recorded.get("formats") or "png,pdf").split(",") if f]
    formats += [f for f in rendered if f not in formats]
    return {**recorded, "formats": ",".join(formats), "images": "all"}


def recorded_options(parser: argparse.ArgumentParser, argv: Sequence[str], source: Path) -> dict[str, object]:
    """dest -> value of the options the command `argv` recorded in the marker `source` gives:
    parsed by the command's own `parser` and checked as the command line is (check_values)."""
    name = printable(source)
    try:
        values = _parsed(parser, argv)
    except InputError as err:
        raise _bad_record(name, "command", err, MARKER_FIX) from None
    check_values(values, name, lambda dest: f"command ({_flag(parser, dest)})", MARKER_FIX)
    return values


def read_manifest(summary: Path, parser: argparse.ArgumentParser) -> dict[str, object]:
    """dest -> value recorded in a campaign summary's round_options.json ({} without one): each
    output option's value parsed by the campaign's own `parser` as if typed (`--bootstrap=200`)
    and checked as the command line is; a bad value is one line naming the file and the field."""
    path = Path(summary) / MANIFEST
    name = printable(path)
    data = read_json(path, "round options", RECORD_FIX, limit=MAX_SMALL_BYTES, name=name, missing_ok=True, unique=True)
    options = (data or {}).get("options", {})
    if not isinstance(options, dict):
        raise BadFile(name, "options is not an object of option -> value", RECORD_FIX)
    dests = output_options("campaign")
    values: dict[str, object] = {}
    for dest, value in options.items():
        action = _action(parser, dest) if dest in dests else None  # others (an older pnetviz's) are never used
        if action is not None:
            field_name = f"options.{dest}"
            try:
                values.update(_parsed(parser, _as_typed(action, value, name, field_name)))
            except BadFile:
                raise
            except InputError as err:
                raise _bad_record(name, field_name, err) from None
    check_values(values, name, lambda dest: f"options.{dest}")
    return values


def _action(parser: argparse.ArgumentParser, dest: str) -> argparse.Action | None:
    return next((a for a in parser._actions if a.dest == dest and a.option_strings), None)  # noqa: SLF001


def _flag(parser: argparse.ArgumentParser, dest: str) -> str:
    action = _action(parser, dest)
    return action.option_strings[-1] if action is not None else dest


def _as_typed(action: argparse.Action, value: object, name: str, field_name: str) -> list[str]:
    """The argv that gives the recorded `value` to the option of `action`, as a user types it: a
    switch's true as the switch (false: not given), a repeatable option's list one flag per item,
    any other value as `--flag=value`; a value of another JSON type is a bad value."""
    flag = action.option_strings[-1]
    if action.nargs == 0:
        if not isinstance(value, bool):
            raise BadFile(name, f"{field_name} is not true or false ({flag} is a switch)", RECORD_FIX)
        return [flag] if value else []
    repeated = isinstance(action, argparse._AppendAction)  # noqa: SLF001
    items = value if repeated and isinstance(value, list) else [value]
    if (repeated and not isinstance(value, list)) or not all(
            isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in items):  # fmt: skip
        what = "a list of values" if repeated else "a string or a number"
        raise BadFile(name, f"{field_name} is not {what} (the value of {flag})", RECORD_FIX)
    return [f"{flag}={v}" for v in items]


def _bad_record(name: str, field_name: str, err: InputError, fix: str = RECORD_FIX) -> BadFile:
    """A record's bad value: the command line's own message for it, naming the file and field."""
    problem = str(err).partition(". Fix: ")[0].rstrip(".")  # the parser's fix (its --help) is not this one
    return BadFile(name, f"{field_name}: {problem}", fix)


def check_values(values: dict[str, object], name: str, field_of: Callable[[str], str], fix: str = RECORD_FIX) -> None:
    """The checks a command runs on these options after parsing them (--formats, --energy, an
    empty --syst or --subset), on recorded `values`: a bad one names the file and the field."""
    from pnetviz.cli import ranges  # noqa: PLC0415

    def nonblank(flag: str, what: str) -> Callable[[object], None]:
        def check(value: object) -> None:
            if not str(value).strip():
                raise InputError(f"{flag} '': give {what}")
        return check

    checks = {"formats": ranges.parse_formats, "energy": ranges.check_energy,
              "syst": nonblank("--syst", "nuisance names or 'all'"),
              "subset": nonblank("--subset", "the name of a boolean branch")}  # fmt: skip
    for dest, check in checks.items():
        if dest in values:
            try:
                check(values[dest])
            except InputError as err:
                raise _bad_record(name, field_of(dest), err, fix) from None


def apply(args: object, now: dict[str, object], recorded: dict[str, object], kind: str,
          source: str = "the recorded options") -> Changes:  # fmt: skip
    """Reuse the `recorded` output options (dest -> value, from the file `source`) that this run
    (`now`: the options it gives) does not give, unless --replace; note the ones it changes. The
    mapping (EXPRESSIONS) is never reused: a run that does not give it again is refused
    (check_mapping). The reused values are in the changes (`values`, by dest); a namespace
    `args` is updated with them too (a request is not: it is never changed)."""
    changes = Changes()
    replace = getattr(args, "replace", False)
    check_mapping(now, recorded, replace, source)
    for dest, flag in output_options(kind).items():
        old = recorded.get(dest)
        if dest in now:
            if dest in recorded and old != now[dest]:
                changes.changed[flag] = (old, now[dest])
        elif dest in recorded:
            if replace or dest in EXPRESSIONS:  # the mapping is given another way (--columns for --column)
                changes.changed[flag] = (old, None)
            else:
                if isinstance(args, argparse.Namespace):
                    setattr(args, dest, old)
                changes.values[dest] = old
                changes.reused[flag] = old
    return changes


def check_mapping(now: dict[str, object], recorded: dict[str, object], replace: bool, source: str) -> None:
    """InputError when the record holds a mapping (--column, --columns) and this run gives none
    (unless --replace: exactly this command line, without one)."""
    dropped = [d for d in EXPRESSIONS if d in recorded]
    if not dropped or replace or any(d in now for d in EXPRESSIONS):
        return
    flags = {"column": "--column", "columns": "--columns"}
    made = " ".join(f"{flags[d]} {_short(v)}" for d in dropped
                    for v in (recorded[d] if isinstance(recorded[d], list) else [recorded[d]]))  # fmt: skip
    made = made if len(made) <= 200 else f"{made[:197]}..."
    raise InputError(f"{printable(source)}: made with {made}; give the mapping again (pnetviz never takes an expression "
                     "from a record: a file in the output tree can be changed by others). Fix: add the same "
                     f"{' and '.join(flags[d] for d in dropped)} to this command (or --replace to run without one); "
                     "nothing was changed.")  # fmt: skip


def _short(value: object) -> str:
    """A recorded value for a message: printable, quoted as a shell would need it, at most 80 characters."""
    import shlex  # noqa: PLC0415

    text = shlex.quote(printable(value))
    return text if len(text) <= 80 else f"{text[:77]}..."


def removed_files(changes: Changes, sets: Sequence[Path], bare: Sequence[Path] = ()) -> list[Path]:
    """Files of the existing `sets` that the changed options no longer make: the profiled plots
    when --syst and --score-shift are dropped, the images of a dropped format, the b-jet
    comparison when --no-bjet-comparison is added; and every image of the `bare` sets (fold sets
    after a run's first under --images site, which the run rewrites without any: bare_sets)."""
    found = _changed_files(changes, sets)
    seen = set(found)
    return found + [p for p in _files(bare, [lambda name: Path(name).suffix.lower() in IMAGE_SUFFIXES]) if p not in seen]


def bare_sets(images: str, sets: Sequence[Path], folds: Sequence[int | None]) -> list[Path]:
    """The existing sets among `sets` (the fold sets of `folds`, in that order, maybe followed by
    others) that a run with --images `images` rewrites without any image: under site, the fold
    sets after the first (output.imageset.per_fold)."""
    from pnetviz.output.imageset import NONE, SITE, per_fold  # noqa: PLC0415

    if images != SITE:
        return []
    return [d for d, v in zip(sets, per_fold(images, folds)) if v == NONE and Path(d).is_dir()]


def _changed_files(changes: Changes, sets: Sequence[Path]) -> list[Path]:
    """removed_files of the changed options."""
    tests: list[Callable[[str], bool]] = []
    ch = changes.changed
    if any(f in ch and ch[f][1] in (None, "") for f in ("--syst", "--score-shift")):
        tests.append(lambda name: "_profiled" in Path(name).name)
    if "--formats" in ch:
        old, new = (set(str(v or "png,pdf").lower().split(",")) for v in ch["--formats"])
        gone = {f".{f.strip()}" for f in old - new}
        tests.append(lambda name: Path(name).suffix.lower() in gone)
    if ch.get("--no-bjet-comparison", (None, None))[1] is True:
        tests.append(lambda name: "bjet_comparison" in Path(name).name)
    if "--images" in ch:
        tests += image_losses(*ch["--images"])
    return _files(sets, tests) if tests else []


def _files(sets: Sequence[Path], tests: Sequence[Callable[[str], bool]]) -> list[Path]:
    """The files of `sets` (not their markers) that one of `tests` (on the path) accepts."""
    found = []
    for directory in sets:
        for path in sorted(Path(directory).rglob("*")) if Path(directory).is_dir() else []:
            if path.is_file() and not path.name.startswith(".") and any(t(path.as_posix()) for t in tests):
                found.append(path)
    return found


def image_losses(old: object, new: object) -> list[Callable[[str], bool]]:
    """Tests of the image files a change of --images from `old` to `new` no longer makes (None:
    the campaign's default, site): to site, the images of figures the web report does not show
    (a fold summary's all stay); to summary or none, every image of the job sets."""
    from pnetviz.output.imageset import key_figure  # noqa: PLC0415

    old, new = str(old or "site"), str(new or "site")
    if new not in NARROWER.get(old, ()):
        return []
    image = lambda name: Path(name).suffix.lower() in (".png", ".pdf")  # noqa: E731
    if new == "site":
        return [lambda name: image(name) and not key_figure(Path(name).stem) and "/folds/" not in name]
    return [image]


def check_removals(changes: Changes, replace: bool, what: str) -> None:
    """InputError unless nothing is removed or --replace is given."""
    if changes.removed and not replace:
        lost = ", ".join(f"{f} {shown_value(o)} -> {shown_value(n)}" for f, (o, n) in changes.changed.items()) or LATER_FOLDS
        keep = kept_options(changes)
        again = f"add {keep} (what the outputs were made with)" if keep else "give the options again (or leave them out to reuse them)"
        raise InputError(f"{what}: this run would remove {len(changes.removed)} outputs made with the recorded options "
                         f"(e.g. {changes.removed[0]}; {lost}). Fix: {again}, or add --replace to remove those outputs.")  # fmt: skip


def kept_options(changes: Changes) -> str:
    """The --formats and --images that keep every output a change of them would remove (the
    recorded formats joined by the new ones, the recorded --images), as command-line text."""
    parts = []
    if "--formats" in changes.changed:
        old, new = (str(v or "png,pdf").lower().split(",") for v in changes.changed["--formats"])
        parts.append("--formats " + ",".join(dict.fromkeys(f.strip() for f in [*old, *new] if f.strip())))
    if "--images" in changes.changed and changes.changed["--images"][0]:
        parts.append(f"--images {changes.changed['--images'][0]}")
    return " ".join(parts)


def single(args: object, argv: Sequence[str] | None, kind: str, make_parser, sets: Sequence[Path],
           folds: Sequence[int | None] = ()) -> Changes:  # fmt: skip
    """A single command (binary, multiclass, compare) against the sets it would replace (first
    the fold sets of `folds`): the first of them with a recorded command gives the recorded options."""
    import sys  # noqa: PLC0415

    argv = sys.argv[1:] if argv is None else list(argv)
    found = next(((d, c) for d in sets if (c := recorded_command(d)) is not None), None)
    if found is None:
        return Changes()
    source = Path(found[0]) / MARKER
    parser = make_parser()  # one parser for both (_parsed only drops its defaults: the same for each)
    now = given_options(lambda: parser, argv)
    recorded = with_rendered(recorded_options(parser, found[1], source), recorded_rendering(found[0]))
    changes = apply(args, now, recorded, kind, str(source))
    changes.removed = removed_files(changes, sets, bare_sets(getattr(args, "images", "all"), sets, folds))
    check_removals(changes, getattr(args, "replace", False), str(sets[0].parent))
    return changes


def manifest(args: argparse.Namespace, now: dict[str, object], changes: Changes) -> dict:
    """The campaign's round_options.json: the output options given or reused (dest -> value)."""
    dests = output_options("campaign")
    options = {d: getattr(args, d) for d in dests if d in now or dests[d] in changes.reused}
    if options.get("columns") is not None:  # as the jobs were given it (cli.common.passthrough)
        options["columns"] = str(Path(options["columns"]).resolve())
    return {"options": options, "flags": {d: dests[d] for d in options}}

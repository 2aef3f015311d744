"""Remembered options (issue 35, item 2): the options that change a round's outputs are recorded
with its sets, and a later run that does not give them reuses them, so that no output (the
profiled ROC of `--syst`, the PDFs of `--formats`) disappears without a word.

The record: a campaign summary holds `round_options.json` (the output options its command line
gave, by name); a single command's sets hold their command line in their marker. A run:
- without an option the record gives: takes the recorded value (said in one line);
- with a different value: says which sets it replaces; if outputs of the old value would be
  removed (profiled plots, an image format, the b-jet comparison), it stops (exit 2) unless
  `--replace` is given, which also means "exactly this command line" (nothing is reused).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pnetviz.errors import InputError
from pnetviz.io.readers import read_json

MANIFEST = "round_options.json"  # in the campaign summary set
MARKER = ".pnetviz-set.json"
NOT_OUTPUTS = frozenset({"threads"})  # options whose value does not change any output
IMAGE_KINDS = frozenset({"binary", "multiclass", "compare", "campaign"})  # the commands with --images
IMAGE_SUFFIXES = (".png", ".pdf", ".svg", ".eps")  # --formats that are images (not root, c)
LATER_FOLDS = ("--images site writes no image into the fold sets after a run's first (the web report draws their "
               "figures live from plots.root; pnetviz render writes them)")  # why bare_sets lose their images
NARROWER = {"all": ("site", "summary", "none"), "site": ("summary", "none"), "summary": ("none",)}  # fewer images


@dataclass
class Changes:
    """What a run does to the recorded options: reused (flag -> value), changed (flag -> (old,
    new)), and the files of existing sets its options remove."""

    reused: dict[str, object] = field(default_factory=dict)
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
    parser = make_parser()
    for action in parser._actions:  # noqa: SLF001 - argparse has no public way to drop defaults
        action.default = argparse.SUPPRESS
    try:
        return vars(parser.parse_args(list(argv)))
    except InputError:
        return {}


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
    """The argv (after `pnetviz <command>`) recorded in a set's marker; None without one."""
    try:
        command = read_json(Path(directory) / MARKER, "output set marker").get("command")
    except (InputError, OSError, AttributeError):
        return None
    return [str(c) for c in command[2:]] if isinstance(command, list) and len(command) >= 2 else None


def apply(args: argparse.Namespace, now: dict[str, object], recorded: dict[str, object], kind: str) -> Changes:
    """Reuse the `recorded` output options (dest -> value) that this run (`now`: the options it
    gives) does not give, unless --replace; note the ones it changes. `args` is updated."""
    changes = Changes()
    replace = getattr(args, "replace", False)
    for dest, flag in output_options(kind).items():
        old = recorded.get(dest)
        if dest in now:
            if dest in recorded and old != now[dest]:
                changes.changed[flag] = (old, now[dest])
        elif dest in recorded:
            if replace:
                changes.changed[flag] = (old, None)
            else:
                setattr(args, dest, old)
                changes.reused[flag] = old
    return changes


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
        raise InputError(f"{what}: this run would remove {len(changes.removed)} outputs made with the recorded options "
                         f"(e.g. {changes.removed[0]}; {lost}). Fix: give the options again (or leave them out to "
                         "reuse them), or add --replace to remove those outputs.")  # fmt: skip


def single(args: argparse.Namespace, argv: Sequence[str] | None, kind: str, make_parser, sets: Sequence[Path],
           folds: Sequence[int | None] = ()) -> Changes:  # fmt: skip
    """A single command (binary, multiclass, compare) against the sets it would replace (first
    the fold sets of `folds`): the first of them with a recorded command gives the recorded options."""
    import sys  # noqa: PLC0415

    argv = sys.argv[1:] if argv is None else list(argv)
    recorded_argv = next((c for c in map(recorded_command, sets) if c is not None), None)
    if recorded_argv is None:
        return Changes()
    parser = make_parser()  # one parser for both (given_options only drops its defaults: the same for each)
    changes = apply(args, given_options(lambda: parser, argv), given_options(lambda: parser, recorded_argv), kind)
    changes.removed = removed_files(changes, sets, bare_sets(getattr(args, "images", "all"), sets, folds))
    check_removals(changes, getattr(args, "replace", False), str(sets[0].parent))
    return changes


def read_manifest(summary: Path) -> dict[str, object]:
    """dest -> value recorded in a campaign summary's round_options.json ({} without one)."""
    try:
        data = read_json(Path(summary) / MANIFEST, "round options")
    except (InputError, OSError):
        return {}
    options = data.get("options") if isinstance(data, dict) else None
    return options if isinstance(options, dict) else {}


def manifest(args: argparse.Namespace, now: dict[str, object], changes: Changes) -> dict:
    """The campaign's round_options.json: the output options given or reused (dest -> value)."""
    dests = output_options("campaign")
    options = {d: getattr(args, d) for d in dests if d in now or dests[d] in changes.reused}
    return {"options": options, "flags": {d: dests[d] for d in options}}

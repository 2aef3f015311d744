"""Command-line values checked while argparse reads them: every numeric option has a stated range
(in its --help) and a value outside it, NaN, infinity or text is one line naming the option and
the range (InputError: exit 2), before any work. And the parser whose other usage mistakes are
one line too."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from dataclasses import dataclass

from pnetviz.errors import InputError

DAY = 86400.0
MAX_SEED = 2**62  # seeds are 64-bit unsigned in the C++ bootstrap; per-split offsets are added


class Parser(argparse.ArgumentParser):
    """argparse with pnetviz's rule for user mistakes: one line naming the problem and the fix
    (InputError, exit 2), not the usage block."""

    def error(self, message: str):
        from pnetviz.escape import printable  # noqa: PLC0415

        raise InputError(f"{printable(message)}. Fix: see '{self.prog} --help'.")


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """argparse's help layout, its option texts wrapped at spaces only: a name or path such as
    MHc130_MA90 or <plots-dir> is never split over two lines."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        import textwrap  # noqa: PLC0415

        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False, break_long_words=False)


@dataclass(frozen=True)
class Range:
    """An argparse `type` for a number in [low, high] (an open end with low_open/high_open), whole
    with `whole`, 0 too with `zero` (0 meaning off or no limit). `what` says what to give, with
    `{range}` where the range goes ("a number of seconds {range}, or 0 (no limit)"). `flag`, the
    option's name for the message, is set by `bound`."""

    low: float
    high: float
    what: str
    whole: bool = False
    low_open: bool = False
    high_open: bool = False
    zero: bool = False
    flag: str = ""

    def bound(self, flag: str) -> Range:
        return Range(**{**self.__dict__, "flag": flag})

    def stated(self) -> str:
        """The range in words: 'from 1 to 2592000', 'above 0 and at most 10'."""
        low, high = _number(self.low), _number(self.high)
        if not (self.low_open or self.high_open):
            return f"from {low} to {high}"
        return f"{'above' if self.low_open else 'at least'} {low} and {'below' if self.high_open else 'at most'} {high}"

    def described(self) -> str:
        return self.what.format(range=self.stated())

    def inside(self, value: float) -> bool:
        if self.zero and value == 0:
            return True
        above = value > self.low if self.low_open else value >= self.low
        below = value < self.high if self.high_open else value <= self.high
        return above and below

    def __call__(self, text: str) -> int | float:
        from pnetviz.escape import printable  # noqa: PLC0415

        fix = f"{self.flag} {printable(text)}: give {self.described()}"
        try:
            value = int(text) if self.whole else float(text)
        except ValueError:
            raise InputError(f"{fix} (not {'a whole number' if self.whole else 'a number'}).") from None
        if not (math.isfinite(value) and self.inside(value)):
            raise InputError(f"{fix}.")
        return value


def _number(value: float) -> str:
    """A bound as written: whole numbers in full (2592000, 4611686018427387904), others as %g."""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def checked_text(flag: str, check: Callable[[str], object]) -> Callable[[str], str]:
    """An argparse `type` that runs `check(text)` (InputError on a bad value: its one line) and
    returns `text` unchanged (the campaign passes it on to its jobs as given)."""

    def parse(text: str) -> str:
        check(text)
        return text

    parse.__name__ = flag.lstrip("-").replace("-", "_")
    return parse


def help_with_range(kwargs: dict, flag: str) -> dict:
    """add_argument keyword arguments with a Range `type` bound to `flag` and its range at the end
    of the help text; other arguments unchanged."""
    kind = kwargs.get("type")
    if not isinstance(kind, Range):
        return kwargs
    bound = kind.bound(flag)
    text = kwargs.get("help", "")
    return {**kwargs, "type": bound, "help": f"{text} [range: {bound.described()}]".strip()}


def add(group, *flags: str, **kwargs) -> argparse.Action:
    """group.add_argument with a Range `type` bound to the option and stated in its help."""
    return group.add_argument(*flags, **help_with_range(kwargs, flags[-1]))


# the ranges of the numeric options every subcommand shares (cli/common.py's table)
SIGNAL_SCALE = Range(0.0, 1e6, "a signal-weight factor {range}", low_open=True)
BOOTSTRAP = Range(1, 100_000, "0 (off) or a whole number of replicas {range}", whole=True, zero=True)
SEED = Range(0, MAX_SEED, "a whole number {range}", whole=True)
ENERGY = Range(13.0, 14.0, "the centre-of-mass energy in TeV, 13, 13.6 or 14")
SCORE_BINS = Range(5, 50, "auto, or a whole number of bins {range} that divides 50: 50, 25, 10 or 5", whole=True)
LUMI = Range(0.0, 1e5, "an integrated luminosity in fb^-1 {range}", low_open=True)
SYST_KAPPA = Range(0.0, 10.0, "a positive scan range in units of the variations, {range}", low_open=True)
THREADS = Range(1, 1024, "a whole number of threads {range}", whole=True)
MEMORY_BUDGET = Range(0.0, 1e6, "a memory size in GB {range}", low_open=True)
CUT_SCAN_MIN_EVENTS = Range(0.0, 1e9, "a number of effective background events {range}")
SCORE_SHIFT = Range(0.0, 1.0, "shifts in score units {range}", low_open=True)
DEPLOYED_FOLD = Range(0, 999, "a fold number {range}", whole=True)
# the campaign's
WORKERS = Range(1, 1024, "0 (every job in this process) or a whole number of worker processes {range}", whole=True, zero=True)
JOB_TIMEOUT = Range(1.0, 30 * DAY, "a number of seconds {range} (30 days), or 0 (no limit)", zero=True)
JOBS = Range(1, 10_000, "the number of batch jobs, {range}", whole=True)
START_TIMEOUT = Range(1.0, 30 * DAY, "a number of seconds {range} (30 days)")
# pnetviz demo's and pnetviz ga's
EVENTS = Range(100, 10_000_000, "a whole number of events {range}", whole=True)
FOLDS = Range(1, 100, "a whole number of folds {range}", whole=True)
TOP = Range(1, 10_000, "a whole number of models {range}", whole=True)
P_THRESHOLD = Range(0.0, 1.0, "a p-value {range}", low_open=True, high_open=True)


def score_bins(text: str) -> int | str:
    """--score-bins: "auto" (draw.plots.auto_score_bins's rule, the default) or SCORE_BINS."""
    if str(text).strip().lower() == "auto":
        return "auto"
    return SCORE_BINS.bound("--score-bins")(text)


def check_tlatex_option(flag: str) -> Callable[[str], str]:
    """An argparse `type` for user text drawn as TLatex (--extra-text, --run): escape.check_tlatex
    (balanced braces at most 8 deep, 200 characters, no backslash), else one line naming `flag`."""
    from pnetviz import escape  # noqa: PLC0415

    def check(text: str) -> None:
        try:
            escape.check_tlatex(text, flag)
        except ValueError as err:
            raise InputError(f"{err}. Fix: a short TLatex text, braces balanced and at most "
                             f"{escape.MAX_TLATEX_DEPTH} deep, e.g. {flag} 'Simulation Preliminary'.") from None  # fmt: skip

    return checked_text(flag, check)


def parse_shifts(text: str | None) -> dict[str, float]:
    """--score-shift CLASS=TAU,... -> {class: tau}; InputError unless each TAU is a number in (0, 1]."""
    from pnetviz.io.trainer import parse_mapping  # noqa: PLC0415

    shifts = {}
    for cls, value in parse_mapping(text, "--score-shift", "=", "background=0.02").items():
        try:
            shifts[cls] = float(value)
        except ValueError:
            raise InputError(f"--score-shift {text!r}: {value!r} is not a number. Fix: e.g. background=0.02.") from None
        if not (math.isfinite(shifts[cls]) and SCORE_SHIFT.inside(shifts[cls])):
            raise InputError(f"--score-shift {text!r}: give {SCORE_SHIFT.described()} (e.g. background=0.02), "
                             f"not {cls}={value}.")  # fmt: skip
    return shifts


def labels(text: str) -> None:
    """--labels: InputError unless name=label pairs of drawable TLatex (io.trainer.parse_labels)."""
    from pnetviz.io.trainer import parse_labels  # noqa: PLC0415

    parse_labels(text)


def working_points(text: str) -> None:
    """--working-points: InputError unless signal efficiencies in (0, 1] (metrics.workingpoints)."""
    from pnetviz.metrics.workingpoints import parse_targets  # noqa: PLC0415

    parse_targets(text)


def parse_formats(text: str) -> list[str]:
    """Image formats of --formats; 'none': no image (plots.root keeps every canvas for `pnetviz render`)."""
    if text.strip().lower() == "none":
        return []
    formats = [f.strip().lower().lstrip(".") for f in text.split(",") if f.strip()]
    allowed = {"png", "pdf", "svg", "eps", "root", "c"}
    bad = [f for f in formats if f not in allowed]
    if not formats or bad:
        raise InputError(f"--formats {text!r}: choose from {', '.join(sorted(allowed))}, or none.")
    return formats


def check_energy(energy: float) -> None:
    from pnetviz.draw.style import ENERGIES  # noqa: PLC0415

    if not any(abs(energy - e) < 1e-3 for e in ENERGIES):
        raise InputError(f"--energy {energy:g}: the CMS label is drawn for 13, 13.6 or 14 TeV. Fix: give one of them.")

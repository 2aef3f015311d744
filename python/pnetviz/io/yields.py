"""Expected event yields per class (`--expected-yields`): inline `signal=S,<class>=B,...`, or a
JSON file with one entry per channel and signal point (a campaign's table):

    {"Run1E2Mu": {"MHc130_MA90": {"signal": 12.5, "nonprompt": 410.0, "diboson": 95.0, "ttX": 60.0}}}

The training weights are normalised for training, not to a luminosity: Punzi, Asimov, FIP1 and
the operating points are physical only with these yields (otherwise reported as relative).
"""

from __future__ import annotations

import math
from pathlib import Path

from pnetviz.errors import InputError
from pnetviz.io.readers import read_yields


def _numbers(mapping: dict, where: str) -> dict[str, float]:
    out = {}
    for name, value in mapping.items():
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise InputError(f"{where}: the yield of {name!r} is not a number ({value!r}).") from None
        if not (math.isfinite(number) and number > 0):
            raise InputError(f"{where}: the yield of {name!r} must be a positive number of events, not {value!r}.")
        out[str(name)] = number
    return out


def expected_yields(text: str | None, channel: str, signal: str) -> dict[str, float] | None:
    """Class -> expected events for this channel and signal point; None without the option."""
    if text is None:
        return None
    if not text.strip():
        raise InputError("--expected-yields '': give signal=S,<background>=B,... or a JSON file.")
    path = Path(text)
    if "=" not in text and path.suffix.lower() == ".json":
        table = read_yields(path, f"--expected-yields {path}")
        entry = table.get(channel, {}).get(signal) if isinstance(table, dict) and isinstance(table.get(channel), dict) else None
        if not isinstance(entry, dict):
            raise InputError(f"--expected-yields {path}: no entry for channel {channel!r}, signal {signal!r} "
                             f"(the file needs {{\"{channel}\": {{\"{signal}\": {{\"signal\": S, ...}}}}}}).")  # fmt: skip
        return _numbers(entry, f"--expected-yields {path} [{channel}][{signal}]")
    pairs = {}
    for part in (p.strip() for p in text.split(",") if p.strip()):
        name, sep, value = part.partition("=")
        if not sep or not name.strip():
            raise InputError(f"--expected-yields {text!r}: give class=events pairs, e.g. signal=12.5,nonprompt=410.")
        pairs[name.strip()] = value.strip()
    return _numbers(pairs, f"--expected-yields {text!r}")


def pair_yields(yields: dict[str, float] | None, signal_class: str, background: str) -> tuple[float, float] | None:
    """(S, B) of one signal-vs-background pair; InputError naming a class the yields lack."""
    if yields is None:
        return None
    missing = [c for c in ("signal" if "signal" in yields else signal_class, background) if c not in yields]
    if missing:
        raise InputError(f"--expected-yields has no yield for {', '.join(missing)}; it gives {', '.join(yields)}.")
    return yields.get("signal", yields.get(signal_class)), yields[background]

"""Names as a datacard, a ROOT file's keys, RooFit and pyhf read them.

A channel, process or systematic name is written as an identifier: letters, digits and '_',
not starting with a digit. Combine splits datacard lines on whitespace and reads the shapes'
keys as `$CHANNEL/$PROCESS_$SYSTEMATIC` ('/' is a directory); HistFactory builds RooFit
names (`alpha_<syst>`, `gamma_stat_<channel>_bin_<i>`) that RooFit's formula parser reads.
Any other character becomes '_' and a leading digit gets an 'n' in front; two names that
become one are refused (InputError naming both) rather than merged.
"""

from __future__ import annotations

import re
from dataclasses import replace

from pnetviz.errors import InputError
from pnetviz.limits.spec import Channel, FitModel, Sample

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
RESERVED = ("mu", "data_obs", "Lumi")  # the POI, the observation's process name, HistFactory's luminosity


def card_name(text: str) -> str:
    """`text` as a datacard/ROOT/RooFit identifier (itself when it is one already)."""
    name = re.sub(r"[^A-Za-z0-9_]", "_", str(text))
    return name if _IDENTIFIER.fullmatch(name) else "n" + name


def is_card_name(text: str) -> bool:
    return bool(_IDENTIFIER.fullmatch(text)) and text not in RESERVED


def _unique(names: list[str], what: str) -> list[str]:
    """Each of `names` as an identifier that is not reserved; InputError if two become one."""
    out: dict[str, str] = {}
    result = []
    for name in names:
        new = card_name(name)
        new += "_" * (new in RESERVED)
        if new in out and out[new] != name:
            raise InputError(f"the {what} names {out[new]!r} and {name!r} both become {new!r} in a datacard; "
                             "fix: rename one of them")
        out[new] = name
        result.append(new)
    return result


def escaped(model: FitModel) -> FitModel:
    """`model` with every channel, process and systematic name as a datacard identifier."""
    channels = _unique([ch.name for ch in model.channels], "channel")
    if len(set(channels)) != len(channels):
        raise InputError(f"a channel name is given twice ({', '.join(ch.name for ch in model.channels)}); fix: one per channel")
    systs = list(dict.fromkeys(n for ch in model.channels for s in (ch.signal, *ch.backgrounds) for n in s.shape_systs))
    syst_map = dict(zip(systs, _unique(systs, "systematic")))
    out = []
    for ch, ch_name in zip(model.channels, channels):
        procs = _unique([s.name for s in (ch.signal, *ch.backgrounds)], f"process (channel {ch.name!r})")
        if len(set(procs)) != len(procs):
            raise InputError(f"channel {ch.name!r} names a process twice ({', '.join(s.name for s in (ch.signal, *ch.backgrounds))}); "
                             "fix: one template per process")

        def sample(s: Sample, name: str) -> Sample:
            return replace(s, name=name, shape_systs={syst_map[k]: v for k, v in s.shape_systs.items()})

        out.append(Channel(name=ch_name, edges=ch.edges, observable=ch.observable, signal=sample(ch.signal, procs[0]),
                           backgrounds=tuple(sample(s, n) for s, n in zip(ch.backgrounds, procs[1:]))))
    return replace(model, channels=tuple(out))

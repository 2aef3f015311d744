"""What the analysis' ParticleNet trainer writes beside each ntuple, read as it is.

`<model>_performance.json` (model_name, signal_sample, channel, fold, pilot_mode,
training_config, background_info, training_results) and `<model>_model_info.json`
(num_parameters, architecture, ...) sit beside `trees/<model>.root`. They are matched to an
ntuple by the exact model name (the file's stem), never by "the first JSON in the directory".

Class names are branch names: class i <-> `true_label == i` <-> branch `score_<name>`. The
trainer names background branches after the group (grouped mode) or after the sample through a
fixed table (individual mode: `TTZToLLNuNu` -> `ttz`, anything unknown -> `bg<i>`), so binary
models have `score_bg1`. Display labels (`t#bar{t}X`) are separate and only used on plots.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from pnetviz import escape, names
from pnetviz.errors import InputError
from pnetviz.io import readers
from pnetviz.io.layout import check_name, signal_masses

PERFORMANCE_SUFFIX = "_performance.json"
MODEL_INFO_SUFFIX = "_model_info.json"
# The trainer's sample -> branch table (ResultPersistence._get_background_branch_name): the first
# key contained in the sample name wins, in this order.
SAMPLE_BRANCHES = (
    ("TTLL", "ttll"), ("WZTo3LNu", "wz"), ("ZZTo4L", "zz"), ("TTZToLLNuNu", "ttz"), ("TTWToLNu", "ttw"),
    ("tZq", "tzq"), ("DYJets10to50", "dy10to50"), ("DYJets", "dy"),
)  # fmt: skip
# The analysis' binary categories -> the samples they stand for (its visualizeBinary.py background_map and
# the grouped mode's diboson): a binary model pairs with the individual class of such a sample.
CATEGORY_SAMPLES = {"nonprompt": ("TTLL",), "diboson": ("WZTo3LNu", "ZZTo4L"), "ttz": ("TTZToLLNuNu",)}
DEFAULT_LABELS = {
    "nonprompt": "Nonprompt", "diboson": "Diboson", "ttX": "t#bar{t}X", "ttZ": "t#bar{t}Z", "ttW": "t#bar{t}W",
    "ttll": "t#bar{t}ll", "wz": "WZ", "zz": "ZZ", "ttz": "t#bar{t}Z", "ttw": "t#bar{t}W", "tzq": "tZq",
    "dy": "DY", "dy10to50": "DY (10-50 GeV)", "conversion": "Conversion", "others": "Others",
}  # fmt: skip


def known_branch(sample: str) -> str | None:
    """The branch name the trainer's table gives `sample`, None if the table does not know it."""
    return next((branch for key, branch in SAMPLE_BRANCHES if key in sample), None)


def sample_branch(sample: str, index: int) -> str:
    """The trainer's branch name for individual background `sample` at 0-based `index`."""
    return known_branch(sample) or f"bg{index + 1}"


def read_json(path: Path, what: str) -> dict:
    """A JSON object from `path` (readers.read_json: NaN and Infinity kept, the callers check the
    values); InputError naming the file for every way it can be unreadable."""
    return readers.read_json(Path(path), what, finite=False)


def beside(predictions: Path, suffix: str) -> Path | None:
    """`<model><suffix>` for the ntuple `<dir>/trees/<model>.root` (or `<dir>/<model>.root`): next to
    `trees/` first, then next to the file. None if neither exists."""
    predictions = Path(predictions)
    name = predictions.stem + suffix
    places = [predictions.parent.parent / name] if predictions.parent.name == "trees" else []
    places.append(predictions.parent / name)
    return next((p for p in places if p.is_file()), None)


def find_performance(predictions: Path) -> Path | None:
    """The training JSON of this ntuple: `<model>_performance.json` by exact name; for an ntuple
    whose name is not a model name (`predictions.root`), the only `*_performance.json` beside it.
    Several candidates and no exact match: InputError (never the first by name)."""
    exact = beside(predictions, PERFORMANCE_SUFFIX)
    if exact is not None:
        return exact
    found = sorted(Path(predictions).parent.glob(f"*{PERFORMANCE_SUFFIX}"))
    if len(found) > 1:
        names = ", ".join(p.name for p in found)
        raise InputError(f"{predictions}: no {Path(predictions).stem}{PERFORMANCE_SUFFIX}, and {len(found)} other "
                         f"training histories beside it ({names}). Fix: pass the right one with --history.")  # fmt: skip
    return found[0] if found else None


@dataclass(frozen=True)
class TrainerInfo:
    """The trainer's metadata of one model (empty when the JSON files are absent)."""

    performance: Path | None = None
    model_info: Path | None = None
    meta: dict = field(default_factory=dict)  # performance JSON without training_results
    info: dict = field(default_factory=dict)  # model_info JSON

    @property
    def model(self) -> str | None:
        return self.meta.get("model_name") or self.info.get("model_name")

    @property
    def fold(self) -> int | None:
        fold = self.meta.get("fold")
        return fold if isinstance(fold, int) and not isinstance(fold, bool) else None

    @property
    def pilot(self) -> bool:
        return self.meta.get("pilot_mode") is True

    def signal(self, prefix: str) -> str | None:
        sample = self.meta.get("signal_sample")
        if not isinstance(sample, str):
            return None
        return sample[len(prefix):] if prefix and sample.startswith(prefix) else sample

    @property
    def channel(self) -> str | None:
        channel = self.meta.get("channel")
        return channel if isinstance(channel, str) else None

    def groups(self) -> dict[str, list[str]]:
        """Group name -> sample names (grouped models), or each branch name -> [its sample]."""
        bkg = self.meta.get("background_info")
        if not isinstance(bkg, dict):
            return {}
        if bkg.get("mode") == "grouped" and isinstance(bkg.get("groups"), dict):
            # "comment" (dropped by the trainer in every section) and any other non-list value are no class
            groups = {g: v for g, v in bkg["groups"].items() if isinstance(v, list)}
            for name in groups:  # class names: parts of output file names
                check_name(name, "class (background_info.groups)", f"{self.performance} (the trainer's JSON)",
                           "correct the JSON, or give the classes with --classes.")  # fmt: skip
            return {str(g): [str(s) for s in v] for g, v in groups.items()}
        samples = bkg.get("backgrounds")
        if isinstance(samples, list):
            return {sample_branch(str(s), i): [str(s)] for i, s in enumerate(samples)}
        return {}

    def binary_background(self) -> str | None:
        """The background category of a binary model (its one individual 'background')."""
        bkg = self.meta.get("background_info")
        samples = bkg.get("backgrounds") if isinstance(bkg, dict) else None
        return str(samples[0]) if isinstance(samples, list) and len(samples) == 1 else None

    def classes(self) -> tuple[str, ...] | None:
        """Class (branch) names in label order, signal first, from background_info; None if absent."""
        groups = self.groups()
        return ("signal", *groups) if groups else None

    def report(self) -> dict:
        """The model's identity, hyperparameters and size for summary_report.json."""
        out = {"model_name": self.model, "performance_json": self.performance, "model_info_json": self.model_info}
        for key in ("signal_sample", "channel", "fold", "pilot_mode", "training_config", "background_info"):
            if key in self.meta:
                out[key] = self.meta[key]
        for key in ("model_type", "num_parameters", "trainable_parameters", "num_classes", "architecture",
                    "input_features", "training_mode"):  # fmt: skip
            if key in self.info:
                out[key] = self.info[key]
        return out


def load_info(predictions: Path, performance: Path | None) -> TrainerInfo:
    """The TrainerInfo of `predictions`: its performance JSON (given or found) and model_info JSON."""
    meta = {}
    if performance is not None:
        meta = {k: v for k, v in read_json(performance, "training history").items() if k != "training_results"}
    info_path = beside(predictions, MODEL_INFO_SUFFIX)
    info = read_json(info_path, "model info") if info_path else {}
    return TrainerInfo(performance=performance, model_info=info_path, meta=meta, info=info)


def parse_mapping(text: str | None, option: str, sep: str, example: str) -> dict[str, str]:
    """`a<sep>b,c<sep>d` -> {a: b, c: d} for a command-line option; InputError showing `example`."""
    out = {}
    for part in (text or "").split(","):
        if not part.strip():
            continue
        key, found, value = part.partition(sep)
        if not found or not key.strip() or not value.strip():
            raise InputError(f"{option} {text!r}: give pairs like {example}, separated by commas.")
        out[key.strip()] = value.strip()
    return out


def parse_labels(text: str | None) -> dict[str, str]:
    """`--labels ttX=t#bar{t}X,nonprompt=Fakes` -> {"ttX": "t#bar{t}X", ...}; each label must be
    TLatex that ROOT can draw (balanced braces, no backslash: `{}\\` crashes ROOT)."""
    labels = parse_mapping(text, "--labels", "=", "name=label (ttX=t#bar{t}X)")
    for name, label in labels.items():
        try:
            escape.check_tlatex(label, f"--labels {name}=")
        except ValueError as err:
            raise InputError(f"{err}. Fix: write the label in short TLatex (at most {escape.MAX_TLATEX_LENGTH} characters, "
                             f"braces at most {escape.MAX_TLATEX_DEPTH} deep), e.g. ttX=t#bar{{t}}X.") from None  # fmt: skip
    return labels


CHANNEL = re.compile(r"Run(\d+)E(\d+)Mu|Run(\d+)Mu|Run(\d+)E")


def channel_label(name: str, overrides: dict[str, str] | None = None) -> str:
    """A channel as its final state in TLatex: Run1E2Mu -> 1e2#mu, Run3Mu -> 3#mu (--labels
    first; other names unchanged)."""
    if overrides and name in overrides:
        return overrides[name]
    m = CHANNEL.fullmatch(name)
    if not m:
        return escape.tlatex(name)
    if m.group(1):
        return f"{m.group(1)}e{m.group(2)}#mu"
    return f"{m.group(3)}#mu" if m.group(3) else f"{m.group(4)}e"


def signal_label(name: str, overrides: dict[str, str] | None = None) -> str:
    """A signal point in TLatex: MHc130_MA90 -> m(H^{#pm}) = 130 GeV, m(A) = 90 GeV (names.signal_point;
    no superscript on a subscript: at 7 pt it would be under 4 pt)."""
    if overrides and name in overrides:
        return overrides[name]
    m = signal_masses(name)
    return names.signal_point(*m) if m else escape.tlatex(name)


def display_label(name: str, overrides: dict[str, str]) -> str:
    """The plot label of class `name`: --labels first, then the built-in physics labels, else the name."""
    return overrides.get(name) or DEFAULT_LABELS.get(name) or escape.tlatex(name)


def pairing(binary_background: str, classes: tuple[str, ...], groups: dict[str, list[str]]) -> str | None:
    """The multi-class class a binary model's background compares with: the class of the same name
    (case-insensitive), else the group holding a sample of that name or branch name (ttZ -> ttX
    when ttX holds TTZToLLNuNu), else the individual class of a sample the category stands for
    (CATEGORY_SAMPLES: nonprompt -> ttll, diboson -> wz, ttZ -> ttz)."""
    want = binary_background.lower()
    for name in classes[1:]:
        if name.lower() == want:
            return name
    for name in classes[1:]:
        samples = groups.get(name, [])
        if any(s.lower() == want or known_branch(s) == want for s in samples):
            return name
    stands_for = CATEGORY_SAMPLES.get(want, ())  # individual classes (ttll, wz, ttz): the category's samples
    for name in classes[1:]:
        samples = groups.get(name) or [key for key, branch in SAMPLE_BRANCHES if branch == name]
        if any(s.startswith(key) for s in samples for key in stands_for):
            return name
    return None

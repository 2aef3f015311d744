"""The evaluation options as one table (flags, help group, the subcommands that have each, whether
the campaign passes it on), the help groups and the contract's help text, and where --plots-dir
puts the plots tree (plots_root): what every subcommand, the remembered options (cli.remember)
and the rounds (cli.rounds) read, below the wiring in cli.common; and the parsed options of an
evaluation turned into its request (evaluation_request)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pnetviz.cli import ranges
from pnetviz.errors import InputError


CONTRACT_HELP = (
    "ntuple contract: TTree 'Events' with true_label (int, 0 = signal), score_<class> (float), weight "
    "(float, may be negative), train_mask/test_mask (bool)[, valid_mask, subset bools].\n"
    "history: <model>_performance.json beside the ntuple (training_results.training_history); "
    "details in docs/inputs.md."
)

# Help groups, in the order --help shows them.
GROUPS = {
    "inputs": "inputs (what to evaluate)",
    "outputs": "outputs (where and what is written)",
    "physics": "physics (weights, errors, metrics)",
    "style": "style (CMS label, plot labels)",
    "systematics": "systematics (the profiled ROC; docs/profiled-roc.md: definition and interpolation)",
    "execution": "execution",
}

MODEL_KINDS = frozenset({"binary", "multiclass"})
READS_NTUPLES = frozenset({"binary", "multiclass", "compare", "campaign"})  # the subcommands whose --help ends with the contract
EVAL_KINDS = frozenset({"binary", "multiclass", "compare"})


@dataclass(frozen=True)
class Option:
    """One command-line option: its flags, help group, which subcommands have it (binary,
    multiclass, compare) and whether the campaign has it too and passes it on to its jobs."""

    flags: tuple[str, ...]
    group: str
    kinds: frozenset[str]
    campaign: bool
    kwargs: dict = field(default_factory=dict)

    @property
    def dest(self) -> str:
        return self.kwargs.get("dest") or self.flags[-1].lstrip("-").replace("-", "_")

    @property
    def is_flag(self) -> bool:
        return self.kwargs.get("action") == "store_true"


def _opt(flags: str, group: str, kinds=EVAL_KINDS, campaign: bool = True, **kwargs) -> Option:
    return Option(tuple(flags.split()), group, frozenset(kinds), campaign, ranges.help_with_range(kwargs, flags.split()[-1]))


# The evaluation options: the same names and meanings in every subcommand; the campaign passes
# each one it has on to the jobs of the kinds that have it (one table, so none is forgotten).
EVALUATION = (
    _opt("--tree", "inputs", default="Events", help="TTree name in the ntuples (default: %(default)s)"),
    _opt("--column", "inputs", action="append", metavar="NAME=EXPR",
         help="where a contract column comes from in your ntuple: a branch or an expression of branches in "
              "pnetviz's grammar (arithmetic, comparisons, && || !, ?:, abs, sqrt, min, max, ...: docs/inputs.md; "
              "nothing else is compiled), e.g. weight=evt_weight, 'true_label=isSignal ? 0 : 1', "
              "'test_mask=event %% 5 == 3' (repeatable)"),
    _opt("--columns", "inputs", metavar="FILE",
         help="a JSON file of such pairs, {\"true_label\": \"isSignal ? 0 : 1\", ...} (--column pairs win)"),
    _opt("--observe", "inputs", {"binary", "multiclass", "compare"}, metavar="BRANCH,...",
         help="float branches to study the score against, e.g. m_mumu,pt_lead: signal efficiency and background "
              "rejection per bin at a fixed working point, and the background's shape after cuts (sculpting; "
              "compare: both models of every pair; docs/observers.md)"),
    _opt("--subset", "inputs", metavar="BRANCH",
         help="evaluate only events where this boolean branch is true (e.g. has_bjet)"),
    _opt("--classes", "inputs", {"multiclass", "compare"},
         help="multi-class class names in label order, signal first: class i <-> true_label == i <-> branch "
              "score_<name> (default: from the trainer's JSON background_info, else the score_* branches in order)"),
    _opt("--pair", "inputs", {"compare"}, metavar="BINARY:CLASS,...",
         help="which multi-class class each binary background is compared with (ttZ:ttX); default: the class of "
              "the same name, else the group holding that sample (trainer's JSON)"),
    _opt("--binary-model", "inputs", {"compare"}, campaign=False,
         help="which binary model when several are trained against one background (hyperparameter variants): "
              "full name or a part only it has"),
    _opt("--formats", "outputs", default="png,pdf",
         help="image formats, comma-separated: png, pdf, svg, eps, root, c; none: only plots.root (every canvas "
              "inside; pnetviz render writes the images later) (default: %(default)s)"),
    _opt("--images", "outputs", campaign=False, choices=("all", "site"), default="all",
         help="which figures get images in --formats: all (default: everything, PDFs for a note included) or site "
              "(only those the campaign's web report shows as images: ROC, rejection and score plots of the first fold "
              "evaluated, every fold summary plot; what the campaign passes its jobs by default, with --formats png); every canvas is in "
              "plots.root either way and `pnetviz render` writes the rest (docs/note-figures.md)"),
    _opt("--weights", "physics", choices=("abs", "signed", "drop"), default="abs",
         help="negative weights: abs = |w| (the spec's default), signed = as stored (rates may leave [0,1]: "
              "flagged in the report), drop = ignore w<0 events; the report gives the AUC under all three"),
    _opt("--signal-scale", "physics", type=ranges.SIGNAL_SCALE, default=1.0,
         help="multiply signal weights for prevalence-aware metrics (FIP, Punzi, Asimov), since the signal "
              "normalisation is a hypothesis (default: %(default)s)"),
    _opt("--expected-yields", "physics", EVAL_KINDS, metavar="CLASS=N,...|FILE.json",
         help="expected event counts per class, e.g. signal=12.5,nonprompt=410,diboson=95,ttX=60, or a JSON file "
              "{channel: {signal point: {class: N}}} (a campaign's table): Punzi, Asimov, FIP and the operating points "
              "use them; without it they are relative figures of the training weights (said in the report); the "
              "background classes' yields are also the weights of the multi-class weighted LR score (compare: only that; "
              "docs/statistics.md)"),
    _opt("--working-points", "physics", MODEL_KINDS, metavar="EPS_S,...", default="0.5,0.7,0.9",
         type=ranges.checked_text("--working-points", ranges.working_points),
         help="working points as weighted signal efficiencies: each is the highest score cut s >= t reaching it on "
              "the --wp-from split, applied to every split (working_points.json, dashed lines on the score plots; "
              "default: %(default)s)"),
    _opt("--wp-from", "physics", MODEL_KINDS, choices=("train", "test"), default="train",
         help="split the working-point thresholds are found on (default: %(default)s)"),
    _opt("--cut-scan-min-events", "physics", MODEL_KINDS, type=ranges.CUT_SCAN_MIN_EVENTS, default=10.0, metavar="N",
         help="the cut scan's optima only over cuts whose passing background has at least N effective events "
              "(sum w)^2/sum w^2; tighter cuts are drawn as statistically empty (default: %(default)s)"),
    _opt("--fit-score", "physics", {"multiclass"}, choices=("lr", "signal"), default="lr",
         help="the multi-class score binned for the fit (signal_vs_<class>_binning.json per pair): lr = each pair's "
              "P(signal) / (P(signal) + P(class)); signal = P(signal), per pair and against all backgrounds together "
              "(signal_vs_all_binning.json, each background class >= 1 MC event per bin) (default: %(default)s)"),
    _opt("--score", "physics", {"multiclass", "compare"}, choices=("lr", "weighted-lr"), default="lr",
         help="the multi-class scores evaluated: lr = each background's likelihood ratio P(signal) / (P(signal) + "
              "P(class)); weighted-lr = also the analysis' score s0 / (s0 + sum_i w_i s_i), w_i the background classes' "
              "--expected-yields (else the ntuple's weighted class totals) normalised to sum 1, evaluated signal vs all "
              "backgrounds and vs each background (weighted_lr_* plots, the weights on each; docs/statistics.md) "
              "(default: %(default)s)"),
    _opt("--binning", "physics", MODEL_KINDS, choices=("fit", "none"), default="fit",
         help="fit = the optimal binning of the score for a binned fit per pair (binning.json, its figures, the TH1s "
              "for a datacard; docs/binning.md); none = skip it (default: %(default)s)"),
    _opt("--deployed-fold", "physics", MODEL_KINDS, type=ranges.DEPLOYED_FOLD, metavar="K",
         help="the analysis applies fold K's model to all of its MC: the fold summary (folds/) also evaluates that model "
              "on the events it was trained on against its unbiased test split and reports the difference (AUC; the "
              "signal and background templates' shapes: KS and chi2) as the bias one deployed model puts into the MC "
              "templates (deployed_fold.json; docs/statistics.md). Needs fold K among the folds evaluated"),
    _opt("--mass-column", "physics", MODEL_KINDS, metavar="NAME",
         help="the mass observable of the expected limits' cut-and-mass and mass-x-score strategies: a float branch or a "
              "column mapped with --column NAME=EXPR (the demo's: m_mumu); without it folds/limits.json has score-fit only "
              "(docs/limits.md)"),
    _opt("--mass-window", "physics", MODEL_KINDS, metavar="HALF",
         help="the mass window around the signal point's m(A): a half-width in GeV (e.g. 10) or in units of the signal's "
              "mass resolution (e.g. 2sigma); default: the central interval holding 95 %% of the signal's non-test mass "
              "(docs/limits.md)"),
    _opt("--no-limits", "physics", MODEL_KINDS, action="store_true",
         help="no expected limits (folds/limits.json, the datacards and workspaces under folds/limits/)"),
    _opt("--bootstrap", "physics", type=ranges.BOOTSTRAP, default=200,
         help="Poisson bootstrap replicas for AUC and rejection errors; 0 disables (default: %(default)s)"),
    _opt("--seed", "physics", type=ranges.SEED, default=20251001, help="bootstrap seed (default: %(default)s)"),
    _opt("--hull", "physics", action="store_true",
         help="draw the ROC convex hull (and the iso-accuracy optimum of a single model) on the test ROC"),
    _opt("--compare-subset", "physics", {"binary"}, metavar="BRANCH",
         help="also compare all test events, BRANCH true and BRANCH false (ROC and scores); has_bjet is "
              "compared automatically"),
    _opt("--no-bjet-comparison", "physics", MODEL_KINDS, action="store_true",
         help="skip the all / with / without b-jet comparison made when the ntuple has has_bjet"),
    _opt("--energy", "style", type=ranges.ENERGY, default=13.0,
         help="centre-of-mass energy in TeV for the CMS label: 13, 13.6 or 14 (HL-LHC projections) (default: %(default)s)"),
    _opt("--cms-label", "style", choices=("cms", "private"), default="cms",
         help="cms = the bold 'CMS' and --extra-text; private = 'Private work (CMS simulation)' without the bold "
              "'CMS' (what the CMS guidelines ask of unapproved plots shown in public; --extra-text unused) "
              "(default: %(default)s)"),
    _opt("--lumi", "style", type=ranges.LUMI, metavar="FB",
         help="integrated luminosity in fb^-1 for the CMS label ('138 fb^{-1} (13 TeV)' in place of --run); needs "
              "--expected-yields, the yields it names (default: none, the run period)"),
    _opt("--score-bins", "style", MODEL_KINDS, type=ranges.score_bins, default="auto",
         help="bins of the drawn score distributions on [0, 1]: 50 (the specification's), or 25, 10, 5 merged from "
              "them (the metrics keep 50); auto: the most of these at which no histogram has more than 5%% of the "
              "bins between its first and last filled one empty (docs/figures.md) (default: %(default)s)"),
    _opt("--run", "style", default="Run 2", type=ranges.check_tlatex_option("--run"), help="run period for the CMS label (default: %(default)s)"),
    _opt("--extra-text", "style", default="Simulation Preliminary", type=ranges.check_tlatex_option("--extra-text"), help="text after 'CMS' (default: %(default)s)"),
    _opt("--labels", "style", type=ranges.checked_text("--labels", ranges.labels),
         help="plot labels of classes, name=label pairs: ttX=t#bar{t}X,nonprompt=Fakes (defaults for the usual "
              "classes; file names keep the class names)"),
    _opt("--syst", "systematics", MODEL_KINDS,
         help="nuisances for the profiled ROC: names of variation branches score_<class>__<NAME>Up/Down and "
              "weight__<NAME>Up/Down, comma-separated, or 'all'"),
    _opt("--syst-kappa", "systematics", MODEL_KINDS, type=ranges.SYST_KAPPA, default=1.0,
         help="scan each nuisance over [-kappa, kappa] (1 = the Up/Down variations; default: %(default)s)"),
    _opt("--score-shift", "systematics", MODEL_KINDS, metavar="CLASS=TAU", type=ranges.checked_text("--score-shift", ranges.parse_shifts),
         help="analytic nuisance: shift the discriminant scores of CLASS (signal, background or a class name) by "
              "theta in [-kappa TAU, kappa TAU], e.g. background=0.02"),
    _opt("--stream", "execution", {"binary"}, campaign=False, action="store_true",
         help="read the ntuple in chunks into per-score summaries: memory bounded by the chunk, not the events; writes the "
              "outputs the summaries give (ROC, AUC, rejection, FIP, score distributions, the binning's fine bins, "
              "training curves) and leaves out what needs each event (bootstrap errors, KS, calibration, working points, "
              "...: the report lists them); one fold at a time; automatic above --memory-budget (docs/evaluating.md)"),
    _opt("--memory-budget", "execution", {"binary"}, campaign=False, type=ranges.MEMORY_BUDGET, default=4.0, metavar="GB",
         help="stream (as --stream) when the in-memory evaluation's estimated peak, 0.55 GB + 100 bytes per entry of "
              "the ntuple, is above this (default: %(default)s GB: above ~3.4e7 entries)"),
    _opt("--threads", "execution", type=ranges.THREADS, default=1,
         help="threads for reading the ntuples (and ROOT implicit multi-threading); results do not depend on it "
              "(default: %(default)s)"),
)
def plots_root(args) -> Path:
    """--plots-dir, else plots/ in the current directory."""
    if args.plots_dir is not None and not str(args.plots_dir).strip():
        raise InputError("--plots-dir '': give a directory.")
    return Path(args.plots_dir) if args.plots_dir is not None else Path("plots")


def evaluation_request(kind: str, args: object) -> object:
    """The request of `pnetviz binary|multiclass|compare` (requests.evaluation) from its parsed command
    line, made once: the option values checked first (a wrong one is said before any input is
    looked at), then every option as a typed field. The Python API makes its request here too."""
    from pnetviz.requests.evaluation import from_namespace  # noqa: PLC0415

    ranges.check_energy(args.energy)
    ranges.parse_formats(args.formats)
    return from_namespace(kind, args)

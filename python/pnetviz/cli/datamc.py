"""`pnetviz datamc`: data against the stacked simulation of an analysis' samples (docs/datamc.md)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from pnetviz.cli import closure as closure_options
from pnetviz.cli import common, ranges
from pnetviz.errors import InputError

DESCRIPTION = ("Compare the classifier's score in data with the stacked simulation of an analysis' preprocessed samples "
               "(<samples-dir>/<era>/<channel>/<masspoint>/<method>/<process>.root with trees Central and <syst>_Up/Down, "
               "data.root or <period>_data.root; docs/datamc.md): per region and score the stack with the MC stat. (+) syst. band, data with Garwood "
               "intervals, the ratio panel, a chi2 with the full covariance, a weighted KS test, pulls, the data "
               "efficiency at the working points against the simulation's and one verdict per region and score, "
               "Holm-adjusted. Signal-region channels are blinded unless --unblind.")  # fmt: skip
EXAMPLES = """\
  pnetviz datamc --samples-dir samples --era 2018 --channel WZ3Mu,ZG3Mu --masspoint MHc130_MA90 --method ParticleNet
  pnetviz datamc --samples-dir samples --era 2018 --channel SR3Mu --masspoint MHc130_MA90 --method ParticleNet --score weighted-lr --bins 0,0.2,0.5,0.8,1
  pnetviz datamc ... --closure SR3Mu --deployed-model 3 --predictions GAOptim_bjets/Combined/multiclass/TTToHcToWAToMuMu-MHc130_MA90/GA-iter3"""
SHARED = ("formats", "energy", "cms_label", "run", "extra_text")
SENSITIVITY = ranges.Range(0.0, 100.0, "an expected s/sqrt(b) {range}", low_open=True)
SET_NAME = "datamc"  # the output set: <plots-dir>/datamc/<era>/<masspoint>/<method>/


def parser(prog: str | None = None):
    from pnetviz.metrics.blinding import DEFAULT_PATTERNS, DEFAULT_SENSITIVITY  # noqa: PLC0415

    parser, groups = common.parser_for("datamc", prog, DESCRIPTION, EXAMPLES)
    inputs = groups["inputs"]
    inputs.add_argument("--samples-dir", type=Path, required=True, help="the samples directory (holding <era>/)")
    inputs.add_argument("--era", required=True, help="era, e.g. 2018")
    inputs.add_argument("--channel", required=True, help="regions (channels), comma-separated, e.g. WZ3Mu,ZG3Mu")
    inputs.add_argument("--masspoint", required=True, help="the deployed mass point, e.g. MHc130_MA90")
    inputs.add_argument("--method", required=True, help="the method directory, e.g. ParticleNet")
    inputs.add_argument("--processes", help="processes, comma-separated (default: configs/samplegroups.json beside the "
                                            "samples, else every <process>.root)")  # fmt: skip
    inputs.add_argument("--column", action="append", metavar="NAME=EXPR",
                        help="where a column comes from (NAME: weight, mass or score_<node>): a branch or an expression "
                             "of branches (the grammar of docs/inputs.md)")  # fmt: skip
    inputs.add_argument("--columns", metavar="FILE", help="a JSON file of such pairs (--column pairs win)")
    physics = groups["physics"]
    physics.add_argument("--score", action="append",
                         help="score to compare: signal (P(signal)), lr:<node> (s/(s+b) against nonprompt, diboson or "
                              "ttZ) or weighted-lr; repeat for several (default: signal)")  # fmt: skip
    physics.add_argument("--bins", default="10", help="N equal bins on [0, 1] or comma-separated edges (default: %(default)s)")
    physics.add_argument("--fit-binning", type=Path, metavar="FILE",
                         help="bin in the model's binning for the fit: the chosen K's edges of an evaluation's "
                              "binning.json (instead of --bins)")  # fmt: skip
    physics.add_argument("--fit-pair", help="the pair of a multi-class binning.json, e.g. signal_vs_diboson")
    physics.add_argument("--syst", help="systematics to use, comma-separated (default: every variation tree)")
    physics.add_argument("--blind-channels", default=",".join(DEFAULT_PATTERNS),
                         help="blind regions: channel name patterns, comma-separated (default: %(default)s)")
    ranges.add(physics, "--blind-sensitivity", type=SENSITIVITY, default=DEFAULT_SENSITIVITY,
               help="in a blind region mask data bins with expected s/sqrt(b) above this (default: %(default)s)")
    physics.add_argument("--unblind", action="store_true", help="show the data in every bin (recorded in the outputs)")
    common.add_plots_dir(groups["outputs"], f"<plots-dir>/{SET_NAME}/<era>/<masspoint>/<method>/")
    groups["outputs"].add_argument("--output", help="write exactly this output set's directory instead")
    for opt in common.EVALUATION:
        if opt.dest in SHARED:
            groups[opt.group].add_argument(*opt.flags, **opt.kwargs)
    parser.set_defaults(extra_text="Preliminary")  # data are shown
    closure_options.add_options(parser)
    common.add_run_options(groups["execution"])
    return parser


def parse_bins(text: str) -> tuple[float, ...]:
    """--bins: N equal bins on [0, 1] or increasing finite edges."""
    import numpy as np  # noqa: PLC0415

    parts = [p.strip() for p in text.split(",") if p.strip()]
    if len(parts) == 1 and parts[0].isdigit() and 1 <= int(parts[0]) <= 1000:
        return tuple(float(v) for v in np.linspace(0.0, 1.0, int(parts[0]) + 1))
    try:
        edges = [float(p) for p in parts]
    except ValueError:
        edges = []
    if len(edges) < 2 or not all(math.isfinite(e) for e in edges) or any(b <= a for a, b in zip(edges, edges[1:])):
        raise InputError(f"--bins {text!r}: give a number of bins (1-1000) or increasing edges, e.g. 0,0.3,0.6,1.")
    return tuple(edges)


def _names(text: str | None, option: str) -> tuple[str, ...]:
    names = tuple(n.strip() for n in (text or "").split(",") if n.strip())
    if text is not None and not names:
        raise InputError(f"{option} '': give names, comma-separated.")
    return tuple(common.option_name(n, option) for n in names)


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    args = parser(prog).parse_args(argv)
    formats = tuple(common.parse_formats(args.formats))
    from pnetviz.io.samples import check_columns  # noqa: PLC0415
    from pnetviz.jobs import datamc  # noqa: PLC0415 - keeps --help free of ROOT start-up

    channels = _names(args.channel, "--channel")
    era, masspoint, method = (common.option_name(v, o) for v, o in
                              ((args.era, "--era"), (args.masspoint, "--masspoint"), (args.method, "--method")))  # fmt: skip
    scores = tuple(dict.fromkeys(datamc.parse_score(s.strip()) for s in (args.score or ["signal"])))
    patterns = tuple(p.strip() for p in args.blind_channels.split(",") if p.strip())
    if args.fit_binning is not None:
        edges, source = datamc.fit_edges(args.fit_binning, args.fit_pair), f"--fit-binning {args.fit_binning}"
    else:
        edges, source = parse_bins(args.bins), f"--bins {args.bins}"
    columns = common.column_map(args)
    check_columns(columns)
    output = Path(args.output) if args.output else common.plots_root(args) / SET_NAME / era / masspoint / method
    processes = _names(args.processes, "--processes")
    closure = closure_options.job_of(args, era, masspoint, method, processes, columns)
    job = datamc.DatamcJob(samples_dir=args.samples_dir, era=era, channels=channels, masspoint=masspoint, method=method,
                           output=output, processes=processes, closure=closure,
                           systematics=_names(args.syst, "--syst") if args.syst is not None else None,
                           columns=columns, scores=scores, edges=edges, binning_source=source, blind_patterns=patterns,
                           sensitivity=args.blind_sensitivity, unblind=args.unblind, formats=formats,
                           style=common.style_options(args))  # fmt: skip
    written, report = datamc.run(job, wait=args.wait, meta=common.provenance("datamc", argv))
    if not args.quiet:
        for line in datamc.summary_lines(report):
            print(f"[pnetviz datamc] {line}", flush=True)
        print(f"[pnetviz datamc] published {len(written)} files in {job.output}", flush=True)
    return 0

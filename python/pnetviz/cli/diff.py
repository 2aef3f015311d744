"""`pnetviz diff A B`: round B against round A, model by model, with paired significances."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pnetviz.cli import common, ranges
from pnetviz.errors import InputError

DESCRIPTION = ("Compare two training rounds, each a campaign's output (its plots directory, or <plots directory>/<round>): models "
               "matched by channel, signal point, kind, pair and hyperparameter variant, folds by index. Per model: "
               "delta AUC (B - A) with the event-paired bootstrap where both rounds hold the same test events (by event_id, "
               "else by position: the same count, true_label, weight and observer sequences), else the corrected "
               "resampled t-test over the folds (diff_models.csv: error_method, pairing), Holm-adjusted p-values over all "
               "matched models, the background rejection at fixed signal efficiencies of both rounds; models of one "
               "round only are listed. Writes diff_models.csv/.tex, diff_unmatched.csv, diff.json, difference maps over "
               "the mass grid, each model's ROC and rejection overlays with a ratio panel, and index.html.")  # fmt: skip
ALPHA = ranges.Range(0.0, 1.0, "a significance level {range}", low_open=True, high_open=True)
EXAMPLES = """\
  pnetviz diff week47/plots week48/plots --output diff-w48
  pnetviz diff plots plots/weekB --rename nNodes128=nNodes64       # a variant renamed in round B"""


def parser(prog: str | None = None):
    parser, groups = common.parser_for("diff", prog, DESCRIPTION, EXAMPLES)
    groups["inputs"].add_argument("round_a", type=Path, metavar="A", help="round A: a campaign's output directory")
    groups["inputs"].add_argument("round_b", type=Path, metavar="B", help="round B: a campaign's output directory")
    groups["inputs"].add_argument("--rename", metavar="B_VARIANT=A_VARIANT,...",
                                  help="match a hyperparameter variant of round B to a differently named one of round A "
                                       "(the model name without -binary-<bkg> / -<n>grp-...; a part of it is enough)")  # fmt: skip
    ranges.add(groups["physics"], "--alpha", type=ALPHA, default=0.05,
               help="significance level of the Holm-adjusted p-values (default: %(default)s)")
    groups["outputs"].add_argument("--output", type=Path, default=Path("diff"),
                                   help="output directory, replaced whole when the run succeeds (default: %(default)s)")
    groups["outputs"].add_argument("--formats", default="png,pdf",
                                   help="image formats of the difference maps and curve overlays, comma-separated, or "
                                        "none (plots.root holds every canvas either way; default: %(default)s)")  # fmt: skip
    groups["execution"].add_argument("--wait", action="store_true", help="wait for a run writing the same directory")
    groups["execution"].add_argument("-q", "--quiet", action="store_true", help="print only warnings and errors")
    return parser


def renames(text: str | None, variants_b: Sequence[str], variants_a: Sequence[str]) -> dict[str, str]:
    """B variant -> A variant from --rename (each side a full variant or a part only one has)."""
    out: dict[str, str] = {}
    for item in (text or "").split(","):
        if not item.strip():
            continue
        old, sep, new = item.partition("=")
        if not sep:
            raise InputError(f"--rename {item!r}: give B_VARIANT=A_VARIANT, e.g. nNodes64=nNodes128.")
        out[one(old.strip(), variants_b, "B")] = one(new.strip(), variants_a, "A")
    return out


def one(part: str, variants: Sequence[str], side: str) -> str:
    found = [v for v in variants if v == part] or [v for v in variants if part and part in v]
    if len(found) != 1:
        listed = "; ".join(variants) or "none"
        raise InputError(f"--rename: {part!r} matches {len(found)} variants of round {side} (variants: {listed}). "
                         "Fix: give a part only one variant has.")  # fmt: skip
    return found[0]


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    from pnetviz.requests.outputs import from_namespace  # noqa: PLC0415

    args = from_namespace("diff", parser(prog).parse_args(argv))  # the command line, once, typed
    from pnetviz.rounds import diff, difflimits, difftables  # noqa: PLC0415
    from pnetviz.io.layout import hyper_tag  # noqa: PLC0415
    from pnetviz.output.atomic import transaction  # noqa: PLC0415

    a_dir, b_dir = diff.summary_dir(args.round_a), diff.summary_dir(args.round_b)
    variants = [sorted({hyper_tag(r.get("model")) for r in [*diff.load_rows(d), *(difflimits.load(d) or [])]})
                for d in (b_dir, a_dir)]  # the models of the summary and of the expected limits
    from pnetviz.rounds import diffevents, diffplots  # noqa: PLC0415

    roots = (diffplots.sets_root(a_dir), diffplots.sets_root(b_dir))
    result = diff.compare(a_dir, b_dir, renames(args.rename, *variants), args.alpha,
                          pair=lambda d: diffevents.pair_events(d, roots))  # fmt: skip
    inputs = [a_dir / diff.SUMMARY, b_dir / diff.SUMMARY]
    from pnetviz.rounds.diffplots import round_label  # noqa: PLC0415
    from pnetviz.draw.style import StyleOptions  # noqa: PLC0415

    formats = [] if args.formats == "none" else common.parse_formats(args.formats)
    names = (round_label(a_dir), round_label(b_dir))
    with transaction([args.output], inputs, args.wait, common.provenance("diff", argv)) as stages:
        difftables.write(stages[args.output], result, formats, StyleOptions(), names)
    if not args.quiet:
        significant = sum(r["significant"] for r in result.rows)
        print(f"[pnetviz diff] {len(result.rows)} models matched, {significant} significant after Holm's adjustment "
              f"(alpha {args.alpha:g}), {len(result.unmatched)} unmatched: {args.output}", flush=True)  # fmt: skip
        print(f"[pnetviz diff] {difflimits.summary_line(result.limits)}", flush=True)
    return 0

#!/usr/bin/env python3
"""CPU of the per-split evaluation in one `pnetviz binary` run (issue 55, item 1 and the CPU line):
cProfile timed with `time.process_time`, the cumulative time of the evaluation's parts.

    python benchmarks/profile_evaluation.py OUT.prof [pnetviz binary options...]
    python benchmarks/profile_evaluation.py --show A.prof [B.prof ...]

Without options the run is peer.py's 1e7 command (benchmarks/data/peer-1e+07, plots in
/tmp/pnetviz-profile-evaluation). Rows: evaluate_splits (the splits and the subset comparison's
parts; the ROC kernel inside it shown apart), the calibration, the binned FIP error,
decisions.pair_decisions (working points and the cut scan), the subset comparison without its
evaluations, the report's class yields and binary.run's own time.
"""

from __future__ import annotations

import cProfile
import pstats
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT = ["--results-dir", str(REPO / "benchmarks" / "data" / "peer-1e+07"), "--plots-dir", "/tmp/pnetviz-profile-evaluation",
           "--channel", "Run3Mu", "--signal", "MHc130_MA90", "--background", "ttZ", "--fold", "0", "--replace"]  # fmt: skip


def rows(path: str) -> dict[str, float]:
    stats = pstats.Stats(path).stats

    def where(key) -> str:
        return f"{key[0].split('/pnetviz/')[-1]}:{key[2]}"

    def cum(name: str) -> float:
        return sum(v[3] for k, v in stats.items() if where(k) == name)

    roc = sum(ct for k, v in stats.items() if k[2] == "binary_clf_curve"
              for caller, (_, _, _, ct) in v[4].items() if caller[0].endswith("metrics/evaluate.py"))  # fmt: skip
    yields = sum(v[3] for k, v in stats.items() if k[0].endswith("jobs/binary.py") and k[2] == "<dictcomp>" and 150 < k[1] < 170)
    return {
        "evaluate_splits (splits and subset parts)": cum("jobs/binary.py:evaluate_splits"),
        "  of which the ROC kernel (binary_clf_curve)": roc,
        "calibration (reliability)": cum("metrics/calibration.py:reliability") + cum("metrics/calibration.py:reliability_from_sums"),
        "binned FIP error": cum("metrics/pairmetrics.py:binned_fip_error"),
        "decisions.pair_decisions": cum("jobs/decisions.py:pair_decisions"),
        "subsets.compare without its evaluations": cum("jobs/subsets.py:compare") - cum("jobs/binary.py:evaluate_test"),
        "report yields (split_report, build_report)": cum("jobs/binary.py:split_report") + yields,
        "binary.run's own time": sum(v[2] for k, v in stats.items() if where(k) == "jobs/binary.py:run"),
    }


def show(paths: list[str]) -> None:
    for path in paths:
        r = rows(path)
        whole = max(v[3] for v in pstats.Stats(path).stats.values())
        print(f"{path}: whole run {whole:.2f} s")
        for name, value in r.items():
            print(f"  {name:48s} {value:6.3f} s")
        print(f"  {'evaluation total':48s} {sum(v for k, v in r.items() if not k.startswith('  ')):6.3f} s")


def main() -> None:
    if sys.argv[1] == "--show":
        show(sys.argv[2:])
        return
    from pnetviz.cli.main import main as pnetviz  # noqa: PLC0415 - after the arguments are read

    out, options = sys.argv[1], sys.argv[2:] or DEFAULT
    sys.argv = ["pnetviz", "binary", *options]
    profile = cProfile.Profile(time.process_time)
    profile.enable()
    try:
        pnetviz()
    except SystemExit:
        pass
    profile.disable()
    profile.dump_stats(out)
    show([out])


if __name__ == "__main__":
    main()

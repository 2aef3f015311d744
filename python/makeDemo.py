#!/usr/bin/env python3
"""Write the shipped demo: toy prediction ntuples + training histories for every fold.

Layout and contents are described in python/pnetviz/demo.py and README.md.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pnetviz import cli  # noqa: E402
from pnetviz.demo import DemoConfig, write_fold  # noqa: E402
from pnetviz.errors import InputError  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Generate deterministic toy prediction ntuples (binary and multi-class models, "
        "one signal point, three backgrounds, all folds) in the pnetviz ntuple contract.",
    )
    parser.add_argument("--output", type=Path, default=REPO / "results", help="results directory (default: %(default)s)")
    parser.add_argument("--events", type=int, default=20000, help="events per fold in the multi-class ntuple (default: %(default)s)")
    parser.add_argument("--folds", type=int, default=5, help="number of cross-validation folds (default: %(default)s)")
    parser.add_argument("--signal", default="MHc160_MA85", help="signal point name (default: %(default)s)")
    parser.add_argument("--channel", default="Run1E2Mu", help="channel name (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=20251001, help="random seed (default: %(default)s)")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.events < 100 or args.folds < 1:
        raise InputError("--events must be at least 100 and --folds at least 1.")
    cfg = DemoConfig(signal=args.signal, channel=args.channel, folds=args.folds, events=args.events, seed=args.seed)
    try:
        for fold in range(cfg.folds):
            files = write_fold(cfg, args.output, fold)
            print(f"[makeDemo] fold {fold + 1}/{cfg.folds}: wrote {len(files)} ntuples", flush=True)
    except OSError as err:
        raise InputError(f"{args.output}: cannot write ({err.strerror}). Fix: choose another --output.") from None
    print(f"[makeDemo] demo results in {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(cli.run(main))

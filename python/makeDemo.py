#!/usr/bin/env python3
"""Write the shipped demo: a results tree laid out exactly as the analysis' ParticleNet trainer
writes it (several signal points on a mass grid, two channels, all folds, three binary models and
one grouped multi-class model per fold, every JSON file), with toy physics.

Layout and contents: python/pnetviz/trainerdemo.py and README.md.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pnetviz import cli  # noqa: E402
from pnetviz.errors import InputError  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SIGNALS = "MHc100_MA95,MHc130_MA90,MHc130_MA100,MHc160_MA85,MHc160_MA155"
CHANNELS = "Run1E2Mu,Run3Mu"


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Generate a deterministic toy results tree in the trainer's layout (see README.md): per channel, "
        "signal point and fold, binary models vs nonprompt, diboson and ttZ and a grouped multi-class model "
        "(nonprompt, diboson, ttX), each with trees/<model>.root (the ntuple contract), <model>_performance.json, "
        "<model>_model_info.json, CSV/ and models/.",
    )  # fmt: skip
    parser.add_argument("--output", type=Path, default=REPO / "results", help="results directory (default: %(default)s)")
    parser.add_argument("--events", type=int, default=3000, help="events per fold and signal point (default: %(default)s)")
    parser.add_argument("--folds", type=int, default=5, help="number of cross-validation folds (default: %(default)s)")
    parser.add_argument("--signals", default=SIGNALS, help="signal points, MHc<m(H+)>_MA<m(A)> (default: %(default)s)")
    parser.add_argument("--channels", default=CHANNELS, help="channels (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=20251001, help="random seed (default: %(default)s)")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.events < 100 or args.folds < 1:
        raise InputError("--events must be at least 100 and --folds at least 1.")
    signals = [s.strip() for s in args.signals.split(",") if s.strip()]
    channels = [c.strip() for c in args.channels.split(",") if c.strip()]
    if not signals or not channels:
        raise InputError("--signals and --channels need at least one name each.")
    from pnetviz.trainerdemo import write_trainer_fold  # noqa: PLC0415 - keeps --help free of ROOT start-up

    total = len(channels) * len(signals) * args.folds
    done = 0
    try:
        for channel in channels:
            for signal in signals:
                for fold in range(args.folds):
                    write_trainer_fold(args.output, channel, signal, fold, events=args.events, seed=args.seed)
                    done += 1
                print(f"[makeDemo] {done}/{total} folds written ({channel}, {signal})", flush=True)
    except OSError as err:
        raise InputError(f"{args.output}: cannot write ({err.strerror}). Fix: choose another --output.") from None
    print(f"[makeDemo] demo results tree in {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(cli.run(main))

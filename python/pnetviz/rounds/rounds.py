"""A campaign's round: where its summary goes and the check that one summary never mixes the
models of two results trees (output.rounds records and compares the rounds)."""

from __future__ import annotations

import os
from pathlib import Path

from pnetviz.errors import InputError


def summary_root(opts) -> Path:
    """Where the round's campaign summary, web report and round record go: --plots-dir, or
    <plots-dir>/<round>/ with --round (so that two rounds share one output tree)."""
    return opts.plots / opts.round if opts.round is not None else opts.plots


ROUND_FILE = ".pnetviz-round.json"  # in --plots-dir: which results directory its round comes from


def check_round(opts) -> None:
    """One round per campaign summary: models of two results trees (every trainer round is
    called results/) would otherwise mix in one summary without a word."""
    from pnetviz.io.readers import read_json  # noqa: PLC0415
    from pnetviz.output import rounds  # noqa: PLC0415

    root = summary_root(opts)
    try:
        recorded = read_json(root / ROUND_FILE, "round record").get("results")
    except (InputError, OSError, AttributeError):
        recorded = None
    mine = rounds.record(opts.results, opts.round, opts.plots)
    if recorded and Path(recorded) != opts.results:
        theirs = rounds.recorded(root / "campaign") or {"name": "?", "results": recorded}
        raise InputError(f"{root / 'campaign'}: holds the campaign summary of round {rounds.describe(theirs)}; this "
                         f"run is round {rounds.describe(mine)}, and rounds are never mixed in one summary. Fix: give "
                         "this round its own place with --round NAME, or another --plots-dir.")  # fmt: skip
    rounds.check_same(root / "campaign", {rounds.KEY: mine})


def claim_round(opts) -> None:
    """Register the campaign's round in the plots tree (output.rounds.claim), before its jobs
    run: each job then finds the same name."""
    from pnetviz.output import rounds  # noqa: PLC0415

    rounds.claim(opts.plots, rounds.record(opts.results, opts.round, opts.plots)["name"], opts.results)


def unclaim_new_tree(opts, existed: bool) -> None:
    """Undo claim_round when the run created the plots tree and fails before writing anything else
    into it (a scheduler that does not answer): no empty tree with only a registry left behind."""
    from pnetviz.output import rounds  # noqa: PLC0415

    root = Path(opts.plots)
    if existed or not root.is_dir() or any(p.name != rounds.REGISTRY for p in root.iterdir()):
        return
    (root / rounds.REGISTRY).unlink(missing_ok=True)
    root.rmdir()


def record_round(opts) -> None:
    import json  # noqa: PLC0415

    path = summary_root(opts) / ROUND_FILE
    if not path.is_file():
        tmp = path.with_name(f"{ROUND_FILE}.{os.getpid()}")
        tmp.write_text(json.dumps({"results": str(opts.results)}) + "\n")
        os.replace(tmp, path)

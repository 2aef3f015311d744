"""`run_campaign(...)`: `pnetviz campaign` from Python, optionally on a Dask client the caller has."""

from __future__ import annotations

import os
import warnings

from pnetviz.api.options import to_argv
from pnetviz.api.round import Round, open_round
from pnetviz.errors import InputError, PnetvizWarning

CLUSTER_OPTIONS = ("workers", "scheduler", "cluster", "jobs", "oversubscribe")


def run_campaign(results_dir: str | os.PathLike = "results", *, client: object = None, **options) -> Round:
    """Run `pnetviz campaign` over `results_dir` and open the finished round (open_round).

    Every option of `pnetviz campaign --help` is a keyword argument of the same name
    (`plots_dir`, `kinds="binary,multiclass"`, `images="none"`, `bootstrap`, `workers`, ...;
    `quiet` defaults to True here). `client`: an existing `dask.distributed.Client` (SWAN's Dask
    cluster, a LocalCluster, a dask-jobqueue cluster) to run the jobs on; it is used as it is and
    left open. Failed jobs are listed in the round's summary (a PnetvizWarning says how many);
    a user mistake raises InputError before any job runs."""
    from pnetviz.cli import campaign  # noqa: PLC0415

    given = [name for name in CLUSTER_OPTIONS if options.get(name) not in (None, False)]
    if client is not None and given:
        raise InputError(f"run_campaign: {given[0]}= with client=: the client's cluster runs the jobs. Fix: give one of them.")
    options.setdefault("quiet", True)
    argv = to_argv(campaign.parser("pnetviz campaign"), {"results_dir": results_dir, **options})
    code = campaign.main(argv, prog="pnetviz campaign", client=client)
    if code:
        warnings.warn("some campaign jobs failed; the round's summary lists them (Round.summary['jobs'])",
                      PnetvizWarning, stacklevel=2)  # fmt: skip
    return open_round(options.get("plots_dir") or "plots")

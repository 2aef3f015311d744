"""The request of a campaign (`pnetviz campaign`, `pnetviz.run_campaign`): which models, where the
round goes, how its jobs run, and the evaluation options it passes on to every job (the same
fields as an evaluation's, requests.evaluation.EvaluationOptions). Frozen and typed as the
evaluation requests are; each field named as its option's dest. Every job of the round is one
evaluation command whose argv the campaign makes from this request (cli.common.passthrough): the
worker turns that argv back into the job's own request, so a job is a pure function of (inputs,
options) and travels to a worker as plain text (campaign.plan.Job pickles as it did).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pnetviz.io.folders import DEFAULT_PREFIX
from pnetviz.requests import fields
from pnetviz.requests.evaluation import EvaluationOptions


@dataclass(frozen=True)
class CampaignRequest(EvaluationOptions):
    """`pnetviz campaign` after its checks (cli.campaign.parse_args): `workers` is the number the
    local cluster starts (the machine's cores when not given), `plots_dir` holds a legacy --output."""

    # inputs: which models
    results_dir: Path = Path("results")
    signal_prefix: str = DEFAULT_PREFIX
    channels: str | None = None
    signals: str | None = None
    folds: str | None = None
    kinds: str = "binary,multiclass,comparison,ga"
    model: str | None = None
    pilot: bool = False
    # the evaluation options only some job kinds have
    classes: str | None = None
    pair: str | None = None
    fit_score: Literal["lr", "signal"] = "lr"
    score: Literal["lr", "weighted-lr"] = "lr"
    compare_subset: str | None = None
    # outputs
    plots_dir: Path | None = None
    round: str | None = None
    replace: bool = False
    images: Literal["site", "all", "summary", "none"] = "site"
    jsroot: Path | None = None
    legacy_output: str | None = None  # visualizeCampaign.py's --output, already moved into plots_dir
    # execution
    workers: int | None = None
    oversubscribe: bool = False
    job_timeout: float = 1800.0
    cluster: Literal["local", "slurm", "htcondor"] = "local"
    jobs: int | None = None
    job_memory: str | None = None
    job_walltime: str | None = None
    job_queue: str | None = None
    start_timeout: float = 600.0
    scheduler: str | None = None
    tls_ca_file: str | None = None
    tls_cert: str | None = None
    tls_key: str | None = None
    force: bool = False
    dry_run: bool = False
    quiet: bool = False


def from_namespace(namespace: object) -> CampaignRequest:
    """The campaign's request from its parsed and checked command line."""
    return fields.from_namespace(CampaignRequest, namespace)

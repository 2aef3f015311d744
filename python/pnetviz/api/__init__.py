"""pnetviz's Python API, for notebooks (Jupyter, SWAN) and scripts: the command line's
evaluations with their numbers as plain data and figures that display inline.

    import pnetviz
    result = pnetviz.evaluate_binary("trees/model.root", output="plots/mymodel", working_points=[0.5, 0.8])
    round = pnetviz.open_round("plots")              # a finished campaign: tables, models, figures
    pnetviz.overlay(round.models[:3], kind="rejection")
    pnetviz.run_campaign("results", client=client)   # on an existing Dask client
"""

from pnetviz.api.campaign import run_campaign
from pnetviz.api.evaluate import EvaluationResult, FoldResult, evaluate_binary, evaluate_multiclass
from pnetviz.api.figure import Figure
from pnetviz.api.overlay import overlay
from pnetviz.api.round import Fold, Model, Round, open_round
from pnetviz.api.series import Series

__all__ = ["EvaluationResult", "Figure", "Fold", "FoldResult", "Model", "Round", "Series", "evaluate_binary",
           "evaluate_multiclass", "open_round", "overlay", "run_campaign"]

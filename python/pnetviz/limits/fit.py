"""The Asimov fits of a HistFactory workspace (RooFit's binned likelihood, Minuit2), as the
test statistics limits/asymptotic.py turns into the expected results.

One workspace serves both results: two Asimov datasets (mu = 1 and mu = 0, nuisance
parameters and global observables at their nominal values, ROOT's
AsymptoticCalculator::GenerateAsimovData), one NLL on each. The unconditional fit of Asimov
data is its generating point, so each test statistic needs only its conditional fits: one for
the significance (mu = 0), a few for the limit (one per mu the root finding tries). Without a
floating nuisance parameter a conditional "fit" is one evaluation (Minuit refuses a function of
zero parameters).
"""

from __future__ import annotations

import numpy as np

from pnetviz.limits.asymptotic import FitFailed
from pnetviz.limits.histfactory import model_config, quiet_messages
from pnetviz.rootenv import root


ROOT_PRINT_LEVEL = 1  # AsymptoticCalculator's print level as ROOT starts (it has no getter)


class AsimovFits:
    """The conditional fits on the Asimov data of one workspace (its ModelConfig)."""

    def __init__(self, ws):
        ROOT = root()
        self.ROOT = ROOT
        self.ws = ws  # the pdf and its parameters live in the workspace: keep it alive
        mc = model_config(ws)
        self.pdf = mc.GetPdf()
        self.poi = mc.GetParametersOfInterest().first()
        self.observables = mc.GetObservables()
        self.nuisances = mc.GetNuisanceParameters() or ROOT.RooArgSet()
        self.globs = mc.GetGlobalObservables() or ROOT.RooArgSet()
        self.params = self.pdf.getParameters(self.observables)
        for param in self.params:  # only the nuisance parameters float (an HS3 import leaves global observables free)
            if param.InheritsFrom("RooRealVar") and not self.nuisances.find(param.GetName()) and param.GetName() != self.poi.GetName():
                param.setConstant(True)
        self.nominal = self.params.snapshot()
        self.floating = [p.GetName() for p in self.nuisances if not p.isConstant()]
        self._nll = {}
        self.fits = 0

    def nuisance_names(self) -> tuple[str, ...]:
        return tuple(self.floating)

    def _reset(self, mu: float) -> None:
        self.params.assign(self.nominal)
        if mu > self.poi.getMax():
            self.poi.setMax(2 * mu)
        self.poi.setVal(mu)

    def _nll_of(self, mu_asimov: float):
        """The NLL on the Asimov data generated at mu_asimov (made once)."""
        if mu_asimov not in self._nll:
            ROOT = self.ROOT
            self._reset(mu_asimov)
            calculator = ROOT.RooStats.AsymptoticCalculator
            calculator.SetPrintLevel(0)  # it prints each channel's dataset otherwise
            try:
                data = calculator.GenerateAsimovData(self.pdf, self.observables)
            finally:
                calculator.SetPrintLevel(ROOT_PRINT_LEVEL)
            ROOT.SetOwnership(data, True)
            nll = self.pdf.createNLL(data, ROOT.RooFit.Constrain(self.nuisances),
                                     ROOT.RooFit.GlobalObservables(self.globs), ROOT.RooFit.EvalBackend("cpu"))
            ROOT.SetOwnership(nll, True)
            self._reset(mu_asimov)
            self._nll[mu_asimov] = (data, nll, float(nll.getVal()))
        return self._nll[mu_asimov]

    def _conditional(self, mu_asimov: float, mu: float) -> float:
        """2 (NLL(mu, theta_hat_mu) - NLL at the generating point) on the Asimov data of mu_asimov."""
        ROOT = self.ROOT
        _, nll, reference = self._nll_of(mu_asimov)
        self._reset(mu)
        self.poi.setConstant(True)
        try:
            if self.floating:
                status = -1
                for strategy in (0, 1):
                    minimizer = ROOT.RooMinimizer(nll)
                    minimizer.setPrintLevel(-1)
                    minimizer.setStrategy(strategy)
                    minimizer.setEps(0.01)  # Migrad's EDM goal 2e-5: q known to ~1e-4
                    status = minimizer.minimize("Minuit2", "Migrad")
                    self.fits += 1
                    if status == 0:
                        break
                    self._reset(mu)
                if status != 0:
                    raise FitFailed(f"Minuit2 did not converge at mu = {mu:.4g} on the Asimov data of mu = "
                                    f"{mu_asimov:g} (status {status})")
            value = float(nll.getVal())
        finally:
            self.poi.setConstant(False)
        q = 2 * (value - reference)
        if not np.isfinite(q):
            raise FitFailed(f"the likelihood is not finite at mu = {mu:.4g} (a bin without background?)")
        return max(q, 0.0)

    def significance(self) -> float:
        """Z = sqrt(q0) on the Asimov data of mu = 1."""
        with quiet_messages():
            return float(np.sqrt(self._conditional(1.0, 0.0)))

    def sqrt_qa(self, mu: float) -> float:
        """sqrt(q_mu,A) on the background-only Asimov data."""
        with quiet_messages():
            return float(np.sqrt(self._conditional(0.0, mu)))

"""The fast tier's budget report (a pytest plugin; tests/conftest.py loads it).

`./run.sh test -m "not slow"` is the fast tier: every test that needs more than a few seconds
(a campaign, a ROOT subprocess, a browser) carries `@pytest.mark.slow` (registered in pytest.ini).
At the session's end this plugin lists the tests *not* marked slow whose setup, call and teardown
together took longer than the ini option `fast_budget` (seconds, default 5): each is a test to mark
slow or to make faster. The list is a report, not a failure (the times depend on the machine's load).
"""

from __future__ import annotations

import pytest

BUDGET_INI = "fast_budget"
DEFAULT_BUDGET_S = 5.0
PLUGIN_NAME = "tier-budget-report"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini(BUDGET_INI, f"seconds a test not marked slow may take (default {DEFAULT_BUDGET_S:g})",
                  default=str(DEFAULT_BUDGET_S))  # fmt: skip


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(BudgetReport(float(config.getini(BUDGET_INI))), PLUGIN_NAME)


class BudgetReport:
    """The session's test times (setup + call + teardown; a module fixture's setup counts for the
    first test that uses it) and, at its end, the tests not marked slow over the budget."""

    def __init__(self, budget: float) -> None:
        self.budget = budget
        self.times: dict[str, list] = {}  # nodeid -> [seconds, marked slow]

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        entry = self.times.setdefault(report.nodeid, [0.0, "slow" in report.keywords])
        entry[0] += report.duration

    def over_budget(self) -> list[tuple[str, float]]:
        """(nodeid, seconds) of the tests not marked slow that took longer than the budget, longest first."""
        late = [(nodeid, seconds) for nodeid, (seconds, slow) in self.times.items() if not slow and seconds > self.budget]
        return sorted(late, key=lambda item: -item[1])

    def pytest_terminal_summary(self, terminalreporter) -> None:
        late = self.over_budget()
        if not late:
            return
        terminalreporter.section(f"tier budget: {len(late)} tests not marked slow took over {self.budget:g} s")
        for nodeid, seconds in late:
            terminalreporter.write_line(f"{seconds:8.2f}s {nodeid}  (mark it @pytest.mark.slow or make it faster)")

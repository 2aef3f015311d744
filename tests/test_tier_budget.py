"""The fast tier (`./run.sh test -m "not slow"`): the `slow` marker is registered (and unknown markers
refused), and the budget report lists, at a session's end, exactly the tests not marked slow that
took longer than the budget (tests/tier_budget.py). The inner sessions fake their tests' durations
(no sleeping, no real timing)."""

from __future__ import annotations

import configparser
from pathlib import Path

import pytest

import tier_budget

# An inner session's conftest: a test marked takes(seconds) reports that duration for its call and
# none for its setup and teardown (a loaded machine's real milliseconds would show in the sum).
FAKE_CLOCK = """
import pytest

@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    mark = item.get_closest_marker("takes")
    if mark is not None:
        outcome.get_result().duration = mark.args[0] if call.when == "call" else 0.0
"""

INI = """[pytest]
markers =
    slow: slow
    takes(seconds): the faked duration of the test's call
{extra}
"""

TESTS = """
import pytest

def test_quick():
    pass

@pytest.mark.takes(7.5)
def test_late_and_unmarked():
    pass

@pytest.mark.slow
@pytest.mark.takes(60)
def test_late_and_marked_slow():
    pass

@pytest.mark.takes(4.0)
def test_within_the_budget():
    pass
"""


def test_the_slow_marker_is_registered_and_markers_are_strict(pytestconfig):
    markers = {line.split(":")[0].split("(")[0].strip() for line in pytestconfig.getini("markers")}
    assert "slow" in markers
    assert "--strict-markers" in pytestconfig.getini("addopts")
    ini = configparser.ConfigParser()
    ini.read(pytestconfig.rootpath / "pytest.ini")
    assert float(ini["pytest"][tier_budget.BUDGET_INI]) == tier_budget.DEFAULT_BUDGET_S == 5.0  # -o may change it
    assert pytestconfig.pluginmanager.get_plugin(tier_budget.PLUGIN_NAME) is not None


def _session(pytester: pytest.Pytester, *args: str, extra: str = "") -> pytest.RunResult:
    pytester.makeini(INI.format(extra=extra))
    pytester.makeconftest(FAKE_CLOCK)
    pytester.makepyfile(test_fake=TESTS)
    return pytester.runpytest_inprocess("-p", "tier_budget", *args)


def test_the_report_lists_the_unmarked_tests_over_the_budget(pytester):
    result = _session(pytester)
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["*tier budget: 1 tests not marked slow took over 5 s*",
                                 "*7.50s test_fake.py::test_late_and_unmarked*"])  # fmt: skip
    out = result.stdout.str()
    assert "test_late_and_marked_slow" not in out and "test_within_the_budget" not in out and "test_quick" not in out


def test_the_budget_is_the_ini_option_and_the_fast_tier_deselects_slow_tests(pytester):
    result = _session(pytester, "-m", "not slow", extra="fast_budget = 3")
    result.assert_outcomes(passed=3, deselected=1)
    result.stdout.fnmatch_lines(["*tier budget: 2 tests not marked slow took over 3 s*",
                                 "*7.50s test_fake.py::test_late_and_unmarked*",
                                 "*4.00s test_fake.py::test_within_the_budget*"])  # fmt: skip


def test_no_report_when_every_unmarked_test_is_within_the_budget(pytester):
    result = _session(pytester, "-k", "not unmarked")
    result.assert_outcomes(passed=3)
    assert "tier budget" not in result.stdout.str()


def test_an_unregistered_marker_is_an_error(pytester):
    pytester.makeini("[pytest]\naddopts = --strict-markers\n")
    pytester.makepyfile(test_typo="import pytest\n\n@pytest.mark.slwo\ndef test_x():\n    pass\n")
    result = pytester.runpytest_inprocess("-p", "tier_budget")
    assert result.ret == pytest.ExitCode.INTERRUPTED and "slwo" in result.stdout.str()


def test_every_reader_of_the_session_demo_round_is_marked_slow_and_slow_files_come_first(request):
    """tests/conftest.py marks them at collection (the round is a demo and its whole campaign), then
    puts the files with a slow test first, each file's tests in their order."""
    import conftest

    class Item:
        def __init__(self, name, path, fixturenames, marks=()):
            self.name, self.path, self.fixturenames, self.marks = name, Path(path), fixturenames, list(marks)

        def add_marker(self, mark):
            self.marks.append(mark.name)

        def get_closest_marker(self, name):
            return name if name in self.marks else None

    items = [Item("a1", "a.py", ["tmp_path"]), Item("a2", "a.py", ["tmp_path"]), Item("b1", "b.py", []),
             Item("b2", "b.py", ["tmp_path", "demo_round"]), Item("c1", "c.py", ["demo_round"]), Item("d1", "d.py", []),
             Item("e1", "e.py", [], ["slow"])]  # fmt: skip
    conftest.pytest_collection_modifyitems(request.config, items)
    assert [(item.name, item.marks) for item in items] == [("b1", []), ("b2", ["slow"]), ("c1", ["slow"]), ("e1", ["slow"]),
                                                           ("a1", []), ("a2", []), ("d1", [])]  # fmt: skip
    readers = [item for item in request.session.items if "demo_round" in getattr(item, "fixturenames", ())]
    assert all(item.get_closest_marker("slow") for item in readers)  # this session's, if any


@pytest.mark.slow  # three pytest processes
def test_the_report_holds_under_two_xdist_workers(pytester):
    """`./run.sh test` runs two pytest-xdist workers: their reports reach the controlling process,
    which lists the same late unmarked test (in a subprocess: the workers import tier_budget from
    the inner session's directory, a copy of tests/tier_budget.py)."""
    pytester.makepyfile(tier_budget=Path(tier_budget.__file__).read_text())
    pytester.makeini(INI.format(extra=""))
    pytester.makeconftest(FAKE_CLOCK)
    pytester.makepyfile(test_fake=TESTS, test_other="def test_elsewhere():\n    pass\n")
    result = pytester.runpytest_subprocess("-p", "tier_budget", "-n", "2", "--dist", "loadfile")
    result.assert_outcomes(passed=5)
    result.stdout.fnmatch_lines(["*2 workers*", "*tier budget: 1 tests not marked slow took over 5 s*",
                                 "*7.50s test_fake.py::test_late_and_unmarked*"])  # fmt: skip
    assert "test_late_and_marked_slow" not in result.stdout.str().split("tier budget")[1]

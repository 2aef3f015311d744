"""The front page and the user guide (issue 40 item 1): README.md fits a screen; every command in a
shell block of README.md and docs/*.md parses, every repository path they name exists, every
relative link between them (and its #anchor) resolves; the set-up advice is right with and
without PNETVIZ_VENV; the profiled-ROC text says what is drawn."""

from __future__ import annotations

import importlib.util
import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import REPO
from pnetviz.cli.commands import COMMANDS, parser_of

PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
SHELL = {"", "bash", "sh", "shell", "console"}
FENCE = re.compile(r"^```([\w-]*)\n(.*?)^```", flags=re.S | re.M)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
REPO_PATH = re.compile(r"`((?:python|macros|tests|benchmarks|examples|docs|\.ci)/[\w./-]*)`")
PACKAGE_PATH = re.compile(r"`((?:io|metrics|draw|output|jobs|demo|campaign|summary|web|rounds|cli|api)/\w+\.py)`")
TOP_FILE = re.compile(r"`([\w-]+\.(?:sh|toml|txt|ini))`")
WRITTEN = {"summary_report.txt", "classification_report.txt", "ga_summary.txt"}  # files pnetviz writes, not repo files


def _rel(page: Path) -> str:
    return str(page.relative_to(REPO))


def shell_commands(page: Path) -> list[list[str]]:
    """Every command line of the page's shell blocks, split as the shell does, without a leading
    `$ ` prompt, trailing comment or VAR=value environment prefix."""
    commands = []
    for lang, block in FENCE.findall(page.read_text()):
        if lang not in SHELL:
            continue
        for line in block.replace("\\\n", " ").splitlines():
            line = re.sub(r"^(?:[A-Z_]+=\S+\s+)+", "", line.split(" #")[0].strip().removeprefix("$ "))
            first = line.split(" ", 1)[0]
            if first in ("pnetviz", "./run.sh", "python", "python3", "source") or first.endswith(("/bin/pnetviz", "/bin/python")):
                commands.append(shlex.split(line))
    return commands


def registered_markers() -> set[str]:
    """The markers pytest.ini registers (`name: description` or `name(args): description` lines)."""
    text = (REPO / "pytest.ini").read_text()
    block = re.search(r"^markers =\n((?:[ \t]+.*\n)+)", text, flags=re.M)
    return set(re.findall(r"^\s+(\w+)", block.group(1), flags=re.M)) if block else set()


def check_command(argv: list[str]) -> bool:
    """Parse one documented command line the way its program would; False if it is not one of
    pnetviz's, run.sh's or a Python's (pip, cmake, ssh ... are not checked). A bad line fails."""
    if argv[0] in ("python", "python3") and argv[1:3] == ["-m", "pnetviz"]:
        argv = ["pnetviz", *argv[3:]]
    if argv[0] == "pnetviz" or argv[0].endswith("/bin/pnetviz"):
        assert argv[1] in COMMANDS, argv
        parser_of(argv[1]).parse_args(argv[2:])  # SystemExit (a usage error) fails the test
        return True
    if argv[0] == "./run.sh":
        assert argv[1] in ("demo", "test"), argv
        if argv[1] == "demo":
            assert argv[2:] == [] or (argv[2] == "--events" and len(argv) == 4 and argv[3].isdigit()), argv
        if "-m" in argv:  # a marker expression (the fast tier): its markers are registered in pytest.ini
            words = set(re.findall(r"\w+", argv[argv.index("-m") + 1])) - {"and", "or", "not"}
            assert words and words <= registered_markers(), argv
        return True
    if argv[0] in ("python", "python3") or argv[0].endswith("/bin/python"):
        if argv[1] == "-m":
            assert importlib.util.find_spec(argv[2]) is not None, argv
        else:
            assert (REPO / argv[1]).is_file(), argv
        return True
    return False


def test_front_page_fits_a_screen():
    lines = (REPO / "README.md").read_text().splitlines()
    assert len(lines) <= 200
    for heading in ("## Set-up: two commands", "## After the demo", "## The five commands", "## Where to read more"):
        assert heading in lines, heading
    assert re.search(r"!\[[^\]]+\]\(docs/img/[\w-]+\.png\)", "\n".join(lines))  # the one figure


@pytest.mark.parametrize("page", PAGES, ids=_rel)
def test_every_command_parses(page):
    commands = shell_commands(page)
    assert sum(map(check_command, commands)) >= 0
    for argv in commands:
        assert not re.search(r"<[a-z][\w .-]*>", " ".join(argv)), f"{_rel(page)}: a placeholder in {argv}"


def test_the_guide_runs_every_subcommand_on_the_demo():
    checked = [argv for page in PAGES for argv in shell_commands(page) if check_command(argv)]
    assert len(checked) >= 20
    used = {argv[1] for argv in checked if argv[0] == "pnetviz"}
    assert used >= {"binary", "multiclass", "compare", "campaign", "ga", "demo"}
    front = [argv for argv in shell_commands(REPO / "README.md") if check_command(argv)]
    assert ["./run.sh", "demo"] in front and ["./run.sh", "test"] in front
    assert ["./run.sh", "test", "-m", "not slow"] in front  # the fast tier (tests/tier_budget.py)
    assert ["python3", "-m", "http.server", "-d", "plots", "8000"] in front


@pytest.mark.parametrize("page", PAGES, ids=_rel)
def test_every_repo_path_exists(page):
    text = page.read_text()
    missing = [p for p in REPO_PATH.findall(text) if not (REPO / p).exists()]
    missing += [p for p in PACKAGE_PATH.findall(text) if not (REPO / "python" / "pnetviz" / p).exists()]
    missing += [p for p in TOP_FILE.findall(text) if p not in WRITTEN and not (REPO / p).exists()]
    assert not missing, f"{_rel(page)} names paths that do not exist: {missing}"
    assert ".venv/bin/python python/" not in text  # examples use the pnetviz command


def slugs(page: Path) -> Iterator[str]:
    """The #anchors of a Markdown page's headings, as GitHub makes them (duplicates get -1, -2 ...)."""
    seen: dict[str, int] = {}
    text = FENCE.sub("", page.read_text())
    for heading in re.findall(r"^#{1,6} (.+)$", text, flags=re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        seen[slug] = seen.get(slug, -1) + 1
        yield slug if seen[slug] == 0 else f"{slug}-{seen[slug]}"


@pytest.mark.parametrize("page", PAGES, ids=_rel)
def test_every_relative_link_resolves(page):
    bad = []
    for target in LINK.findall(FENCE.sub("", page.read_text())):
        if re.match(r"[a-z]+:", target):
            continue  # https:, mailto:
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        if not resolved.exists():
            bad.append(f"{target} (no such file)")
        elif anchor and anchor not in set(slugs(resolved)):
            bad.append(f"{target} (no heading #{anchor} in {resolved.name})")
    assert not bad, f"{_rel(page)}: {bad}"


def test_every_guide_page_is_in_the_index_and_the_index_on_the_front_page():
    index = LINK.findall((REPO / "docs" / "README.md").read_text())
    pages = {p.name for p in (REPO / "docs").glob("*.md")} - {"README.md"}
    assert pages <= set(index), sorted(pages - set(index))
    front = set(LINK.findall((REPO / "README.md").read_text()))
    assert "docs/README.md" in front and {f"docs/{p}" for p in pages} <= front | {"docs/README.md"}


def test_the_virtual_environment_advice_holds_with_and_without_pnetviz_venv():
    """run.sh makes ${PNETVIZ_VENV:-.venv}; every documented `source .../bin/activate` of it says
    the same, and PNETVIZ_VENV is documented on the front page and in the install page."""
    assert 'VENV="${PNETVIZ_VENV:-.venv}"' in (REPO / "run.sh").read_text()
    for page in (REPO / "README.md", REPO / "docs" / "install.md"):
        assert "PNETVIZ_VENV" in page.read_text(), page
    for page in PAGES:
        for argv in shell_commands(page):
            if argv[0] == "source" and argv[1].endswith("/bin/activate") and "venv" in argv[1]:
                assert argv[1] == "${PNETVIZ_VENV:-.venv}/bin/activate" or argv[1].startswith(("~", "/")), (page, argv)
        text = page.read_text()
        assert "source .venv/bin/activate" not in text, page


def test_no_unmeasured_demo_duration():
    """The front page and the guide state no demo run time in minutes (it depends on the machine;
    the measurements are in benchmarks/README.md)."""
    for page in PAGES:
        text = " ".join(page.read_text().split())
        assert not re.search(r"\b(?:about|takes|in) (?:~)?[\d.]+ ?(?:min|minutes)\b", text), page


def test_profiled_roc_text_says_what_is_drawn():
    """The profiled figures draw nominal, profiled and the nuisance envelope; the variations are
    only stored (jobs/systematics.py). The guide says so and nowhere that they are drawn."""
    page = (REPO / "docs" / "profiled-roc.md").read_text()
    code = (REPO / "python" / "pnetviz" / "jobs" / "systematics.py").read_text()
    assert '"Nuisance envelope"' in code and "Nuisance envelope" in page
    assert "not drawn" in page and "stored in `plots.root`" in page
    for text in (page, (REPO / "docs" / "figures.md").read_text(), (REPO / "README.md").read_text()):
        assert "up dashed" not in " ".join(text.split())


def test_help_and_messages_send_the_reader_to_pages_that_exist():
    """Every docs/<page>.md a --help text or an error message names exists, and none sends the
    reader to README.md for details (the front page keeps only the first hour)."""
    named = set()
    for source in (REPO / "python" / "pnetviz").rglob("*.py"):
        text = source.read_text()
        named |= set(re.findall(r"docs/[\w-]+\.md", text))
        assert not re.search(r"(?:in|see|details in|\() ?(?:the )?README(?:\.md)?\b(?! object)", text.replace("benchmarks/README", "")), source
    assert {"docs/inputs.md", "docs/output-tree.md", "docs/campaigns.md", "docs/README.md"} <= named
    missing = sorted(n for n in named if not (REPO / n).is_file())
    assert not missing, missing
    for command in COMMANDS:
        text = " ".join(parser_of(command).format_help().split())
        assert "README" not in text, command


def test_plots_readme_states_the_layout_the_commands_write():
    """plots/README.md (what a user finds in the default output directory) gives the evaluation
    layout of --help (under the results directory's name, not plots/<channel>/) and the page
    that has the details."""
    from pnetviz.cli.common import EVALUATION_LAYOUT

    text = (REPO / "plots" / "README.md").read_text()
    pages = re.findall(r"docs/[\w-]+\.md", text)
    assert pages and all((REPO / p).is_file() for p in pages)
    assert "`<results dir name>/<channel>/" in text and "`<channel>/" not in text
    assert EVALUATION_LAYOUT.startswith("<plots-dir>/<results dir name>/<channel>/")
    assert "README.md" not in text.replace("docs/", "")

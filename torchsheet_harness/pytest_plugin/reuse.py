"""``--torchsheet-reuse``: a page or sheet-side test file whose recorded pass still holds (its
``reuse`` digest, :mod:`..reuse_key`, is what it is now) is left out of the collection. Decided
once, at configure time, by every xdist process from the same file; refused on CI. The rules:
MAINTAINING.md, "Reusing recorded passes"."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .. import environment, results, reuse_key
from ..locations import page_files
from ..pages.page import read_page
from .recorder import SHEET_TESTS, recorded_path

OPTION = "--torchsheet-reuse"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("torchsheet").addoption(
        OPTION,
        action="store_true",
        default=False,
        help="do not run a page (or sheet-side test file) whose recorded pass was made with the "
        "same sources, included files, harness code and environment (refused on CI)",
    )


def pytest_configure(config: pytest.Config) -> None:
    if not config.getoption("torchsheet_reuse", False):
        return
    if os.environ.get("CI", "").lower() in ("true", "1"):
        raise pytest.UsageError(
            f"{OPTION} is refused on CI (CI={os.environ['CI']}): CI runs every page"
        )
    config.pluginmanager.register(Reuse(config), "torchsheet-reuse")


class Reuse:
    """Which files this run leaves out (decided once, at configure time), and why."""

    def __init__(self, config: pytest.Config) -> None:
        self.reused: dict[Path, str] = {}  # file → the date of its record
        self.lines: list[str] = []
        found = environment.current()
        path = recorded_path(config, found)
        data = results.read_results(path)
        if data is None or data["environment"].get("key") != found["key"]:
            where = path if path is not None else "none (empty --torchsheet-results)"
            self.lines.append(f"torchsheet: nothing to reuse: no results file at {where}")
            return
        root = config.rootpath
        harness, env = reuse_key.harness_digest(root), environment.fingerprint(found)
        base = config.invocation_params.dir
        named = {(base / arg.split("::")[0]).resolve() for arg in config.args}
        records = {f"docs/{page}": entry for page, entry in data["pages"].items()}
        records.update(data.get("test_files", {}))
        for source in [*page_files(root / "docs"), *sorted((root / SHEET_TESTS).glob("test_*.py"))]:
            shown = source.relative_to(root).as_posix()
            if (entry := records.get(shown)) is None or not self.selected(source, named):
                continue
            if source.suffix == ".md":
                key = reuse_key.page_key(read_page(source), root, harness, env)
            else:
                key = reuse_key.test_file_key(source, root, harness, env)
            self.decide(source, shown, entry, key)

    @staticmethod
    def selected(source: Path, named: set[Path]) -> bool:
        """Collected by this run, and not named on its command line (those always run)."""
        return source.resolve() not in named and bool(named & {*source.resolve().parents})

    def decide(self, source: Path, shown: str, entry: dict, key: str) -> None:
        if entry.get("reuse") == key:
            self.reused[source.resolve()] = entry.get("finished", "?")
            self.lines.append(f"torchsheet: reused {shown}: its pass of {entry.get('finished')}")
            return
        if "reuse" not in entry:
            why = "its record is not a whole pass (a failure, or a run of part of it)"
        elif shown.startswith(SHEET_TESTS):
            why = "its source, tests/support, an input it declares, the harness or the environment"
            why += " changed"
        elif entry.get("sha256") != read_page(source).digest:
            why = "the page changed"
        else:
            why = "an included file, the harness or the environment changed"
        self.lines.append(f"torchsheet: not reused {shown}: {why}")

    def pytest_ignore_collect(self, collection_path: Path) -> bool | None:
        return True if collection_path.resolve() in self.reused else None

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if session.exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED and self.reused:
            session.exitstatus = pytest.ExitCode.OK  # everything was reused: nothing to run

    def pytest_terminal_summary(self, terminalreporter) -> None:
        terminalreporter.write_sep("-", f"torchsheet {OPTION}: {len(self.reused)} files reused")
        for line in self.lines:
            terminalreporter.write_line(line)

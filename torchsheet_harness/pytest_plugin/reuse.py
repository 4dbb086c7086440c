"""``--torchsheet-reuse``: a page whose recorded pass still holds is not run again.

Like d2lbook's, jupyter-cache's and sphinx-gallery's caches: a page is reused, that is left out
of the collection, when its entry in this run's results file (the one the run would write,
:func:`.recorder.recorded_path`) is a whole-page pass recorded with the same page source, the
same included files, the same harness code and the same environment (:mod:`..reuse_key`). Its
entry stays in the file as it was, so the site keeps showing the page verified from that
record. Every other selected page runs, with the reason printed when it had a record ("not
reused"). A page named on the command line (``pytest docs/x.md``) always runs. A sheet-side
test file is reused the same way, from its record (:mod:`.file_reads`).

Each page reused is printed with the date of its record. Under pytest-xdist every process
decides from the same file, read before anything runs. CI never reuses: the option is refused
when ``CI=true`` (a CI run verifies every page).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .. import environment, results, reuse_key
from ..locations import page_files
from .recorder import recorded_path

OPTION = "--torchsheet-reuse"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("torchsheet").addoption(
        OPTION,
        action="store_true",
        default=False,
        help="do not run a page whose recorded pass was made with the same page source, "
        "included files, harness code and environment (refused on CI)",
    )


def pytest_configure(config: pytest.Config) -> None:
    if not config.getoption("torchsheet_reuse", False):
        return
    if os.environ.get("CI", "").lower() in ("true", "1"):
        raise pytest.UsageError(
            f"{OPTION} is refused on CI (CI={os.environ['CI']}): CI runs every page"
        )
    config.pluginmanager.register(PageReuse(config), "torchsheet-page-reuse")


class PageReuse:
    """Which pages this run reuses (decided once, at configure time), and the printed lines."""

    def __init__(self, config: pytest.Config) -> None:
        self.reused: dict[Path, str] = {}  # page → the date of its record
        self.lines: list[str] = []
        self.reused_files = 0
        found = environment.current()
        path = recorded_path(config, found)
        data = results.read_results(path)
        if data is None or data["environment"].get("key") != found["key"]:
            where = path if path is not None else "none (empty --torchsheet-results)"
            self.lines.append(f"torchsheet: nothing to reuse: no results file at {where}")
            return
        inputs = (reuse_key.harness_digest(config.rootpath), environment.fingerprint(found))
        docs = config.rootpath / "docs"
        base = config.invocation_params.dir
        named = {(base / arg.split("::")[0]).resolve() for arg in config.args}
        for page in page_files(docs):
            if page.resolve() in named or not named & {*page.resolve().parents}:
                continue  # pytest collects a file named on its command line; or not selected
            name = page.relative_to(docs).as_posix()
            entry = data["pages"].get(name)
            now = reuse_key.reuse_inputs(page, config.rootpath, *inputs)
            why = reuse_key.why_rerun(entry, page, now)
            shown = f"docs/{name}"
            if why is None and entry is not None:
                self.reused[page.resolve()] = entry.get("finished", "?")
                self.lines.append(
                    f"torchsheet: reused {shown}: its pass of {entry.get('finished')}"
                )
            elif entry is not None:
                self.lines.append(f"torchsheet: not reused {shown}: {why}")
        self.reused_files = 0
        recorded_files = data.get("test_files", {})
        sheet_files = sorted((config.rootpath / "tests" / "sheet").glob("test_*.py"))
        for name in (path.relative_to(config.rootpath).as_posix() for path in sheet_files):
            path = (config.rootpath / name).resolve()
            if path in named or not named & {*path.parents} or name not in recorded_files:
                continue
            entry = recorded_files[name]
            why = reuse_key.why_rerun_test_file(entry, name, config.rootpath, *inputs)
            if why is None:
                self.reused[path] = entry.get("finished", "?")
                self.reused_files += 1
                self.lines.append(f"torchsheet: reused {name}: its pass of {entry.get('finished')}")
            else:
                self.lines.append(f"torchsheet: not reused {name}: {why}")

    def pytest_ignore_collect(self, collection_path: Path) -> bool | None:
        return True if collection_path.resolve() in self.reused else None

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if session.exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED and self.reused:
            session.exitstatus = pytest.ExitCode.OK  # every page was reused: nothing to run

    def pytest_terminal_summary(self, terminalreporter) -> None:
        pages = len(self.reused) - self.reused_files
        reused = f"{pages} pages and {self.reused_files} test files reused"
        terminalreporter.write_sep("-", f"torchsheet {OPTION}: {reused}")
        for line in self.lines:
            terminalreporter.write_line(line)

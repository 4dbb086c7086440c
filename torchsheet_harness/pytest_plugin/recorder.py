"""pytest plugin: after a run, record per page what passed, failed and was skipped, and why.

The docs build reads the file (:mod:`..results` owns its format and path) to say on each page
"Verified with torch X on CPU: N blocks passed; M need CUDA, which the test machine lacked". So
the file only records whole pages the run actually ran:

- Written by the controller only (under pytest-xdist, reports reach it through
  ``pytest_runtest_logreport``); workers never write.
- Not written when the selection may have cut pages short (``-k``, ``-m``, ``--deselect``,
  ``--lf``, ``--sw``, a ``page.md::line`` node id, or a run stopped early); the terminal summary
  says why. Selecting whole pages (``pytest docs/tensors``) is fine.
- Merged per page: pages this run did not touch keep their previous entry.

Examples are grouped into blocks by the block each report carries (see :mod:`.`).
"""

from __future__ import annotations

import platform
from datetime import datetime, timezone
from pathlib import Path

import pytest

from .. import results
from . import block_of_report


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--torchsheet-results",
        default=None,
        metavar="PATH",
        help="where to record per-page results for the docs build (default: "
        f"${results.RESULTS_ENV} or docs/_build/results.json; empty: do not write)",
    )


class RunRecord:
    """Reports on page examples as they arrive, grouped by page and block."""

    def __init__(self, docs_dir: Path, rootdir: Path) -> None:
        self.docs_dir = docs_dir
        self.rootdir = rootdir
        self.blocks: dict[str, dict[int, list[results.Outcome]]] = {}  # page → line → reports
        self.collection_errors: set[str] = set()

    def page_of(self, nodeid: str) -> str | None:
        """'tensors/creating.md' for a page example's node id; None for other tests."""
        path = nodeid.split("::", 1)[0]
        if "::" not in nodeid or not path.endswith(".md"):
            return None
        try:
            return (self.rootdir / path).resolve().relative_to(self.docs_dir.resolve()).as_posix()
        except ValueError:
            return None

    def add(self, report: pytest.TestReport) -> None:
        page, block = self.page_of(report.nodeid), block_of_report(report)
        if page is None or block is None:
            return
        reports = self.blocks.setdefault(page, {}).setdefault(block["line"], [])
        if report.failed:
            reports.append(results.Outcome("failed" if report.when == "call" else "errors"))
        elif report.skipped:
            not_run = block["not_run"] is not None
            reason = _skip_reason(report)
            reports.append(results.Outcome("skipped", reason, block["requires"], not_run))
        elif report.passed and report.when == "call":
            reports.append(results.Outcome("passed"))

    def entries(self, environment: dict[str, str]) -> dict[str, results.PageEntry]:
        """The results file's entry for every page this run reported on."""
        pages = {}
        for page in sorted(set(self.blocks) | self.collection_errors):
            source = self.docs_dir / page
            by_block = (results.block_outcome(r) for r in self.blocks.get(page, {}).values())
            pages[page] = results.page_entry(
                [outcome for outcome in by_block if outcome is not None],
                results.page_digest(source) if source.is_file() else None,
                environment,
                errors=int(page in self.collection_errors),
            )
        return pages


def _skip_reason(report: pytest.TestReport) -> str:
    if isinstance(report.longrepr, tuple) and len(report.longrepr) == 3:
        return str(report.longrepr[2]).removeprefix("Skipped: ")
    return str(report.longrepr)


def partial_selection(session: pytest.Session) -> str | None:
    """Why this run may not have run whole pages, or None when it did."""
    config = session.config
    option = config.option
    for flag, value in (
        ("-k", getattr(option, "keyword", "")),
        ("-m", getattr(option, "markexpr", "")),
        ("--deselect", getattr(option, "deselect", None)),
        ("--lf", getattr(option, "lf", False)),
        ("--sw", getattr(option, "stepwise", False)),
    ):
        if value:
            return f"{flag} selects part of the pages"
    if any(".md::" in arg for arg in config.args):
        return "a node id selects part of a page"
    if session.shouldfail or session.shouldstop:
        return "the run stopped early"
    return None


def _environment() -> dict[str, str]:
    import torch

    from ..pages.requirements import cuda_device_count

    gpus = cuda_device_count()
    device = "CPU" if not gpus else f"{gpus} × {torch.cuda.get_device_name(0)}"
    return {
        "torch": torch.__version__,
        "device": device,
        "python": platform.python_version(),
        "finished": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):  # the controller, or a run without xdist
        config.pluginmanager.register(ResultsRecorder(config), "torchsheet-results-recorder")


class ResultsRecorder:
    """The controller's side: collects reports, writes the file at the end of the session."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.record = RunRecord(config.rootpath / "docs", config.rootpath)
        self.summary: str | None = None

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.record.add(report)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed and (page := self.record.page_of(f"{report.nodeid}::")) is not None:
            self.record.collection_errors.add(page)

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        record = self.record
        if not (record.blocks or record.collection_errors):
            return
        option = self.config.getoption("--torchsheet-results")
        base = self.config.invocation_params.dir
        path = results.results_path(option, docs=record.docs_dir, option_base=base)
        why_not = "disabled (empty path)" if path is None else partial_selection(session)
        if exitstatus == pytest.ExitCode.INTERRUPTED:
            why_not = "the run was interrupted"
        if why_not is not None:
            self.summary = f"torchsheet: page results not recorded: {why_not}"
            return
        environment = _environment()
        run = {"args": list(self.config.invocation_params.args), **environment}
        pages = record.entries(environment)
        results.write_results(path, pages, run)
        self.summary = f"torchsheet: results of {len(pages)} pages recorded in {path}"

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if self.summary:
            terminalreporter.write_line(self.summary)

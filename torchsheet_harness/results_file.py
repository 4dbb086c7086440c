"""pytest plugin: after a run, record per page what passed, failed and was skipped, and why.

The docs build (:mod:`.sphinx_badges`) reads the file to say on each page "Verified with torch X
on CPU: N blocks passed; M need CUDA, which the test machine lacked". So the file only records
whole pages the run actually ran:

- Written by the controller only (under pytest-xdist, reports reach it through
  ``pytest_runtest_logreport``); workers never write.
- Not written when the selection may have cut pages short (``-k``, ``-m``, ``--deselect``,
  ``--lf``, ``--sw``, a ``page.md::line`` node id, or a run stopped early); the terminal summary
  says why. Selecting whole pages (``pytest docs/tensors``) is fine.
- Merged per page: pages this run did not touch keep their previous entry, each entry records
  the torch, the device and the time of the run that produced it, and the sha256 of the page
  source it ran, so the build can tell a page edited since.

Path: ``--torchsheet-results PATH``, else ``$TORCHSHEET_RESULTS``, else
``docs/_build/results.json`` under the rootdir. An empty path disables writing.
"""

from __future__ import annotations

import json
import os
import platform
import re
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from sybil import Document

from .page_parser import lex_blocks
from .pytest_plugin import requirement_of
from .sphinx_badges import RESULTS_ENV, page_digest

SCHEMA = 1
_LINE = re.compile(r"::line:(\d+)")
_REQUIRES = "torchsheet_requires"  # user property: the requirement label of a gated example


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--torchsheet-results",
        default=None,
        metavar="PATH",
        help="where to record per-page results for the docs build (default: "
        f"${RESULTS_ENV} or docs/_build/results.json; empty: do not write)",
    )


@dataclass
class ExampleResult:
    """One page example's outcome: passed, failed, errors or skipped (with why)."""

    outcome: str
    reason: str = ""
    requires: str = ""  # the requirement label, for examples gated on hardware


class RunRecord:
    """Outcomes of page examples as they arrive; summed per code block for the file."""

    def __init__(self, docs_dir: Path, rootdir: Path) -> None:
        self.docs_dir = docs_dir
        self.rootdir = rootdir
        self.examples: dict[str, dict[int, list[ExampleResult]]] = {}  # page → line → results
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
        page = self.page_of(report.nodeid)
        line = _LINE.search(report.nodeid)
        if page is None or line is None:
            return
        results = self.examples.setdefault(page, {}).setdefault(int(line[1]), [])
        if report.failed:
            results.append(ExampleResult("failed" if report.when == "call" else "errors"))
        elif report.skipped:
            requires = dict(report.user_properties).get(_REQUIRES, "")
            results.append(ExampleResult("skipped", _skip_reason(report), requires))
        elif report.passed and report.when == "call":
            results.append(ExampleResult("passed"))

    def entries(self, environment: dict[str, str]) -> dict[str, dict[str, Any]]:
        """The results file's entry for every page this run reported on, counted in blocks."""
        pages = {}
        for page in sorted(set(self.examples) | self.collection_errors):
            source = self.docs_dir / page
            blocks = _blocks(self.examples.get(page, {}), source)
            counts = Counter(result.outcome for result in blocks)
            reasons = Counter(result.reason for result in blocks if result.outcome == "skipped")
            needs = Counter(
                result.requires
                for result in blocks
                if result.outcome == "skipped"
                and result.requires
                and not result.reason.startswith("not run:")
            )
            pages[page] = {
                "sha256": page_digest(source) if source.is_file() else None,
                "passed": counts["passed"],
                "failed": counts["failed"],
                "errors": counts["errors"] + (page in self.collection_errors),
                "skipped": counts["skipped"],
                "needs_hardware": dict(needs),
                "not_run": sum(n for why, n in reasons.items() if why.startswith("not run:")),
                "skip_reasons": dict(reasons),
                **environment,
            }
        return pages


def _blocks(examples: dict[int, list[ExampleResult]], source: Path) -> list[ExampleResult]:
    """One result per code block: its examples' worst outcome (a block holds many >>> lines)."""
    spans = _block_lines(source)
    grouped: dict[object, list[ExampleResult]] = {}
    for line, results in sorted(examples.items()):
        key = next((span for span in spans if span[0] <= line <= span[1]), line)
        grouped.setdefault(key, []).extend(results)
    ranking = ("failed", "errors", "skipped", "passed")
    return [
        min(results, key=lambda result: ranking.index(result.outcome))
        for results in grouped.values()
        if results
    ]


def _block_lines(source: Path) -> list[tuple[int, int]]:
    """(first line, last line) of every code block on the page."""
    if not source.is_file():
        return []
    text = source.read_text(encoding="utf-8")
    document = Document(text, str(source))
    return [
        (text.count("\n", 0, block.start) + 1, text.count("\n", 0, block.end) + 1)
        for block in lex_blocks(document)
    ]


def _skip_reason(report: pytest.TestReport) -> str:
    if isinstance(report.longrepr, tuple) and len(report.longrepr) == 3:
        return str(report.longrepr[2]).removeprefix("Skipped: ")
    return str(report.longrepr)


def results_path(config: pytest.Config) -> Path | None:
    """The file to write, or None when writing is disabled."""
    option = config.getoption("--torchsheet-results")
    value = option if option is not None else os.environ.get(RESULTS_ENV)
    if value is None:
        return config.rootpath / "docs" / "_build" / "results.json"
    return Path(value) if value else None


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

    from .requirements import cuda_device_count

    gpus = cuda_device_count()
    device = "CPU" if not gpus else f"{gpus} × {torch.cuda.get_device_name(0)}"
    return {
        "torch": torch.__version__,
        "device": device,
        "python": platform.python_version(),
        "finished": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }


def write_results(path: Path, pages: dict[str, dict[str, Any]], run: dict[str, Any]) -> None:
    """Merge ``pages`` into the file at ``path`` (other pages keep their entries), atomically."""
    try:
        previous = json.loads(path.read_text(encoding="utf-8"))
        if previous.get("schema") != SCHEMA:
            previous = {}
    except (OSError, ValueError):
        previous = {}
    merged = {**previous.get("pages", {}), **pages}
    data = {"schema": SCHEMA, "last_run": run, "pages": dict(sorted(merged.items()))}
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    os.replace(temporary, path)


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # Runs where items run (each xdist worker); the label travels to the controller with the
    # report, so it can tell "needs hardware" skips from "not run" ones.
    for item in items:
        requirement = requirement_of(item)
        if requirement is not None and not requirement.is_cpu_only:
            item.user_properties.append((_REQUIRES, requirement.label))


def pytest_configure(config: pytest.Config) -> None:
    if not _is_worker(config):
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
        if not (record.examples or record.collection_errors):
            return
        path = results_path(self.config)
        why_not = "disabled (empty path)" if path is None else partial_selection(session)
        if exitstatus == pytest.ExitCode.INTERRUPTED:
            why_not = "the run was interrupted"
        if why_not is not None:
            self.summary = f"torchsheet: page results not recorded: {why_not}"
            return
        environment = _environment()
        run = {"args": list(self.config.invocation_params.args), **environment}
        pages = record.entries(environment)
        write_results(path, pages, run)
        self.summary = f"torchsheet: results of {len(pages)} pages recorded in {path}"

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if self.summary:
            terminalreporter.write_line(self.summary)

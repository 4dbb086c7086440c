"""pytest plugin: after a run, record per page and per block what passed, failed and was skipped.

The docs build reads the files (:mod:`..results` owns their format and paths) to say on each
page which environments verified it. Each environment (torch, CPU or CUDA device, Python) has a
file of its own, so runs on other torch versions or on a GPU runner add to the picture instead
of replacing it.

- Written by the controller only (under pytest-xdist, reports reach it through
  ``pytest_runtest_logreport``); workers never write.
- Per block, and only for a block whose every example ran: a block counts as run when each of
  its examples (one per ``>>>`` prompt) reported an outcome. So a run that selects part of the
  pages (``-m gpu``, ``-k``, ``--lf``, a ``page.md::line`` node id, a stop on the first failure,
  an interrupt) records the blocks it ran and nothing about the others; a block cut short
  records only a failure it saw. The terminal summary says how many blocks were recorded.
- Merged per page and block: pages and blocks this run did not touch keep their previous entry
  while the page source is unchanged.
- Timed: each block's seconds (its examples' setup, call and teardown), each harness test's
  seconds (``tests``, which the xdist schedule reads too), and for a page the run ran whole, the
  inputs ``--torchsheet-reuse`` compares (:mod:`..reuse_key`). Slow blocks are named in the
  terminal summary (:mod:`.timings`).

``--torchsheet-expect-gpu`` (what ``nox -s gpu`` passes) turns a GPU run that tests nothing into
a failure: no CUDA device visible, a CPU build of torch, or every selected block skipped.
"""

from __future__ import annotations

import dataclasses
from collections import Counter, defaultdict
from datetime import datetime, timezone
from pathlib import Path

import pytest
from sybil.integration.pytest import SybilItem

from .. import environment as environments
from .. import results, results_paths, reuse_key
from ..pages.parser import block_of
from . import block_of_report, timings

EXAMPLES_PROPERTY = "torchsheet_block_examples"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--torchsheet-results",
        default=None,
        metavar="PATH",
        help="where to record per-block results for the docs build: a .json file or a folder "
        f"that receives <environment>.json (default: ${results_paths.RESULTS_ENV} or "
        "docs/_build/results/; empty: do not write)",
    )
    parser.addoption(
        "--torchsheet-expect-gpu",
        action="store_true",
        default=False,
        help="fail unless a CUDA device is visible and at least one selected block ran on it",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # tryfirst: count each block's examples before -k or -m deselects any of them.
    counts: dict[tuple[int, int], int] = {}
    for item in items:
        if isinstance(item, SybilItem) and (block := block_of(item.example.region)) is not None:
            document = item.example.document
            key = (id(document), block.line)
            if key not in counts:
                counts.update(_examples_per_block(document))
            item.user_properties.append((EXAMPLES_PROPERTY, counts[key]))


def _examples_per_block(document) -> dict[tuple[int, int], int]:
    lines = Counter(
        block.line for _, region in document.regions if (block := block_of(region)) is not None
    )
    return {(id(document), line): count for line, count in lines.items()}


class RunRecord:
    """Reports on page examples as they arrive, grouped by page and block."""

    def __init__(self, docs_dir: Path, rootdir: Path) -> None:
        self.docs_dir = docs_dir
        self.rootdir = rootdir
        self.blocks: dict[str, dict[int, dict[str, results.Outcome]]] = {}  # page→line→id→report
        self.examples: dict[tuple[str, int], int] = {}  # (page, line) → examples in the block
        self.collection_errors: set[str] = set()
        self.seconds: defaultdict[tuple[str, int], float] = defaultdict(float)  # (page, line)
        self.call_seconds: defaultdict[tuple[str, int], float] = defaultdict(float)  # no setup
        self.described: dict[tuple[str, int], dict] = {}  # (page, line) → the block property
        self.tests: defaultdict[str, float] = defaultdict(float)  # harness test id → seconds

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
            if page is None and "::" in report.nodeid:
                self.tests[report.nodeid] += report.duration
            return
        line = block["line"]
        self.seconds[page, line] += report.duration
        if report.when == "call":
            self.call_seconds[page, line] += report.duration
        self.described[page, line] = block
        examples = dict(report.user_properties).get(EXAMPLES_PROPERTY)
        if examples is not None:
            self.examples[page, line] = examples
        reports = self.blocks.setdefault(page, {}).setdefault(line, {})
        previous = reports.get(report.nodeid)
        if report.failed:
            outcome = results.Outcome("failed" if report.when == "call" else "errors")
        elif report.skipped:
            not_run = block["not_run"] is not None
            reason = _skip_reason(report)
            outcome = results.Outcome("skipped", reason, block["requires"], not_run)
        elif report.passed and report.when == "call":
            outcome = results.Outcome("passed")
        else:
            return
        reports[report.nodeid] = results.block_outcome([o for o in (previous, outcome) if o])

    def block_results(self, page: str) -> dict[int, results.Outcome]:
        """The outcome of each block of ``page`` that ran whole, or that failed."""
        found = {}
        for line, reports in self.blocks.get(page, {}).items():
            outcome = results.block_outcome(reports.values())
            expected = self.examples.get((page, line))
            complete = expected is not None and len(reports) >= expected
            if outcome is not None and (complete or outcome.outcome in ("failed", "errors")):
                found[line] = dataclasses.replace(outcome, seconds=self.seconds[page, line])
        return found

    def entries(
        self, finished: str, inputs: tuple[str, str] | None = None
    ) -> dict[str, results.PageEntry]:
        """The results file's entry for every page this run recorded a block of; ``inputs``
        (the harness's and the environment's digests): add ``reuse`` to whole-page runs."""
        pages = {}
        for page in sorted(set(self.blocks) | self.collection_errors):
            blocks = self.block_results(page)
            errors = int(page in self.collection_errors)
            if not blocks and not errors:
                continue
            source = self.docs_dir / page
            digest = results.page_digest(source) if source.is_file() else None
            pages[page] = results.page_entry(blocks, digest, finished, errors)
            whole = digest and set(reuse_key.page_blocks(source)[0]) <= set(blocks)
            if inputs and whole and not errors:
                pages[page]["reuse"] = reuse_key.reuse_inputs(source, self.rootdir, *inputs)
        return pages


def _skip_reason(report: pytest.TestReport) -> str:
    if isinstance(report.longrepr, tuple) and len(report.longrepr) == 3:
        return str(report.longrepr[2]).removeprefix("Skipped: ")
    return str(report.longrepr)


environment = environments.current  # this process's torch, CUDA build, device and Python
gpu_run_refusal = environments.gpu_run_refusal


def recorded_path(config: pytest.Config, found: results.Environment) -> Path | None:
    """The results file this run writes (and ``--torchsheet-reuse`` and the schedule read)."""
    return results_paths.output_path(
        config.getoption("--torchsheet-results", None),
        docs=config.rootpath / "docs",
        environment=found,
        option_base=config.invocation_params.dir,
    )


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):  # a pytest-xdist worker: the controller records
        return
    if config.getoption("--torchsheet-expect-gpu"):
        if (why := gpu_run_refusal(environment())) is not None:
            raise pytest.UsageError(f"torchsheet GPU run refused: {why}")
    config.pluginmanager.register(ResultsRecorder(config), "torchsheet-results-recorder")


class ResultsRecorder:
    """The controller's side: collects reports, writes the file at the end of the session."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.record = RunRecord(config.rootpath / "docs", config.rootpath)
        self.summary: list[str] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.record.add(report)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed and (page := self.record.page_of(f"{report.nodeid}::")) is not None:
            self.record.collection_errors.add(page)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        record = self.record
        finished = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        self.summary.extend(timings.slow_blocks(record.call_seconds, record.described))
        expect_gpu = self.config.getoption("--torchsheet-expect-gpu")
        if not record.blocks and not record.collection_errors and not record.tests:
            if not expect_gpu:
                return  # nothing to record: no torch import, no CUDA context
        found = environment()
        harness = reuse_key.harness_digest(self.config.rootpath)
        pages = record.entries(finished, (harness, environments.fingerprint(found)))
        if expect_gpu:
            outcomes = Counter(
                block["outcome"] for page in pages.values() for block in page["blocks"].values()
            )
            if (why := gpu_run_refusal(found, outcomes)) is not None:
                self.summary.append(f"torchsheet GPU run refused: {why}")
                if session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
                    session.exitstatus = pytest.ExitCode.TESTS_FAILED  # not over an interrupt
        if not pages and not record.tests:
            return
        path = recorded_path(self.config, found)
        if path is None:
            self.summary.append("torchsheet: block results not recorded: disabled (empty path)")
            return
        run = {"args": list(self.config.invocation_params.args), "finished": finished}
        tests = {nodeid: round(seconds, 3) for nodeid, seconds in record.tests.items()}
        results.write_results(path, found, pages, run, tests)
        blocks = sum(len(page["blocks"]) for page in pages.values())
        timed = f" and the durations of {len(tests)} tests" if tests else ""
        recorded = f"results of {blocks} blocks on {len(pages)} pages{timed}"
        self.summary.append(f"torchsheet: {recorded} recorded in {path}")

    def pytest_terminal_summary(self, terminalreporter) -> None:
        for line in self.summary:
            terminalreporter.write_line(line)

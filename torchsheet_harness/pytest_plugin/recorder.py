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

``--torchsheet-expect-gpu`` (what ``nox -s gpu`` passes) turns a GPU run that tests nothing into
a failure: no CUDA device visible, a CPU build of torch, or every selected block skipped.
"""

from __future__ import annotations

import platform
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

import pytest
from sybil.integration.pytest import SybilItem

from .. import results
from ..pages.parser import block_of
from . import block_of_report

EXAMPLES_PROPERTY = "torchsheet_block_examples"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--torchsheet-results",
        default=None,
        metavar="PATH",
        help="where to record per-block results for the docs build: a .json file or a folder "
        f"that receives <environment>.json (default: ${results.RESULTS_ENV} or "
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
        line = block["line"]
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
                found[line] = outcome
        return found

    def entries(self, finished: str) -> dict[str, results.PageEntry]:
        """The results file's entry for every page this run recorded a block of."""
        pages = {}
        for page in sorted(set(self.blocks) | self.collection_errors):
            blocks = self.block_results(page)
            errors = int(page in self.collection_errors)
            if not blocks and not errors:
                continue
            source = self.docs_dir / page
            digest = results.page_digest(source) if source.is_file() else None
            pages[page] = results.page_entry(blocks, digest, finished, errors)
        return pages


def _skip_reason(report: pytest.TestReport) -> str:
    if isinstance(report.longrepr, tuple) and len(report.longrepr) == 3:
        return str(report.longrepr[2]).removeprefix("Skipped: ")
    return str(report.longrepr)


def environment() -> results.Environment:
    """This process's torch, CUDA build, device and Python."""
    import torch

    from ..pages.requirements import cuda_device_count

    gpus = cuda_device_count()
    found = results.Environment(
        torch=torch.__version__,
        cuda=torch.version.cuda,
        device=torch.cuda.get_device_name(0) if gpus else "CPU",
        gpus=gpus,
        python=platform.python_version(),
    )
    return results.Environment(**found, key=results.environment_key(found))


def gpu_run_refusal(
    environment: results.Environment, outcomes: Counter[str] | None = None
) -> str | None:
    """Why a run meant to test CUDA blocks tested nothing; None when it did.

    ``outcomes``: the selected blocks' outcomes ('passed', 'failed', 'skipped', ...), or None
    before the run (only the machine is checked then).
    """
    if not environment.get("cuda"):
        return (
            f"torch {environment.get('torch')} is a CPU build: install a CUDA build of torch "
            "(e.g. TORCH_SPEC=torch==2.13.0 from PyPI on Linux, without the CPU index)"
        )
    if not environment.get("gpus"):
        return (
            f"no CUDA device visible (torch {environment.get('torch')}, CUDA "
            f"{environment.get('cuda')}): check the driver and CUDA_VISIBLE_DEVICES"
        )
    if outcomes is None:
        return None
    ran = sum(count for outcome, count in outcomes.items() if outcome != "skipped")
    if not ran:
        skipped = outcomes.get("skipped", 0)
        return f"every selected block was skipped ({skipped} skipped, none ran)"
    return None


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
        pages = record.entries(finished)
        expect_gpu = self.config.getoption("--torchsheet-expect-gpu")
        if not pages and not expect_gpu:
            return  # nothing to record (a run of tests/ only): no torch import, no CUDA context
        found = environment()
        if expect_gpu:
            outcomes = Counter(
                block["outcome"] for page in pages.values() for block in page["blocks"].values()
            )
            if (why := gpu_run_refusal(found, outcomes)) is not None:
                self.summary.append(f"torchsheet GPU run refused: {why}")
                if session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
                    session.exitstatus = pytest.ExitCode.TESTS_FAILED  # not over an interrupt
        if not pages:
            return
        option = self.config.getoption("--torchsheet-results")
        base = self.config.invocation_params.dir
        path = results.output_path(
            option, docs=record.docs_dir, environment=found, option_base=base
        )
        if path is None:
            self.summary.append("torchsheet: block results not recorded: disabled (empty path)")
            return
        run = {"args": list(self.config.invocation_params.args), "finished": finished}
        results.write_results(path, found, pages, run)
        blocks = sum(len(page["blocks"]) for page in pages.values())
        self.summary.append(
            f"torchsheet: results of {blocks} blocks on {len(pages)} pages recorded in {path}"
        )

    def pytest_terminal_summary(self, terminalreporter) -> None:
        for line in self.summary:
            terminalreporter.write_line(line)

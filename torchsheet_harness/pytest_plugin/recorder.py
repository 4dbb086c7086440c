"""pytest plugin, in the controller: after a run, record per page and per block what passed,
failed and was skipped; the only writer of the results files (rules: MAINTAINING.md, "Results
files"). ``--torchsheet-expect-gpu`` fails a GPU run that tested nothing."""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import datetime, timezone
from pathlib import Path

import pytest

from .. import results, reuse_key
from ..checks import api_facts
from ..environment import current as current_environment
from ..environment import fingerprint, gpu_run_refusal
from ..pages.model import Block
from ..pages.page import read_page
from . import PRINTED_PROPERTY, block_of_report, timings

SHEET_TESTS = "tests/sheet/"


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


class RunRecord:
    """Reports as they arrive: page examples by page and block, sheet test files by file."""

    def __init__(self, rootdir: Path) -> None:
        self.docs = rootdir / "docs"
        self.rootdir = rootdir
        self.reports: dict[str, dict[int, dict[str, str]]] = {}  # page → line → id → outcome
        self.examples: dict[tuple[str, int], int] = {}
        self.reasons: dict[tuple[str, int], str] = {}
        self.seconds: defaultdict[tuple[str, int], float] = defaultdict(float)
        self.call_seconds: defaultdict[tuple[str, int], float] = defaultdict(float)
        self.collection_errors: set[str] = set()
        self.printed: defaultdict[tuple[str, int], dict[str, str]] = defaultdict(dict)
        self.names: set[str] = set()  # the torch names of the blocks recorded
        self.test_files: dict[str, set[str]] = defaultdict(set)  # sheet file → its outcomes

    def page_of(self, nodeid: str) -> str | None:
        """'tensors/creating.md' for a page example's node id; None for other tests."""
        path = nodeid.split("::", 1)[0]
        if "::" not in nodeid or not path.endswith(".md"):
            return None
        try:
            return (self.rootdir / path).resolve().relative_to(self.docs.resolve()).as_posix()
        except ValueError:
            return None

    def add(self, report: pytest.TestReport) -> None:
        page, block = self.page_of(report.nodeid), block_of_report(report)
        if page is None or block is None:
            path = report.nodeid.split("::", 1)[0]
            if path.startswith(SHEET_TESTS) and "::" in report.nodeid:
                passed = report.passed or report.skipped
                if report.when == "call" or not passed:
                    self.test_files[path].add("passed" if passed else "failed")
            return
        key = (page, block["line"])
        self.seconds[key] += report.duration
        if printed := dict(report.user_properties).get(PRINTED_PROPERTY):
            line, text = printed
            if text:
                self.printed[key][str(line)] = text
        self.examples[key] = block.get("examples", 1)
        if report.when == "call":
            self.call_seconds[key] += report.duration
        if report.failed:
            outcome = "failed" if report.when == "call" else "errors"
        elif report.skipped:
            outcome = "skipped"
            longrepr = report.longrepr
            if isinstance(longrepr, tuple) and len(longrepr) == 3:
                self.reasons[key] = str(longrepr[2]).removeprefix("Skipped: ")
            else:
                self.reasons[key] = str(longrepr)
        elif report.passed and report.when == "call":
            outcome = "passed"
        else:
            return
        reports = self.reports.setdefault(page, {}).setdefault(block["line"], {})
        reports[report.nodeid] = results.worst([outcome, reports.get(report.nodeid, outcome)])

    def block_entry(self, page: str, block: Block) -> results.BlockEntry:
        """``block``'s entry: its lines and requirement, and its outcome when it ran whole."""
        entry = results.BlockEntry(end=block.end)
        if not block.requirement.is_cpu_only:
            entry["requires"] = block.requirement.as_data()
        if block.not_run is not None:
            entry["not_run"] = block.not_run
        reports = self.reports.get(page, {}).get(block.line, {})
        outcome = results.worst(reports.values())
        whole = len(reports) >= self.examples.get((page, block.line), 1)
        if outcome is not None and (whole or outcome in ("failed", "errors")):
            entry["outcome"] = outcome
            if outcome == "skipped":
                entry["reason"] = self.reasons[page, block.line]
            entry["seconds"] = round(self.seconds[page, block.line], 3)
            if printed := self.printed.get((page, block.line)):
                entry["printed"] = dict(sorted(printed.items(), key=lambda item: int(item[0])))
        if uses := api_facts.block_names(block):
            entry["uses"] = uses
            self.names.update(uses)
        return entry

    def entries(self, finished: str, harness: str, env: str) -> dict[str, results.PageEntry]:
        """The results file's entry of every page this run touched."""
        pages = {}
        for name in sorted(set(self.reports) | self.collection_errors):
            source = self.docs / name
            if not source.is_file():
                continue
            page = read_page(source)
            blocks = {str(b.line): self.block_entry(name, b) for b in page.blocks if b.runs}
            errors = int(name in self.collection_errors)
            entry = results.PageEntry(
                sha256=page.digest, finished=finished, errors=errors, blocks=blocks
            )
            outcomes = [block.get("outcome") for block in blocks.values()]
            if not errors and all(o in ("passed", "skipped") for o in outcomes):
                entry["reuse"] = reuse_key.page_key(page, self.rootdir, harness, env)
            pages[name] = entry
        return pages


def recorded_path(config: pytest.Config, found: results.Environment) -> Path | None:
    """The results file this run writes (and ``--torchsheet-reuse`` reads)."""
    return results.output_path(
        config.getoption("--torchsheet-results", None),
        docs=config.rootpath / "docs",
        environment=found,
        option_base=config.invocation_params.dir,
    )


def selects_part(config: pytest.Config) -> bool:
    """Whether the run may leave out tests of a file it collects (then no file pass is kept)."""
    option = config.option
    chosen = ("keyword", "markexpr", "deselect", "lf", "stepwise", "exitfirst", "maxfail")
    return any(getattr(option, name, None) for name in chosen) or any(
        "::" in arg for arg in config.args
    )


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):  # a pytest-xdist worker: the controller records
        return
    if config.getoption("--torchsheet-expect-gpu"):
        if (why := gpu_run_refusal(current_environment())) is not None:
            raise pytest.UsageError(f"torchsheet GPU run refused: {why}")
    config.pluginmanager.register(ResultsRecorder(config), "torchsheet-results-recorder")


class ResultsRecorder:
    """The controller's side: collects reports, writes the file at the end of the session."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.record = RunRecord(config.rootpath)
        self.summary: list[str] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.record.add(report)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed and (page := self.record.page_of(f"{report.nodeid}::")) is not None:
            self.record.collection_errors.add(page)

    def file_passes(self, finished: str, harness: str, env: str) -> dict[str, dict[str, str]]:
        if selects_part(self.config):
            return {}
        passes = {}
        for name, outcomes in self.record.test_files.items():
            if outcomes == {"passed"}:
                root = self.config.rootpath
                key = reuse_key.test_file_key(root / name, root, harness, env)
                passes[name] = {"reuse": key, "finished": finished}
        return passes

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        record = self.record
        finished = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        expect_gpu = self.config.getoption("--torchsheet-expect-gpu")
        if not (record.reports or record.collection_errors or record.test_files or expect_gpu):
            return  # nothing to record: no torch import, no CUDA context
        found = current_environment()
        harness = reuse_key.harness_digest(self.config.rootpath)
        env = fingerprint(found)
        pages = record.entries(finished, harness, env)
        self.summary += timings.slow_blocks(record.call_seconds, record.docs)
        if expect_gpu:
            outcomes = Counter(
                block.get("outcome") for page in pages.values() for block in page["blocks"].values()
            )
            if (why := gpu_run_refusal(found, outcomes)) is not None:
                self.summary.append(f"torchsheet GPU run refused: {why}")
                if session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
                    session.exitstatus = pytest.ExitCode.TESTS_FAILED  # not over an interrupt
        files = self.file_passes(finished, harness, env)
        if not pages and not files:
            return
        path = recorded_path(self.config, found)
        if path is None:
            self.summary.append("torchsheet: block results not recorded: disabled (empty path)")
            return
        run = {"args": list(self.config.invocation_params.args), "finished": finished}
        api = api_facts.facts(sorted(record.names))
        results.write_results(path, found, pages, run, files, api)
        blocks = sum("outcome" in b for page in pages.values() for b in page["blocks"].values())
        also = f" and {len(files)} test files' passes" if files else ""
        recorded = f"results of {blocks} blocks on {len(pages)} pages{also}"
        self.summary.append(f"torchsheet: {recorded} recorded in {path}")

    def pytest_terminal_summary(self, terminalreporter) -> None:
        for line in self.summary:
            terminalreporter.write_line(line)

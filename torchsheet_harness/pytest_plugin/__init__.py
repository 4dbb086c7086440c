"""pytest wiring: each page example gets its block's markers, its timeout, one SKIPPED line per
block, a short failure ('page:line: Exception: message'), and the deselected blocks a partial
selection needs first; and the run's summary line. The options: CONTRIBUTING.md, "Running part
of a page". The block travels with every report as the user property ``torchsheet_block``."""

from __future__ import annotations

import linecache
import os
from collections import Counter
from typing import Any
from unittest import SkipTest

import pytest
from sybil import Example
from sybil.example import SybilFailure
from sybil.integration.pytest import SybilItem

from ..locations import display_path, place
from ..pages.model import Block
from ..run import gpu_host
from ..run.evaluators import PRINTED
from ..run.regions import block_of

MARKERS = {
    "gpu": "needs at least one CUDA GPU (run with `pytest -m gpu` on a GPU runner)",
    "multigpu": "needs two or more CUDA GPUs",
    "distributed": "launched as several processes by torchrun",
    "slurm": "needs a Slurm cluster (a private two-node cluster on this machine is started for it)",
    "nogpu": "shows what torch does without a CUDA GPU (skipped where a GPU is visible)",
    "gpuhost": "a CPU block exempt from the GPU-host check ('% gpu-host:'): nox -s gpu runs it "
    "with the GPUs visible",
    "slow": "takes more than a few seconds",
    "torchsheet_inputs": "(paths) the project files a sheet-side test file's verdict reads: part "
    "of its reuse key, with its source and tests/support/",
}
BLOCK_PROPERTY = "torchsheet_block"
PRINTED_PROPERTY = "torchsheet_printed"  # (example line, what its code printed)
#: ``pytest --update-outputs`` (rewrite outputs in the pages) comes with this plugin.
pytest_plugins = ["torchsheet_harness.pytest_plugin.update_outputs"]
BLOCK_TIMEOUT_INI = "torchsheet_block_timeout"
DEFAULT_BLOCK_TIMEOUT_SECONDS = 120
_NEEDS = "torchsheet_needs"  # item attribute: deselected examples to run before it


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini(
        BLOCK_TIMEOUT_INI,
        "seconds a page block run in-process may take (pytest-timeout); 0: no limit of its own. "
        "Blocks run by torchrun, Slurm or as scripts keep `timeout`.",
        default=str(DEFAULT_BLOCK_TIMEOUT_SECONDS),
    )
    group = parser.getgroup("torchsheet")
    group.addoption(
        "--torchsheet-gpu-host",
        action="store_true",
        help="run CPU blocks as on a machine whose accelerator is CUDA: a torchrun block that "
        "leans on the default device (a bare init_process_group(), fully_shard without mesh=), "
        "or a block whose output holds only without a GPU, fails with what a GPU host would do",
    )
    group.addoption(
        "--torchsheet-gpus-visible",
        action="store_true",
        help="on a GPU runner: CPU torchrun blocks see the machine's GPUs (default: hidden)",
    )


def pytest_configure(config: pytest.Config) -> None:
    for name, description in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {description}")
    # The launcher reads the environment, which pytest-xdist's workers inherit.
    if config.getoption("torchsheet_gpu_host", False):
        os.environ[gpu_host.GPU_HOST_ENV] = "1"
    if config.getoption("torchsheet_gpus_visible", False):
        os.environ[gpu_host.GPUS_VISIBLE_ENV] = "1"


def block_of_item(item: pytest.Item) -> Block | None:
    """The page block of a page example (None for ordinary tests)."""
    return block_of(item.example.region) if isinstance(item, SybilItem) else None


def block_of_report(report: pytest.TestReport) -> dict[str, Any] | None:
    """The block a report is about: its ``line``, ``not_run`` and ``examples`` (how many it has)."""
    return dict(report.user_properties).get(BLOCK_PROPERTY)


def block_timeout(config: pytest.Config) -> float | None:
    """The timeout marker page blocks get; None where --timeout was given or no plugin runs."""
    if not config.pluginmanager.hasplugin("timeout") or config.getoption("timeout", None):
        return None
    seconds = float(config.getini(BLOCK_TIMEOUT_INI) or 0)
    return seconds if seconds > 0 else None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # tryfirst: markers must exist before `-m` deselects.
    timeout = block_timeout(config)
    examples = Counter(  # before -k or -m deselects any: a block ran whole when all reported
        (id(item.example.document), block.line)
        for item in items
        if (block := block_of_item(item)) is not None
    )
    for item in items:
        block = block_of_item(item)
        if block is None:
            continue
        requirement = block.requirement
        for name in requirement.markers:
            item.add_marker(name)
        if block.gpu_host is not None:
            item.add_marker("gpuhost")
        if timeout and block.pasted and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(timeout))
        count = examples[id(item.example.document), block.line]
        described = {"line": block.line, "not_run": block.not_run is not None, "examples": count}
        item.user_properties.append((BLOCK_PROPERTY, described))


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:  # noqa: ARG001
    """One line a closing note can quote: page examples run, skipped for hardware, exempted."""
    counts: Counter[str] = Counter()
    for outcome in ("passed", "failed", "skipped", "error"):
        for report in terminalreporter.stats.get(outcome, []):
            if not str(getattr(report, "nodeid", "")).split("::")[0].endswith(".md"):
                continue
            if outcome == "skipped" and isinstance(report.longrepr, tuple):
                exempt = bool((block_of_report(report) or {}).get("not_run"))
                counts["exempted (not-run)" if exempt else "skipped (needs hardware)"] += 1
            elif report.when == "call" or outcome == "error":
                counts[outcome] += 1
    if counts:
        terminalreporter.write_sep("-", "torchsheet page examples")
        order = ("passed", "failed", "error", "skipped (needs hardware)", "exempted (not-run)")
        terminalreporter.write_line(", ".join(f"{counts[k]} {k}" for k in order))


def pytest_collection_finish(session: pytest.Session) -> None:
    """After deselection (``--lf`` deselects after every modifyitems hook): give each selected
    page example the deselected ones it may need."""
    selected: dict[int, SybilItem] = {}
    files = {}
    for item in session.items:
        if isinstance(item, SybilItem):
            selected[id(item.example.region)] = item
            files[id(item.parent)] = item.parent
    for sybil_file in files.values():
        for document in sybil_file.documents:
            pending: list[Example] = []
            for example in document.examples():
                item = selected.get(id(example.region))
                block = block_of(example.region)
                if item is None:
                    if block is None or (block.pasted and block.requirement.runs_at_the_prompt):
                        pending.append(example)
                elif pending and (block is None or block.requirement.runs_at_the_prompt):
                    setattr(item, _NEEDS, pending)
                    pending = []


@pytest.hookimpl(trylast=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Run the deselected blocks a selected page example needs (after the page's setup)."""
    for example in getattr(item, _NEEDS, ()):
        try:
            example.evaluate()
        except SkipTest:
            continue
        except (Exception, pytest.fail.Exception) as error:  # a timeout's Failed too; not Ctrl-C
            failure = f"{type(error).__name__}: {error}"
        else:
            continue
        needed = getattr(block_of(example.region), "slug", "")
        section = getattr(block_of(item.example.region), "slug", "")
        pytest.fail(
            f"{place(example.path, item.example.line)} (section '{section}') needs the blocks "
            "before it, which this run did not select; running them for it, "
            f"{place(example.path, example.line)} (section '{needed}') failed:\n{failure}\n"
            f"Select that section too (-k '{needed} or {section}') or run the whole page.",
            pytrace=False,
        )


def short_failure(item: SybilItem, excinfo: pytest.ExceptionInfo) -> str | None:
    """'page:line: Error: message' and the page line that raised, or None when no page line
    is in the traceback (the failure is the harness's, shown in full)."""
    path = item.example.path
    frames = [entry for entry in excinfo.traceback if str(entry.path) == path]
    if not frames:
        return None
    line = frames[-1].lineno + 1
    code = linecache.getline(path, line).strip()
    return (
        f"{place(path, line)}: {excinfo.exconly().strip()}\n    {code}\n"
        f"(in the block at {place(path, item.example.line)}; the full traceback: --tb=long)"
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call):
    outcome = yield
    report = outcome.get_result()
    if not isinstance(item, SybilItem):
        return
    block = block_of(item.example.region)
    printed = getattr(item.example, PRINTED, None)
    if call.when == "call" and printed is not None:
        report.user_properties.append((PRINTED_PROPERTY, (item.example.line, printed)))
    if report.skipped and isinstance(report.longrepr, tuple):
        # A skip raised by an evaluator would be reported at the evaluator's line; point it at
        # the page and the block's first line, so pytest folds a block's statements into one
        # SKIPPED line.
        reason = report.longrepr[2].removeprefix("Skipped: ")
        line = block.line if block is not None else item.example.line
        report.longrepr = (display_path(item.example.path), line, reason)
    elif report.failed and call.excinfo is not None and call.when == "call":
        if item.config.getoption("tbstyle") in ("long", "native"):
            return
        if isinstance(call.excinfo.value, SybilFailure):
            return  # the evaluator's own message
        short = short_failure(item, call.excinfo)
        if short is not None:
            report.longrepr = short

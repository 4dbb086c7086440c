"""pytest wiring: each page example carries its block, which gives its markers, the location of
its skip and the per-run summary line. The results file is written by :mod:`.recorder`.

The block travels with every report as the user property ``torchsheet_block`` (a plain dict, so
it reaches the pytest-xdist controller), read back with :func:`block_of_report`.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from sybil.integration.pytest import SybilItem

from ..locations import display_path
from ..pages.blocks import BlockInfo
from ..pages.parser import block_of

MARKERS = {
    "gpu": "needs at least one CUDA GPU (run with `pytest -m gpu` on a GPU runner)",
    "multigpu": "needs two or more CUDA GPUs",
    "distributed": "launched as several processes by torchrun",
    "slurm": "needs a Slurm cluster (a private two-node cluster on this machine is started for it)",
    "slow": "takes more than a few seconds",
}
BLOCK_PROPERTY = "torchsheet_block"
#: ``pytest --update-outputs`` (rewrite outputs in the pages) comes with this plugin.
pytest_plugins = ["torchsheet_harness.pytest_plugin.update_outputs"]


def pytest_configure(config: pytest.Config) -> None:
    for name, description in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {description}")


def block_of_item(item: pytest.Item) -> BlockInfo | None:
    """The page block of a page example (None for ordinary tests)."""
    return block_of(item.example.region) if isinstance(item, SybilItem) else None


def block_of_report(report: pytest.TestReport) -> dict[str, Any] | None:
    """The block a report is about: line, section, requires (badge label), not_run (reason)."""
    return dict(report.user_properties).get(BLOCK_PROPERTY)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # tryfirst: markers must exist before `-m` deselects.
    for item in items:
        block = block_of_item(item)
        if block is None:
            continue
        requirement = block.requirement
        for name in requirement.markers:
            item.add_marker(name)
        requires = "" if requirement.is_cpu_only else requirement.label
        described = {"line": block.line, "section": block.section, "requires": requires}
        item.user_properties.append((BLOCK_PROPERTY, {**described, "not_run": block.not_run}))


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:  # noqa: ARG001
    """One line a closing note can quote: page examples run, skipped for hardware, exempted."""
    counts: Counter[str] = Counter()
    for outcome in ("passed", "failed", "skipped", "error"):
        for report in terminalreporter.stats.get(outcome, []):
            if not str(getattr(report, "nodeid", "")).split("::")[0].endswith(".md"):
                continue
            if outcome == "skipped" and isinstance(report.longrepr, tuple):
                block = block_of_report(report) or {}
                exempt = block.get("not_run") is not None
                counts["exempted (not-run)" if exempt else "skipped (needs hardware)"] += 1
            elif report.when == "call" or outcome == "error":
                counts[outcome] += 1
    if counts:
        terminalreporter.write_sep("-", "torchsheet page examples")
        order = ("passed", "failed", "error", "skipped (needs hardware)", "exempted (not-run)")
        terminalreporter.write_line(", ".join(f"{counts[k]} {k}" for k in order))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call):  # noqa: ARG001
    # A skip raised by an evaluator would be reported at the evaluator's line; point it at the
    # page and line of the block instead.
    outcome = yield
    report = outcome.get_result()
    if isinstance(item, SybilItem) and report.skipped and isinstance(report.longrepr, tuple):
        reason = report.longrepr[2].removeprefix("Skipped: ")
        report.longrepr = (display_path(item.example.path), item.example.line, reason)

"""pytest wiring: requirement markers on page examples, and a per-run summary of blocks."""

from __future__ import annotations

from collections import Counter

import pytest
from sybil.integration.pytest import SybilItem

from .locations import display_path
from .requirements import Requirement

MARKERS = {
    "gpu": "needs at least one CUDA GPU (run with `pytest -m gpu` on a GPU runner)",
    "multigpu": "needs two or more CUDA GPUs",
    "distributed": "launched as several processes by torchrun",
    "slurm": "needs a Slurm cluster (a private two-node cluster on this machine is started for it)",
    "slow": "takes more than a few seconds",
}


def pytest_configure(config: pytest.Config) -> None:
    for name, description in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {description}")


def requirement_of(item: pytest.Item) -> Requirement | None:
    """The requirement declared on a page example's block (None for ordinary tests)."""
    if isinstance(item, SybilItem):
        return getattr(item.example.region, "requirement", Requirement())
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # tryfirst: markers must exist before `-m` deselects.
    for item in items:
        requirement = requirement_of(item)
        if requirement is not None:
            for name in requirement.markers:
                item.add_marker(name)


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:  # noqa: ARG001
    """One line a closing note can quote: page examples run, skipped for hardware, exempted."""
    counts: Counter[str] = Counter()
    for outcome in ("passed", "failed", "skipped", "error"):
        for report in terminalreporter.stats.get(outcome, []):
            if not str(getattr(report, "nodeid", "")).split("::")[0].endswith(".md"):
                continue
            if outcome == "skipped" and isinstance(report.longrepr, tuple):
                exempt = report.longrepr[2].startswith("not run:")
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


@pytest.fixture
def torchrun_launcher():
    """The :func:`torchsheet_harness.torchrun_launcher.torchrun` function, for tests."""
    from .torchrun_launcher import torchrun

    return torchrun

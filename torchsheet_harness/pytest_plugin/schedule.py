"""Under pytest-xdist, hand out the longest files first (the longest-processing-time rule), so that
no long file starts last: xdist's own order is by test count, which puts a page of a hundred
quick examples before a file whose few tests each launch processes for a minute. The cost is
estimated from each item's markers, needing no earlier run (CI starts from a fresh clone)."""

from __future__ import annotations

from collections import defaultdict

import pytest

LAUNCH_SECONDS = 5.0  # one torchrun launch of two ranks on a busy 2-core machine
SLURM_SECONDS = 8.0  # a Slurm block: a private cluster started and stopped, and its job
EXAMPLE_SECONDS = 0.05  # a page example run in process
TEST_SECONDS = 1.0  # a test: many start a pytest, an interpreter or a launch
# Handed out last: test_slurm.py starts a cluster of its own (a few seconds), and one private
# cluster runs per machine at a time. Started while the Slurm page's blocks run on the other
# worker, it waited for them (measured: 18-22 s, against 3.5 s alone); last, the page is done.
LAST = {"tests/harness/test_slurm.py"}


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def estimate(item: pytest.Item) -> float:
    """Expected seconds of an item, from its markers."""
    if item.get_closest_marker("slurm"):
        return SLURM_SECONDS
    if item.get_closest_marker("distributed"):
        return LAUNCH_SECONDS
    return EXAMPLE_SECONDS if file_of(item.nodeid).endswith(".md") else TEST_SECONDS


def pytest_configure(config: pytest.Config) -> None:
    # The controller schedules: keep the collection's order (xdist reorders by test count).
    workers = getattr(config.option, "dist", "no") != "no" and config.getoption("numprocesses")
    if hasattr(config.option, "loadscopereorder") and workers:
        config.option.loadscopereorder = False


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not hasattr(config, "workerinput"):
        return  # not an xdist worker: run in the usual order
    cost: dict[str, float] = defaultdict(float)
    first_seen: dict[str, int] = {}
    for index, item in enumerate(items):
        cost[file_of(item.nodeid)] += estimate(item)
        first_seen.setdefault(file_of(item.nodeid), index)

    def key(item: pytest.Item) -> tuple[bool, float, int]:
        path = file_of(item.nodeid)
        return path in LAST, -cost[path], first_seen[path]

    items.sort(key=key)  # stable: a file's items keep their order

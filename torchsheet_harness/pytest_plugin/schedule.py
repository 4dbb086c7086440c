"""Under pytest-xdist, hand out the longest files first, so that no long file starts last.

``--dist loadfile`` makes each file one unit of work, handed to whichever worker is free, in the
order of the collection. xdist itself first reorders the units by their number of tests
(``--loadscope-reorder``, on by default): pages with a hundred quick examples go first, and the
harness's test files, a few tests that each launch processes for a minute, go last, where one of
them can keep a worker busy long after the other has run out of work. Here the files are ordered
by their expected cost instead, the longest first (the classic longest-processing-time rule), and
xdist's reorder is turned off so that it keeps this order.

The expected cost of a file is the sum of its items' last recorded durations: per page block and
per harness test, as the results file of this run's environment holds them (the file the run
writes, :func:`.recorder.recorded_path`; ``seconds`` of each block, ``tests`` per test id). An
item with no recorded duration is estimated from its markers: a launch (``distributed``,
``slurm``) costs ``LAUNCH_SECONDS`` or ``SLURM_SECONDS``, any other page example
``EXAMPLE_SECONDS`` and a harness test ``TEST_SECONDS``. On a fresh clone (CI included:
``docs/_build/results/`` is not committed) nothing is recorded and the estimate orders every
file. Recorded durations include waits (a machine lock, a shared site build), so the order can
change from one run to the next; it only decides who starts what first and changes no result.
``LAST`` files go at the end whatever their cost (a wait they would otherwise spend idle). Items
keep their order within a file (a page's blocks run top to bottom), and without xdist (``-n 0``)
nothing is reordered.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable

import pytest

from .. import environment, results
from . import block_of_item
from .recorder import recorded_path

LAUNCH_SECONDS = 5.0  # one torchrun launch of two ranks on a busy 2-core machine
SLURM_SECONDS = 8.0  # a Slurm block: a private cluster started and stopped, and its job
EXAMPLE_SECONDS = 0.05  # a page example run in process
TEST_SECONDS = 1.0  # a harness test: many start a pytest, an interpreter or a launch
# Handed out last: test_slurm.py starts a cluster of its own (a few seconds), and one private
# cluster runs per machine at a time. Started while the Slurm page's blocks run on the other
# worker, it waited for them (measured: 18-22 s, against 3.5 s alone); last, the page is done.
LAST = {"tests/harness/test_slurm.py"}


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def duration_key(item: pytest.Item) -> Hashable:
    """What a duration is recorded for: a page block ('docs/x.md', line), else the test id."""
    block = block_of_item(item)
    return (file_of(item.nodeid), block.line) if block is not None else item.nodeid


def recorded_durations(config: pytest.Config) -> dict[Hashable, float]:
    """The durations of this environment's results file, by :func:`duration_key`; {}: none."""
    data = results.read_results(recorded_path(config, environment.current()))
    if data is None:
        return {}
    found: dict[Hashable, float] = dict(data.get("tests", {}))
    for page, entry in data["pages"].items():
        for line, block in entry.get("blocks", {}).items():
            if "seconds" in block:
                found[f"docs/{page}", int(line)] = block["seconds"]
    return found


def estimate(item: pytest.Item) -> float:
    """Expected seconds of an item without a recorded duration, from its markers."""
    if item.get_closest_marker("slurm"):
        return SLURM_SECONDS
    if item.get_closest_marker("distributed"):
        return LAUNCH_SECONDS
    return EXAMPLE_SECONDS if file_of(item.nodeid).endswith(".md") else TEST_SECONDS


def expected_seconds(items: list[pytest.Item], recorded: dict[Hashable, float]) -> dict[str, float]:
    """Expected seconds per file: recorded durations, estimates where none is recorded."""
    cost: dict[str, float] = defaultdict(float)
    counted: set[Hashable] = set()
    for item in items:
        key = duration_key(item)
        if key not in recorded:
            cost[file_of(item.nodeid)] += estimate(item)
        elif key not in counted:  # a block's examples share its one duration
            counted.add(key)
            cost[file_of(item.nodeid)] += recorded[key]
    return cost


def _xdist_workers(config: pytest.Config) -> bool:
    return bool(getattr(config.option, "dist", "no") != "no" and config.getoption("numprocesses"))


def pytest_configure(config: pytest.Config) -> None:
    # The controller schedules: keep the collection's order (xdist reorders by test count).
    if hasattr(config.option, "loadscopereorder") and _xdist_workers(config):
        config.option.loadscopereorder = False


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not hasattr(config, "workerinput"):
        return  # not an xdist worker: run in the usual order
    cost = expected_seconds(items, recorded_durations(config))
    files = [file_of(item.nodeid) for item in items]
    first_seen = {path: index for index, path in reversed(list(enumerate(files)))}

    def key(item: pytest.Item) -> tuple[bool, float, int]:
        path = file_of(item.nodeid)
        return path in LAST, -cost[path], first_seen[path]

    items.sort(key=key)  # stable: a file's items keep their order

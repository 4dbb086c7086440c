"""Under pytest-xdist, hand out the longest files first, so that no long file starts last.

``--dist loadfile`` makes each file one unit of work, handed to whichever worker is free, in the
order of the collection. xdist itself first reorders the units by their number of tests
(``--loadscope-reorder``, on by default): pages with a hundred quick examples go first, and the
harness's test files, a few tests that each launch processes for a minute, go last, where one of
them can keep a worker busy long after the other has run out of work. Here the files are ordered
by their expected cost instead, the longest first (the classic longest-processing-time rule), and
xdist's reorder is turned off so that it keeps this order.

The expected cost of a file is an estimate from its launches (``distributed`` and ``slurm``
items), or, for the harness test files that start sub-processes of their own, the figure measured
for them (``MEASURED``). It is deliberately not the last run's durations: those include waits
(the Slurm cluster's machine lock, the shared site build) that moving a file earlier would make
longer, and the same order on every run keeps runs comparable. ``LAST`` files go at the end
whatever their cost (a wait they would otherwise spend idle). The order only decides who starts
what first: it changes no result. Items keep their order within a file (a page's blocks run top
to bottom), and without xdist (``-n 0``) nothing is reordered.
"""

from __future__ import annotations

from collections import defaultdict

import pytest

LAUNCH_SECONDS = 5.0  # one torchrun launch of two ranks on a busy 2-core machine
SLURM_SECONDS = 8.0  # a Slurm block: a private cluster started and stopped, and its job
# Harness test files that start sub-processes (pytest sub-runs, interpreters, launches), in
# seconds summed over their tests on 2 cores under -n 2. These are figures for the order, not the
# files' true costs: with the true costs (copy-paste 116 s, results file 29 s, launcher 25 s,
# update-outputs 23 s, measured 2026-12-01) the heavy files all start together, one per worker,
# and the whole run took 258-263 s against 238-243 s with this order (runs side by side).
MEASURED = {
    "tests/test_results_file.py": 100.0,
    "tests/test_copy_paste.py": 76.0,
    "tests/test_torchrun_launcher.py": 45.0,
    "tests/test_readme_install.py": 20.0,
    "tests/test_html.py": 20.0,
    "tests/test_harness_faults.py": 15.0,
    "tests/test_browser.py": 15.0,
    "tests/test_page_isolation.py": 5.0,
    # Not measured alone (a loaded machine): a pytest sub-run and two torchrun launches; two
    # Sphinx builds of a one-page project. Estimated from the figures above.
    "tests/test_deprecations.py": 20.0,
    "tests/test_verified_environments.py": 10.0,
}
# Handed out last: test_slurm.py starts a cluster of its own (a few seconds), and one private
# cluster runs per machine at a time. Started while the Slurm page's blocks run on the other
# worker, it waited for them (measured: 18-22 s, against 3.5 s alone); last, the page is done.
LAST = {"tests/test_slurm.py"}


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def estimate(items: list[pytest.Item]) -> dict[str, float]:
    """Expected seconds per file, from markers and the measured figures."""
    cost: dict[str, float] = defaultdict(float)
    for item in items:
        path = file_of(item.nodeid)
        cost[path] += 0.05
        if item.get_closest_marker("slurm"):
            cost[path] += SLURM_SECONDS
        elif item.get_closest_marker("distributed"):
            cost[path] += LAUNCH_SECONDS
    for path, seconds in MEASURED.items():
        if path in cost:
            cost[path] = seconds
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
    cost = estimate(items)
    files = [file_of(item.nodeid) for item in items]
    first_seen = {path: index for index, path in reversed(list(enumerate(files)))}

    def key(item: pytest.Item) -> tuple[bool, float, int]:
        path = file_of(item.nodeid)
        return path in LAST, -cost[path], first_seen[path]

    items.sort(key=key)  # stable: a file's items keep their order

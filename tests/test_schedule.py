"""The xdist schedule: the files expected to take longest are handed out first, in one piece."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from torchsheet_harness.pytest_plugin import schedule


def item(nodeid: str, marker: str | None = None) -> SimpleNamespace:
    return SimpleNamespace(
        nodeid=nodeid, get_closest_marker=lambda name: name if name == marker else None
    )


def worker_config() -> SimpleNamespace:
    return SimpleNamespace(workerinput={})


def order(items: list[SimpleNamespace]) -> list[str]:
    return [entry.nodeid for entry in items]


PAGE = [item(f"docs/a/quick.md::line:{n}") for n in range(1, 40)]
LAUNCHES = [
    item("docs/b/launches.md::line:5"),
    item("docs/b/launches.md::line:9", "distributed"),
    item("docs/b/launches.md::line:30", "distributed"),
]
SUBRUNS = [item("tests/test_copy_paste.py::test_one"), item("tests/test_copy_paste.py::test_two")]
# Its cluster waits for any other on the machine: last, though marked.
CLUSTER = [item("tests/test_slurm.py::test_conf"), item("tests/test_slurm.py::test_stop", "slurm")]


def test_longest_files_first_and_each_file_in_its_order() -> None:
    items = PAGE + CLUSTER + LAUNCHES + SUBRUNS
    schedule.pytest_collection_modifyitems(worker_config(), items)
    # The measured sub-runs, two launches, the quick page, the cluster; each in its own order.
    assert order(items) == order(SUBRUNS + LAUNCHES + PAGE + CLUSTER)


def test_without_xdist_nothing_moves() -> None:
    items = PAGE + LAUNCHES + SUBRUNS
    schedule.pytest_collection_modifyitems(SimpleNamespace(), items)
    assert order(items) == order(PAGE + LAUNCHES + SUBRUNS)


@pytest.mark.parametrize(("dist", "workers", "reorder"), [("loadfile", 2, False), ("no", 0, True)])
def test_xdist_keeps_the_order_it_is_given(dist: str, workers: int, reorder: bool) -> None:
    option = SimpleNamespace(dist=dist, numprocesses=workers, loadscopereorder=True)
    config = SimpleNamespace(option=option, getoption=lambda name: getattr(option, name))
    schedule.pytest_configure(config)
    assert option.loadscopereorder is reorder


def test_every_measured_file_exists() -> None:
    # A renamed test file would drop out of the table silently and be scheduled by its markers.
    root = Path(__file__).resolve().parent.parent
    assert [path for path in schedule.MEASURED if not (root / path).is_file()] == []

"""The xdist schedule: the files expected to take longest are handed out first, in one piece,
estimated from the items' markers."""

from __future__ import annotations

from types import SimpleNamespace

from torchsheet_harness.pytest_plugin import schedule


def item(nodeid: str, marker: str | None = None) -> SimpleNamespace:
    return SimpleNamespace(
        nodeid=nodeid, get_closest_marker=lambda name: name if name == marker else None
    )


PAGE = [item(f"docs/a/quick.md::line:{n}") for n in range(1, 80)]
LAUNCHES = [
    item("docs/b/launches.md::line:5"),
    item("docs/b/launches.md::line:9", "distributed"),
    item("docs/b/launches.md::line:30", "distributed"),
]
SUBRUNS = [item("tests/harness/test_x.py::test_one"), item("tests/harness/test_x.py::test_two")]
# Its cluster waits for any other on the machine: last, though marked.
CLUSTER = [
    item("tests/harness/test_slurm.py::test_conf"),
    item("tests/harness/test_slurm.py::test_stop", "slurm"),
]


def test_the_longest_files_go_first_each_in_one_piece() -> None:
    items = PAGE + CLUSTER + SUBRUNS + LAUNCHES
    schedule.pytest_collection_modifyitems(SimpleNamespace(workerinput={}), items)
    # Two launches (10 s), the quick page (79 examples, 4 s), two tests (2 s), the cluster last.
    assert [i.nodeid for i in items] == [i.nodeid for i in LAUNCHES + PAGE + SUBRUNS + CLUSTER]


def test_the_controller_and_a_run_without_xdist_keep_the_collection_order() -> None:
    items = PAGE + LAUNCHES
    schedule.pytest_collection_modifyitems(SimpleNamespace(), items)
    assert items == PAGE + LAUNCHES

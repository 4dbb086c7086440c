"""The xdist schedule: the files expected to take longest are handed out first, in one piece.

Expected from the last recorded durations (per page block, per harness test), estimated from
the markers where none is recorded.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from torchsheet_harness import results
from torchsheet_harness.pytest_plugin import schedule

ENVIRONMENT = results.Environment(torch="2.13.0+cpu", device="CPU", gpus=0, python="3.11.7")


def item(nodeid: str, marker: str | None = None) -> SimpleNamespace:
    return SimpleNamespace(
        nodeid=nodeid, get_closest_marker=lambda name: name if name == marker else None
    )


def worker_config() -> SimpleNamespace:
    return SimpleNamespace(workerinput={})


def order(items: list[SimpleNamespace]) -> list[str]:
    return [entry.nodeid for entry in items]


PAGE = [item(f"docs/a/quick.md::line:{n}") for n in range(1, 80)]
LAUNCHES = [
    item("docs/b/launches.md::line:5"),
    item("docs/b/launches.md::line:9", "distributed"),
    item("docs/b/launches.md::line:30", "distributed"),
]
SUBRUNS = [
    item("tests/harness/test_copy_paste.py::test_one"),
    item("tests/harness/test_copy_paste.py::test_two"),
]
# Its cluster waits for any other on the machine: last, though marked.
CLUSTER = [
    item("tests/harness/test_slurm.py::test_conf"),
    item("tests/harness/test_slurm.py::test_stop", "slurm"),
]


def schedule_with(recorded: dict, items: list, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(schedule, "recorded_durations", lambda config: recorded)
    schedule.pytest_collection_modifyitems(worker_config(), items)


def test_without_a_record_the_markers_estimate(monkeypatch: pytest.MonkeyPatch) -> None:
    items = PAGE + CLUSTER + SUBRUNS + LAUNCHES
    schedule_with({}, items, monkeypatch)
    # Two launches (10 s), the quick page (79 examples, 4 s), two harness tests (2 s), the cluster.
    assert order(items) == order(LAUNCHES + PAGE + SUBRUNS + CLUSTER)


def test_recorded_durations_longest_first(monkeypatch: pytest.MonkeyPatch) -> None:
    items = PAGE + CLUSTER + LAUNCHES + SUBRUNS
    # The sub-runs took 60 s: first. Only one launch is recorded (1 s); the other is estimated
    # (5 s) and the untimed example too, which puts the launches (6.05 s) after the page (8 s).
    recorded = {SUBRUNS[0].nodeid: 50.0, SUBRUNS[1].nodeid: 10.0, LAUNCHES[1].nodeid: 1.0}
    recorded |= {example.nodeid: 0.1 for example in PAGE}
    recorded[CLUSTER[1].nodeid] = 500.0  # last all the same
    schedule_with(recorded, items, monkeypatch)
    assert order(items) == order(SUBRUNS + PAGE + LAUNCHES + CLUSTER)


def test_a_block_counts_once_for_its_examples(monkeypatch: pytest.MonkeyPatch) -> None:
    # A page block of 30 >>> examples took 3 s in all: its file costs 3 s, not 90 s.
    block = SimpleNamespace(line=7)
    monkeypatch.setattr(
        schedule, "block_of_item", lambda item: block if ".md" in item.nodeid else None
    )
    examples = [item(f"docs/c/one-block.md::line:{n}") for n in range(8, 38)]
    cost = schedule.expected_seconds(examples + SUBRUNS, {("docs/c/one-block.md", 7): 3.0})
    assert cost == {"docs/c/one-block.md": 3.0, "tests/harness/test_copy_paste.py": 2.0}


def test_the_durations_come_from_this_environments_results_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TORCHSHEET_RESULTS", raising=False)
    monkeypatch.setattr(schedule.environment, "current", lambda: ENVIRONMENT)
    config = SimpleNamespace(
        rootpath=tmp_path,
        invocation_params=SimpleNamespace(dir=tmp_path),
        getoption=lambda name, default=None: default,
    )
    assert schedule.recorded_durations(config) == {}  # a fresh clone: nothing recorded
    outcome = results.Outcome("passed", seconds=2.5)
    page = results.page_entry({12: outcome, 30: results.Outcome("passed")}, "abc", "now")
    path = tmp_path / "docs" / "_build" / "results" / f"{results.environment_key(ENVIRONMENT)}.json"
    results.write_results(path, ENVIRONMENT, {"a/b.md": page}, {}, {"tests/test_x.py::t": 4.0})
    assert schedule.recorded_durations(config) == {
        ("docs/a/b.md", 12): 2.5,
        "tests/test_x.py::t": 4.0,
    }


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


def test_every_last_file_exists() -> None:
    root = Path(__file__).resolve().parents[2]
    assert [path for path in schedule.LAST if not (root / path).is_file()] == []

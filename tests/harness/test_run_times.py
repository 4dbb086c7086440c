"""Run times: the slow-block lines of a run, the verification page's ``{run-times}`` table, and
the xdist schedule (the files expected to take longest, from their markers, handed out first)."""

from pathlib import Path
from types import SimpleNamespace

from torchsheet_harness import results
from torchsheet_harness.pytest_plugin import schedule, timings
from torchsheet_harness.sphinx_ext import run_times

CPU = results.Environment(torch="2.13.0+cpu", device="CPU", gpus=0, python="3.11.7")
NEWER = results.Environment(torch="2.14.1+cpu", device="CPU", gpus=0, python="3.11.7")


def test_cpu_blocks_over_their_budget_are_named(tmp_path: Path) -> None:
    fence, launched = (
        "```python\nx = 1\n```\n",
        "```{code-block} python\n:class: needs-torchrun-2\npass\n```\n",
    )
    (tmp_path / "a.md").write_text(f"# A\n\nP.\n\n{fence}\n{fence}")  # blocks on lines 5, 9
    (tmp_path / "b.md").write_text(f"# B\n\n{launched}\n{launched}")  # lines 3, 8
    # A GPU block (line 4): the GPU runner's time, not judged.
    (tmp_path / "c.md").write_text(
        "# C\n\n\n```{code-block} python\n:class: needs-cuda\npass\n```\n"
    )
    seconds = {("a.md", 5): 10.5, ("a.md", 9): 9.9, ("b.md", 3): 61.0, ("b.md", 8): 59.0}
    seconds |= {("c.md", 4): 300.0}
    assert timings.slow_blocks(seconds, tmp_path) == [
        "torchsheet: slow block docs/b.md:3 took 61.0 s (budget 60 s launched)",
        "torchsheet: slow block docs/a.md:5 took 10.5 s (budget 10 s in process)",
    ]


def entry(docs: Path, page: str, finished: str, **seconds: float) -> results.PageEntry:
    blocks = {line[1:]: {"outcome": "passed", "seconds": s} for line, s in seconds.items()}
    blocks["99"] = {"outcome": "skipped", "reason": "needs CUDA", "seconds": 0.001}
    blocks["120"] = {"end": 125}  # this run did not run it
    digest = results.page_digest((docs / page).read_text(encoding="utf-8"))
    return results.PageEntry(sha256=digest, finished=finished, errors=0, blocks=blocks)


def run(environment: results.Environment, **pages: results.PageEntry) -> results.Results:
    environment = {**environment, "key": results.environment_key(environment)}
    pages = {f"{name}.md": entry for name, entry in pages.items()}
    return results.Results(schema=3, environment=environment, last_run={}, pages=pages)


def test_the_table_lists_fresh_entries_per_page_and_environment(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n")
    (docs / "b.md").write_text("# B\n")
    older = entry(docs, "a.md", "2026-01-01 10:00 UTC", l5=9.0)
    latest = entry(docs, "a.md", "2026-01-02 10:00 UTC", l5=1.0, l9=2.5, l12=0.5, l20=0.25)
    stale = {**entry(docs, "b.md", "2026-01-02 10:00 UTC", l5=1.0), "sha256": "old source"}
    found = [run(CPU, a=older), run(CPU, a=latest, b=stale), run(NEWER, a=older)]
    rows = run_times.rows(found, docs)
    # b.md's entry ran an older source: not listed. a.md: the latest entry per environment.
    assert [(page, described) for page, described, _ in rows] == [
        ("a.md", "torch 2.13.0 on CPU"),
        ("a.md", "torch 2.14.1 on CPU"),
    ]
    assert run_times.cells(rows[0][2]) == (
        "4",  # the skipped block is not run
        "4.3",
        "line 9: 2.50 s, line 5: 1.00 s, line 12: 0.50 s",
        "2026-01-02 10:00 UTC",
    )


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

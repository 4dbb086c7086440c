"""The launch benchmark's choice of blocks (benchmarks/launch_repeat.py): ``--only`` runs the
named blocks and no other, a page names all of its own, and a name matching nothing is refused."""

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "launch_repeat.py"
spec = importlib.util.spec_from_file_location("launch_repeat", SCRIPT)
launch_repeat = importlib.util.module_from_spec(spec)
spec.loader.exec_module(launch_repeat)

BLOCKS = {
    "docs/a.md:63": "starts processes",
    "docs/a.md:633": "torchrun 2",
    "docs/ab.md:5": "script",
}


def test_only_a_block_names_that_block_and_not_one_whose_line_starts_alike() -> None:
    assert launch_repeat.chosen(BLOCKS, ["docs/a.md:63"]) == {"docs/a.md:63": "starts processes"}


def test_only_a_page_names_its_blocks_and_not_a_page_whose_name_starts_alike() -> None:
    assert set(launch_repeat.chosen(BLOCKS, ["docs/a.md"])) == {"docs/a.md:63", "docs/a.md:633"}


def test_no_only_runs_every_block() -> None:
    assert launch_repeat.chosen(BLOCKS, []) == BLOCKS


def test_an_only_that_matches_nothing_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.argv", ["launch_repeat.py", "--only", "docs/nowhere.md:1"])
    with pytest.raises(SystemExit, match="no launched block or test matches"):
        launch_repeat.main()


def test_a_report_of_named_blocks_says_which_command_ran_them() -> None:
    runs = {"docs/a.md:63": [("passed", 1.0, "")] * 2}
    written = launch_repeat.report(runs, BLOCKS, [3.0, 4.0], 2, ["docs/a.md:63"])
    assert "`python benchmarks/launch_repeat.py --runs 2 --only docs/a.md:63`" in written
    assert "| `docs/a.md:63` | starts processes | 2 | 0 | 1.0 | 1.0 |" in written

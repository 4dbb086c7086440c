"""Every test file is placed on one side of the suite, and each side keeps exactly its own."""

from __future__ import annotations

from pathlib import Path

from planted import PLUGIN, REPO, conftest, run_pytest, write_project

from torchsheet_harness.pytest_plugin.sides import HARNESS, SHEET


def test_every_test_file_is_on_exactly_one_side() -> None:
    files = {f"tests/{path.name}" for path in (REPO / "tests").glob("test_*.py")}
    assert not set(SHEET) & set(HARNESS)
    unplaced = sorted(files - set(SHEET) - set(HARNESS))
    assert unplaced == [], f"place each in sides.SHEET or sides.HARNESS, with why: {unplaced}"
    assert sorted(set(SHEET) | set(HARNESS)) == sorted(files), "a table names a file not there"


def test_each_side_keeps_its_own_and_both_without_the_option(tmp_path: Path) -> None:
    write_project(tmp_path, {"page.md": "# Page\n\n```python\n>>> 1 + 1\n2\n```\n"})
    (tmp_path / "conftest.py").write_text(
        conftest(PLUGIN, "torchsheet_harness.pytest_plugin.sides")
    )
    tests = tmp_path / "tests"
    tests.mkdir()
    harness_file, sheet_file = sorted(HARNESS)[0], sorted(SHEET)[0]
    for name in (harness_file, sheet_file, "tests/test_new.py"):
        (tmp_path / name).write_text("def test_it():\n    pass\n")

    def ran(*args: str) -> list[str]:
        result = run_pytest(tmp_path, "-n", "0", *args, "docs", "tests")
        assert result.returncode == 0, result.stdout + result.stderr
        return sorted(
            line.split()[1].split("::")[0]
            for line in result.stdout.splitlines()
            if line.startswith("PASSED")
        )

    assert ran("--torchsheet-side=harness") == [harness_file]
    # A file in neither table runs with the sheet, on every leg: never left out.
    assert ran("--torchsheet-side=sheet") == ["docs/page.md", sheet_file, "tests/test_new.py"]
    assert len(ran()) == 4

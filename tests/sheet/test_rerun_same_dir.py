"""Run again in the folder of an earlier run, a script sees only its own run: the process-groups
page's TCPStore block (a port file left by the first run must not send the second run's ranks to a
port nobody listens on) and snippets/dcp_reshard.py on fewer ranks (``dcp.save`` deletes nothing:
the script's rank 0 deletes an earlier run's files)."""

import re
from pathlib import Path

import pytest

from torchsheet_harness.run.torchrun import torchrun

pytestmark = pytest.mark.torchsheet_inputs(
    "docs/distributed/process-groups.md", "snippets/dcp_reshard.py"
)

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "distributed" / "process-groups.md"
BLOCK = re.compile(
    r"```\{code-block\} python\n:class: needs-torchrun-2\n(?P<code>.*?)```\n\n"
    r"```\{code-block\} text\n:class: output\n(?P<output>.*?)```",
    re.DOTALL,
)
# A healthy run takes seconds; a rank stuck on a stale port waits far longer.
TIMEOUT_SECONDS = 60.0
# Ranks start in any order. Rank 0 starting last is when a stale port file gets read: make it so.
RANK_0_STARTS_LAST = 'import os, time\nif os.environ["RANK"] == "0":\n    time.sleep(3)\n'


def store_block() -> tuple[str, str]:
    """The page's TCPStore block and its output block."""
    found = [m for m in BLOCK.finditer(PAGE.read_text()) if "port_file" in m["code"]]
    assert len(found) == 1, f"{PAGE.name}: expected one block using a port file"
    return found[0]["code"], found[0]["output"]


@pytest.mark.distributed
def test_store_block_runs_twice_in_one_directory(tmp_path: Path) -> None:
    code, expected = store_block()
    script = tmp_path / "store_block.py"
    script.write_text(RANK_0_STARTS_LAST + code)
    for run in (1, 2):
        launch = torchrun(script, 2, cwd=tmp_path, timeout=TIMEOUT_SECONDS)
        assert launch.ok, f"run {run} in {tmp_path}:\n{launch.describe()}"
        assert launch.ranks_stdout() == expected, f"run {run}"


@pytest.mark.distributed
def test_dcp_reshard_on_fewer_ranks_lists_its_own_files(tmp_path: Path) -> None:
    script, seen = ROOT / "snippets" / "dcp_reshard.py", {}
    for ranks in (2, 1):
        launch = torchrun(script, ranks, args=["checkpoint"], cwd=tmp_path, timeout=180)
        assert launch.ok, f"{ranks} ranks in {tmp_path}:\n{launch.describe()}"
        first = launch.ranks_stdout().splitlines()[0]  # saved on ... (the files it lists)
        assert first.startswith("saved on "), first
        seen[ranks] = first[first.index("(") + 1 : first.index(")")]
    assert seen[2] == ".metadata, __0_0.distcp, __1_0.distcp"
    assert seen[1] == ".metadata, __0_0.distcp", "the 2-rank run's __1_0.distcp was left behind"
    on_disk = sorted(path.name for path in (tmp_path / "checkpoint").iterdir())
    assert on_disk == [".metadata", "__0_0.distcp"]

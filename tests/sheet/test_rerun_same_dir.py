"""The process-groups page's TCPStore block runs twice in a row in one directory: a port file
left by the first run must not send the second run's ranks to a port nobody listens on."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from torchsheet_harness.run.torchrun import torchrun

pytestmark = pytest.mark.torchsheet_inputs("docs/distributed/process-groups.md")

PAGE = Path(__file__).resolve().parents[2] / "docs" / "distributed" / "process-groups.md"
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

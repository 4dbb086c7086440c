"""snippets/dcp_reshard.py run again on fewer ranks into the same folder lists its own files
only (``dcp.save`` deletes nothing: the script's rank 0 deletes an earlier run's files)."""

from __future__ import annotations

from pathlib import Path

import pytest

from torchsheet_harness.run.torchrun import torchrun

pytestmark = pytest.mark.torchsheet_inputs("snippets/dcp_reshard.py")

SCRIPT = Path(__file__).resolve().parents[2] / "snippets" / "dcp_reshard.py"
TIMEOUT_SECONDS = 180.0


def listed(stdout: str) -> str:
    """The files the script says it saved, from its first line."""
    first = stdout.splitlines()[0]
    assert first.startswith("saved on "), first
    return first[first.index("(") + 1 : first.index(")")]


@pytest.mark.distributed
def test_fewer_ranks_into_the_same_folder_list_their_own_files(tmp_path: Path) -> None:
    seen = {}
    for ranks in (2, 1):
        launch = torchrun(SCRIPT, ranks, args=["checkpoint"], cwd=tmp_path, timeout=TIMEOUT_SECONDS)
        assert launch.ok, f"{ranks} ranks in {tmp_path}:\n{launch.describe()}"
        seen[ranks] = listed(launch.ranks_stdout())
    assert seen[2] == ".metadata, __0_0.distcp, __1_0.distcp"
    assert seen[1] == ".metadata, __0_0.distcp", "the 2-rank run's __1_0.distcp was left behind"
    on_disk = sorted(path.name for path in (tmp_path / "checkpoint").iterdir())
    assert on_disk == [".metadata", "__0_0.distcp"]

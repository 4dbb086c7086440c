"""The torchrun launcher: hung launches end, nothing outlives a launch, parallel launches are safe.
Each launch is a real two-rank gloo ``torchrun`` (seconds), so each test reads several facts off
one; every script prints its rank's pid and its agent's, which must be gone afterwards."""

import re
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace

import pytest

from torchsheet_harness.run.collect import page_sybil
from torchsheet_harness.run.process import GRACE_SECONDS, alive, pids, read_cmdline_and_environ
from torchsheet_harness.run.torchrun import Launch, torchrun

PIDS = re.compile(r"pid (\d+) ppid (\d+)")

# The pids are printed first, before the slow torch import, so even a launch on a loaded machine
# that times out early has printed them.
PRELUDE = """\
import os
print(f"pid {os.getpid()} ppid {os.getppid()} script {__file__}", flush=True)
import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank = dist.get_rank()
"""

SHUTDOWN = """\
dist.barrier()
dist.destroy_process_group()
"""


def script(tmp_path: Path, body: str, name: str = "script.py") -> Path:
    (tmp_path / name).write_text(PRELUDE + body)
    return tmp_path / name


def pids_in(text: str) -> set[int]:
    """Every rank pid and agent pid that the ranks printed."""
    return {int(pid) for match in PIDS.finditer(text) for pid in match.groups()}


def running(script: str | Path) -> list[int]:
    """Pids of live processes whose command line names ``script`` (torchrun and its ranks)."""
    marker = str(script).encode()
    return [pid for pid in pids() if marker in read_cmdline_and_environ(pid) and alive(pid)]


def assert_all_gone(pids: set[int], script: str | Path, expected: int = 3) -> None:
    assert len(pids) == expected, f"expected {expected} pids (agent and 2 ranks), got {pids}"
    assert [pid for pid in pids if alive(pid)] == []
    assert running(script) == []


# Rank 1 skips the all_reduce and waits for a message rank 0 never sends: both hang until gloo's
# own timeout (30 minutes), so only the launcher's timeout ends it. Each rank signs in (a file in
# the folder named by its argument) when it is about to hang.
DEADLOCK = """\
import sys
from pathlib import Path
from types import SimpleNamespace

t = torch.ones(1)
Path(sys.argv[1], f"rank{rank}").touch()
print(f"rank {rank} waits", flush=True)
if rank == 0:
    dist.all_reduce(t)
else:
    dist.recv(t, src=0)
"""
DEADLOCK_TIMEOUT = 15  # reaching the hang takes a few seconds, even on a loaded machine
# --standalone picks a free port per launch: no fixed port, so launches (and pytest -n workers)
# never fight over one. The launches are started together and each rank, once its process group
# is up, signs in and waits for every rank of every launch: all of them hold a process group at
# the same moment, then each all_reduces over its own two ranks only.
PARALLEL = 4
TOGETHER = """\
import sys
import time
from pathlib import Path
from types import SimpleNamespace

index, folder, launches = int(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
Path(folder, f"{index}.{rank}").touch()
deadline = time.monotonic() + 120
while len(list(folder.iterdir())) < 2 * launches:
    assert time.monotonic() < deadline, f"launch {index}: the other launches never came up"
    time.sleep(0.05)
total = torch.tensor([float(index)])
dist.all_reduce(total)
print(f"rank {rank} of {dist.get_world_size()}: launch {index} total {total.item():g}")
"""


@pytest.fixture(scope="module")
def launches(tmp_path_factory: pytest.TempPathFactory) -> SimpleNamespace:
    """The deadlocked launch and, started once its ranks hang, PARALLEL launches of one script,
    all in their process groups together."""
    folder = tmp_path_factory.mktemp("launches")
    hung_in, together_in = folder / "hung-in", folder / "together-in"
    hung_in.mkdir()
    together_in.mkdir()
    hung, together = script(folder, DEADLOCK, "hung.py"), script(folder, TOGETHER + SHUTDOWN)

    def deadlock() -> tuple[Launch, float]:
        started = time.monotonic()
        result = torchrun(hung, 2, args=[str(hung_in)], timeout=DEADLOCK_TIMEOUT)
        return result, time.monotonic() - started

    def launch(index: int) -> Launch:
        args = [str(index), str(together_in), str(PARALLEL)]
        return torchrun(together, 2, args=args, timeout=180)

    with ThreadPoolExecutor(max_workers=PARALLEL + 1) as pool:
        hanging = pool.submit(deadlock)
        deadline = time.monotonic() + DEADLOCK_TIMEOUT
        while len(list(hung_in.iterdir())) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)  # its ranks reach their hang before these launches load the machine
        parallel = list(pool.map(launch, range(PARALLEL)))
        deadlocked, seconds = hanging.result()
    return SimpleNamespace(hung=hung, hung_in=hung_in, deadlocked=deadlocked, seconds=seconds,
                           together=together, parallel=parallel)  # fmt: skip


def test_parallel_launches_never_collide_keep_rank_output_and_leave_nothing(launches) -> None:
    pids: set[int] = set()
    for index, result in enumerate(launches.parallel):
        assert result.ok, result.describe()
        assert sorted(result.rank_stdout) == [0, 1]
        for rank in (0, 1):
            said = f"rank {rank} of 2: launch {index} total {2 * index}\n"
            assert result.rank_stdout[rank].endswith(said)
        stdout = result.ranks_stdout()
        assert stdout.index("rank 0 of 2") < stdout.index("rank 1 of 2"), "rank 0's first"
        pids |= pids_in(stdout)
    assert_all_gone(pids, launches.together, expected=3 * PARALLEL)


def test_deadlock_fails_within_timeout_and_kills_every_rank(launches: SimpleNamespace) -> None:
    # The timeout, then at most the SIGTERM grace period before SIGKILL, and a little slack.
    assert launches.seconds < DEADLOCK_TIMEOUT + GRACE_SECONDS + 10
    assert launches.deadlocked.finished.timed_out
    report = launches.deadlocked.describe()
    # Killed in the deadlock itself, not on the way to it.
    assert sorted(p.name for p in launches.hung_in.iterdir()) == ["rank0", "rank1"], report
    assert "timed out and was killed" in report
    assert "[rank0] pid" in report and "[rank1] pid" in report
    assert "[rank0] rank 0 waits" in report and "[rank1] rank 1 waits" in report
    assert_all_gone(pids_in(launches.deadlocked.ranks_stdout()), launches.hung)


@pytest.mark.parametrize(
    ("code", "output", "says"),
    [
        (
            'print(f"rank {rank} says hello")\n',
            "rank 0 says goodbye\n",  # expected, from the page; got: each rank's hello
            ["page.md:3: the output shown on the page is not what the code printed",
             "rank 0 says goodbye", "rank 0 says hello", "rank 1 says hello"],
        ),
        (
            'if rank == 1:\n    raise ValueError("rank 1 gives up")\n',
            None,  # the traceback points at the page's line, prefixed by the rank that raised
            ["page.md:3: torchrun launch failed", "--- rank 1 stderr ---",
             '[rank1]:   File "', 'block.py", line 13, in <module>',
             "[rank1]: ValueError: rank 1 gives up", "[rank0] pid", "[rank1] pid"],
        ),
    ],
    ids=["wrong output", "raising rank"],
)  # fmt: skip
def test_a_failing_block_shows_every_rank(tmp_path: Path, code: str, output, says) -> None:
    page = tmp_path / "page.md"
    shown = f"\n```{{code-block}} text\n:class: output\n{output}```\n" if output else ""
    fence = "```{code-block} python\n:class: needs-torchrun-2\n"
    page.write_text(f"# Page\n\n{fence}{PRELUDE}{code}{SHUTDOWN}```\n{shown}")
    (example,) = page_sybil(tmp_path).parse(page).examples()
    message = example.region.evaluator(example)
    assert isinstance(message, str), "the example was expected to fail"
    assert all(line in message for line in says), message
    assert_all_gone(pids_in(message), re.search(r" script (\S+)", message)[1])

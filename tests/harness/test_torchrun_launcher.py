"""The torchrun launcher: hung launches end, nothing outlives a launch, parallel launches are safe.

Each launch is a real ``torchrun`` with two gloo ranks on CPU (a few seconds each), so every test
gets several facts out of one launch. Every script prints its rank's pid and the pid of its parent
(the torchrun agent) so a test can check that none of them is still running afterwards.

Two launches are shared to keep the file short: the parallel launches are started once and give
both the normal-run and the no-collision facts, and the deadlocked launch, which spends its 15
seconds asleep, is started in the background when the module starts, so that its wait for the
timeout overlaps the other launches instead of following them.
"""

from __future__ import annotations

import re
import textwrap
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from torchsheet_harness.pages.collect import page_sybil
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
    path = tmp_path / name
    path.write_text(PRELUDE + textwrap.dedent(body))
    return path


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


def block_script(message: str) -> str:
    """The temporary script a page block ran as, as its ranks printed it."""
    return re.search(r" script (\S+)", message)[1]


# Rank 1 skips the all_reduce and waits for a message rank 0 never sends: both hang until gloo's
# own timeout (30 minutes), so only the launcher's timeout ends it. Each rank signs in (a file in
# the folder named by its argument) when it is about to hang.
DEADLOCK = """\
import sys
from pathlib import Path

t = torch.ones(1)
Path(sys.argv[1], f"rank{rank}").touch()
print(f"rank {rank} waits", flush=True)
if rank == 0:
    dist.all_reduce(t)
else:
    dist.recv(t, src=0)
"""
DEADLOCK_TIMEOUT = 15  # reaching the hang takes a few seconds, even on a loaded machine
DEADLOCK_TEST = "test_deadlock_fails_within_timeout_and_kills_every_rank"


@dataclass
class HungLaunch:
    """The deadlocked launch, running in a thread; ``signed_in`` holds a file per hung rank."""

    future: Future
    signed_in: Path

    def wait_until_hung(self) -> None:
        """Until both ranks are in their hang, or the launch has ended."""
        deadline = time.monotonic() + DEADLOCK_TIMEOUT
        while not self.future.done() and time.monotonic() < deadline:
            if len(list(self.signed_in.iterdir())) == 2:
                return
            time.sleep(0.1)


@pytest.fixture(scope="module", autouse=True)
def hung_launch(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[HungLaunch | None]:
    """The deadlocked launch, started when the module starts (if its test is selected).

    The future's result is (launch, seconds it took, script).
    """
    if not any(item.name == DEADLOCK_TEST for item in request.session.items):
        yield None
        return
    folder = tmp_path_factory.mktemp("deadlock")
    signed_in = folder / "signed-in"
    signed_in.mkdir()
    hung = script(folder, DEADLOCK)

    def launch() -> tuple[Launch, float, Path]:
        started = time.monotonic()
        result = torchrun(hung, 2, args=[str(signed_in)], timeout=DEADLOCK_TIMEOUT)
        return result, time.monotonic() - started, hung

    with ThreadPoolExecutor(max_workers=1) as pool:
        running_launch = HungLaunch(pool.submit(launch), signed_in)
        yield running_launch
        running_launch.future.result()  # never leave the module with the launch running


# --standalone picks a free port per launch: no fixed port, so launches (and pytest -n workers)
# never fight over one. The launches are started together and each rank, once its process group
# is up, signs in and waits for every rank of every launch: all of them hold a process group at
# the same moment, then each all_reduces over its own two ranks only.
PARALLEL = 4
TOGETHER = """\
import sys
import time
from pathlib import Path

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
def parallel_launches(
    tmp_path_factory: pytest.TempPathFactory, hung_launch: HungLaunch | None
) -> tuple[Path, list[Launch]]:
    """PARALLEL launches of one script, started at once and in their process groups together."""
    folder = tmp_path_factory.mktemp("parallel")
    signed_in = folder / "signed-in"
    signed_in.mkdir()
    path = script(folder, TOGETHER + SHUTDOWN)
    if hung_launch is not None:
        # Its ranks reach their hang before these launches load the machine.
        hung_launch.wait_until_hung()

    def launch(index: int) -> Launch:
        return torchrun(path, 2, args=[str(index), str(signed_in), str(PARALLEL)], timeout=180)

    with ThreadPoolExecutor(max_workers=PARALLEL) as pool:
        return path, list(pool.map(launch, range(PARALLEL)))


def test_normal_run_keeps_rank_output_and_leaves_nothing(parallel_launches) -> None:
    path, launches = parallel_launches
    launch = launches[0]
    assert launch.ok, launch.describe()
    assert sorted(launch.rank_stdout) == [0, 1]
    assert launch.rank_stdout[1].endswith("rank 1 of 2: launch 0 total 0\n")
    stdout = launch.ranks_stdout()
    assert stdout.index("rank 0 of 2: launch 0") < stdout.index("rank 1 of 2: launch 0")
    assert_all_gone(pids_in(stdout), path)


def test_parallel_launches_never_collide(parallel_launches) -> None:
    path, launches = parallel_launches
    pids: set[int] = set()
    for index, result in enumerate(launches):
        assert result.ok, result.describe()
        for rank in (0, 1):
            assert f"launch {index} total {2 * index}\n" in result.rank_stdout[rank]
        pids |= pids_in(result.ranks_stdout())
    assert_all_gone(pids, path, expected=3 * PARALLEL)


def test_block_with_wrong_output_fails_with_each_rank_prefixed(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n\n```{code-block} python\n:class: needs-torchrun-2\n"
        + PRELUDE
        + 'print(f"rank {rank} says hello")\n'
        + SHUTDOWN
        + "```\n\n```{code-block} text\n:class: output\nrank 0 says goodbye\n```\n"
    )
    message = evaluate_only_example(page)
    assert message.splitlines()[0].endswith(
        "page.md:3: the output shown on the page is not what the code printed"
    )
    assert "rank 0 says goodbye" in message  # expected, from the page
    assert "rank 0 says hello" in message and "rank 1 says hello" in message  # got
    assert_all_gone(pids_in(message), block_script(message))


def test_block_with_raising_rank_fails_with_its_traceback(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n\n```{code-block} python\n:class: needs-torchrun-2\n"
        + PRELUDE
        + 'if rank == 1:\n    raise ValueError("rank 1 gives up")\n'
        + SHUTDOWN
        + "```\n"
    )
    message = evaluate_only_example(page)
    assert message.splitlines()[0].endswith("page.md:3: torchrun launch failed")
    assert "--- rank 1 stderr ---" in message
    # The traceback points at the page's line, prefixed by the rank that raised.
    assert re.search(r'\[rank1\]:   File ".*block\.py", line 13, in <module>', message)
    assert "[rank1]: ValueError: rank 1 gives up" in message
    assert "[rank0] pid" in message and "[rank1] pid" in message
    assert_all_gone(pids_in(message), block_script(message))


# Last in the module: by now the deadlocked launch has spent its timeout in the background.
def test_deadlock_fails_within_timeout_and_kills_every_rank(hung_launch: HungLaunch | None) -> None:
    assert hung_launch is not None
    launch, seconds, hung = hung_launch.future.result()
    # The timeout, then at most the SIGTERM grace period before SIGKILL, and a little slack.
    assert seconds < DEADLOCK_TIMEOUT + GRACE_SECONDS + 10
    assert launch.finished.timed_out
    report = launch.describe()
    # Killed in the deadlock itself, not on the way to it.
    assert sorted(p.name for p in hung_launch.signed_in.iterdir()) == ["rank0", "rank1"], report
    assert "timed out and was killed" in report
    assert "[rank0] pid" in report and "[rank1] pid" in report
    assert "[rank0] rank 0 waits" in report and "[rank1] rank 1 waits" in report
    assert_all_gone(pids_in(launch.ranks_stdout()), hung)


def evaluate_only_example(page: Path) -> str:
    """The failure message of the page's single example (which must fail)."""
    document = page_sybil(page.parent).parse(page)
    (example,) = list(document.examples())
    message = example.region.evaluator(example)
    assert isinstance(message, str), "the example was expected to fail"
    return message

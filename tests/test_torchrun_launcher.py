"""The torchrun launcher: hung launches end, nothing outlives a launch, parallel launches are safe.

Each launch is a real ``torchrun`` with two gloo ranks on CPU (a few seconds each), so every test
gets several facts out of one launch. Every script prints its rank's pid and the pid of its parent
(the torchrun agent) so a test can check that none of them is still running afterwards.
"""

from __future__ import annotations

import re
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from torchsheet_harness.pages.collect import page_sybil
from torchsheet_harness.run.process import GRACE_SECONDS, alive, pids, read_cmdline_and_environ
from torchsheet_harness.run.torchrun import torchrun

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


def test_normal_run_keeps_rank_output_and_leaves_nothing(tmp_path: Path) -> None:
    path = script(tmp_path, 'print(f"rank {rank} of {dist.get_world_size()}")\n' + SHUTDOWN)
    launch = torchrun(path, 2)
    assert launch.ok, launch.describe()
    assert sorted(launch.rank_stdout) == [0, 1]
    assert launch.rank_stdout[1].endswith("rank 1 of 2\n")
    assert launch.ranks_stdout().index("rank 0 of 2") < launch.ranks_stdout().index("rank 1 of 2")
    assert_all_gone(pids_in(launch.ranks_stdout()), path)


def test_deadlock_fails_within_timeout_and_kills_every_rank(tmp_path: Path) -> None:
    # Rank 1 skips the all_reduce and waits for a message rank 0 never sends: both hang until
    # gloo's own timeout (30 minutes), so only the launcher's timeout ends it.
    hung = script(
        tmp_path,
        """\
        t = torch.ones(1)
        if rank == 0:
            dist.all_reduce(t)
        else:
            dist.recv(t, src=0)
        """,
    )
    started = time.monotonic()
    launch = torchrun(hung, 2, timeout=30)
    # The timeout, then at most the SIGTERM grace period before SIGKILL, and a little slack.
    assert time.monotonic() - started < 30 + GRACE_SECONDS + 10
    assert launch.finished.timed_out
    report = launch.describe()
    assert "timed out and was killed" in report
    assert "[rank0] pid" in report and "[rank1] pid" in report
    assert_all_gone(pids_in(launch.ranks_stdout()), hung)


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


@pytest.mark.slow
def test_twenty_parallel_launches_never_collide(tmp_path: Path) -> None:
    # --standalone picks a free port per launch: no fixed port, so launches (and pytest -n
    # workers) never fight over one.
    body = (
        "import sys\n"
        "total = torch.tensor([float(sys.argv[1])])\n"
        "dist.all_reduce(total)\n"
        'print(f"launch {sys.argv[1]} total {total.item():g}")\n'
    ) + SHUTDOWN
    path = script(tmp_path, body)

    def launch(index: int) -> tuple[int, object]:
        return index, torchrun(path, 2, args=[str(index)], timeout=120)

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(launch, range(20)))
    pids: set[int] = set()
    for index, result in results:
        assert result.ok, result.describe()
        for rank in (0, 1):
            assert f"launch {index} total {2 * index}\n" in result.rank_stdout[rank]
        pids |= pids_in(result.ranks_stdout())
    assert_all_gone(pids, path, expected=60)


def evaluate_only_example(page: Path) -> str:
    """The failure message of the page's single example (which must fail)."""
    document = page_sybil(page.parent).parse(page)
    (example,) = list(document.examples())
    message = example.region.evaluator(example)
    assert isinstance(message, str), "the example was expected to fail"
    return message

"""The launching page's blocks marked '% not-run: executed by tests/sheet/test_multinode.py' run
here, their output blocks checked: several nodes are several torchrun agents on this machine (the
head ``node0`` is 127.0.0.1, its port 29500 a free one); a snippet runs its docstring's command."""

import re
import shlex
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from torchsheet_harness.pages.model import Block
from torchsheet_harness.pages.page import read_page
from torchsheet_harness.run.evaluators import compare_output
from torchsheet_harness.run.process import run_command
from torchsheet_harness.run.slurm.host import free_ports
from torchsheet_harness.run.torchrun import launch_env

pytestmark = pytest.mark.torchsheet_inputs("docs/distributed/launching.md", "snippets")

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "distributed" / "launching.md"
MARKER = "executed by tests/sheet/test_multinode.py"
COMMAND = re.compile(r"(\w+=\S*\s+)*torchrun\s")
BLOCKS = [block for block in read_page(PAGE).blocks if MARKER in (block.not_run or "")]


def shell_commands(block: Block) -> list[str]:
    """Each torchrun command of the block (a snippet's: of its docstring), lines joined."""
    source = block.code.split('"""')[1] if block.kind == "literalinclude" else block.code
    joined = re.sub(r"\\\n\s*", " ", source)
    return [line.strip() for line in joined.splitlines() if COMMAND.match(line.strip())]


def argv_for(command: str, port: int) -> tuple[list[str], dict[str, str]]:
    """The page's command as run here: leading VAR=value as environment, this host as node0."""
    words = shlex.split(command)
    env = {}
    while "=" in words[0]:
        name, value = words.pop(0).split("=", 1)
        env[name] = value
    assert words[0] == "torchrun", command
    argv = [sys.executable, "-m", "torch.distributed.run"]
    for word in words[1:]:
        word = word.replace("node0:29500", f"127.0.0.1:{port}")
        word = {"node0": "127.0.0.1", "29500": str(port)}.get(word, word)
        argv.append(str(ROOT / "snippets" / word) if word.endswith(".py") else word)
    return argv, env


def test_the_page_has_marked_blocks() -> None:
    assert [len(shell_commands(block)) for block in BLOCKS] == [2, 1, 1]
    assert all(block.output is not None for block in BLOCKS), "each with its output block"


@pytest.mark.distributed
@pytest.mark.parametrize("block", BLOCKS, ids=lambda block: f"launching.md:{block.line}")
def test_page_commands(block: Block) -> None:
    commands = shell_commands(block)
    if len(commands) == 1 and "--rdzv" in commands[0]:
        commands *= 2  # the c10d block runs one command on every node: start it as two nodes
    (port,) = free_ports(1)
    with tempfile.TemporaryDirectory(prefix="torchsheet-nodes-") as workdir:

        def run(command: str):
            argv, env = argv_for(command, port)
            return run_command(argv, timeout=180, cwd=workdir, env=launch_env(0, env))

        with ThreadPoolExecutor(len(commands)) as pool:
            finished = list(pool.map(run, commands))
    failed = [run.describe() for run in finished if not run.ok]
    assert not failed, "\n".join(failed)
    if "--node-rank" in commands[0]:
        # A fixed head: the node-rank 0 agent runs group rank 0, so rank 0's table prints there.
        assert "--node-rank 0" in commands[0] and finished[0].stdout and not finished[1].stdout
    got = "".join(run.stdout for run in finished)
    problem = compare_output(block.output, got, f"docs/distributed/launching.md:{block.line}")
    assert problem is None, problem

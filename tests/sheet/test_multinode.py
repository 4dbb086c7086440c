"""Run the launching page's shell commands for real: each block marked
'% not-run: executed by tests/sheet/test_multinode.py' is executed here and its output block
checked.

Several nodes are played by several torchrun agents on this machine: the page's head node
``node0`` becomes 127.0.0.1 and its port 29500 a free port, so parallel runs never collide. A
literal-included snippet runs with the command in its docstring.
"""

from __future__ import annotations

import re
import shlex
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from torchsheet_harness.pages.page import read_page
from torchsheet_harness.run.evaluators import compare_output
from torchsheet_harness.run.process import Finished, run_command
from torchsheet_harness.run.slurm.host import free_port
from torchsheet_harness.run.torchrun import launch_env

pytestmark = pytest.mark.torchsheet_inputs(
    "docs/distributed/launching.md", "snippets"
)  # what its verdict reads (reuse key)

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "distributed" / "launching.md"
MARKER = "executed by tests/sheet/test_multinode.py"
HEAD, PORT = "node0", "29500"
TIMEOUT_SECONDS = 180.0
COMMAND = re.compile(r"(\w+=\S*\s+)*torchrun\s")


@dataclass
class PageCommands:
    """The commands of one marked block (one per node) and the output the page shows."""

    line: int
    commands: list[str]
    expected: str
    snippets: Path


def page_commands(page: Path = PAGE) -> list[PageCommands]:
    found = []
    for block in read_page(page).blocks:
        if MARKER not in (block.not_run or ""):
            continue
        output = block.output_block
        assert output is not None, f"{page.name}: a marked block must be followed by its output"
        if block.kind == "literalinclude":
            script = (page.parent / block.argument).resolve()
            source = script.read_text().split('"""')[1]
        else:
            script, source = None, str(block.source)
        snippets = script.parent if script else ROOT / "snippets"
        found.append(PageCommands(block.line, shell_commands(source), str(output.source), snippets))
    return found


def shell_commands(source: str) -> list[str]:
    """Each command of a shell snippet: continuation lines joined, comments dropped."""
    joined = re.sub(r"\\\n\s*", " ", source)
    return [line.strip() for line in joined.splitlines() if COMMAND.match(line.strip())]


def argv_for(command: str, port: int, snippets: Path) -> tuple[list[str], dict[str, str]]:
    """The page's command as run here: leading VAR=value as environment, this host as node0."""
    words = shlex.split(command)
    env = {}
    while "=" in words[0]:
        name, value = words.pop(0).split("=", 1)
        env[name] = value
    assert words[0] == "torchrun", command
    argv = [sys.executable, "-m", "torch.distributed.run"]
    for word in words[1:]:
        word = word.replace(f"{HEAD}:{PORT}", f"127.0.0.1:{port}")
        word = {HEAD: "127.0.0.1", PORT: str(port)}.get(word, word)
        if word.endswith(".py"):
            word = str(snippets / word)
        argv.append(word)
    return argv, env


def run_together(block: PageCommands) -> list[Finished]:
    """Start every command of the block at once, as on that many nodes; wait for all."""
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="torchsheet-nodes-") as workdir:

        def run(command: str) -> Finished:
            argv, env = argv_for(command, port, block.snippets)
            return run_command(argv, timeout=TIMEOUT_SECONDS, cwd=workdir, env=launch_env(0, env))

        with ThreadPoolExecutor(len(block.commands)) as pool:
            return list(pool.map(run, block.commands))


BLOCKS = page_commands()


def test_the_page_has_marked_blocks() -> None:
    assert len(BLOCKS) == 3, [block.line for block in BLOCKS]
    assert [len(block.commands) for block in BLOCKS] == [2, 1, 1]


@pytest.mark.distributed
@pytest.mark.parametrize("block", BLOCKS, ids=lambda block: f"launching.md:{block.line}")
def test_page_commands(block: PageCommands) -> None:
    # The c10d block runs one command on every node: start it twice, as two nodes.
    commands = (
        block.commands
        if len(block.commands) > 1 or "--rdzv" not in block.commands[0]
        else (block.commands * 2)
    )
    finished = run_together(PageCommands(block.line, commands, block.expected, block.snippets))
    failed = [run.describe() for run in finished if not run.ok]
    assert not failed, "\n".join(failed)
    if "--node-rank" in commands[0]:
        # A fixed head: the node-rank 0 agent runs group rank 0, so rank 0's table prints there.
        assert "--node-rank 0" in commands[0] and finished[0].stdout and not finished[1].stdout
    got = "".join(run.stdout for run in finished)
    problem = compare_output(block.expected, got, f"docs/distributed/launching.md:{block.line}")
    assert problem is None, problem


def test_commands_are_rewritten_for_this_host() -> None:
    argv, env = argv_for(
        "X=1 torchrun --rdzv-endpoint node0:29500 --master-addr node0 --master-port 29500 a.py",
        1234,
        Path("/s"),
    )
    assert env == {"X": "1"}
    assert argv[3:] == [
        "--rdzv-endpoint",
        "127.0.0.1:1234",
        "--master-addr",
        "127.0.0.1",
        "--master-port",
        "1234",
        "/s/a.py",
    ]

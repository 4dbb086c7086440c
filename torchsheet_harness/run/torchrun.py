"""Launch a script with the real ``torchrun`` CLI (``--standalone``: a free port each, so launches
run in parallel) and return every rank's output, read from its log files."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sybil import Example

from .. import launching
from ..locations import place
from . import gpu_host
from .deprecations import launch_filters, processes_failure
from .evaluators import LAUNCH_TIMEOUT_SECONDS, LaunchedBlock, padded_source
from .process import Finished, run_command


@dataclass
class Launch:
    """The outcome of one torchrun launch: the agent's own result and each rank's streams."""

    finished: Finished
    rank_stdout: dict[int, str] = field(default_factory=dict)
    rank_stderr: dict[int, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.finished.ok

    def ranks_stdout(self) -> str:
        """Every rank's stdout, rank 0 first: what the page's output block shows."""
        return "".join(self.rank_stdout[rank] for rank in sorted(self.rank_stdout))

    def describe(self) -> str:
        """A failure report: how torchrun ended, then every rank's output prefixed by its rank."""
        parts = [self.finished.describe()]
        for rank in sorted(set(self.rank_stdout) | set(self.rank_stderr)):
            for stream, texts in (("stdout", self.rank_stdout), ("stderr", self.rank_stderr)):
                text = texts.get(rank, "")
                if text:
                    lines = "".join(_prefixed(rank, line) for line in text.splitlines())
                    parts.append(f"--- rank {rank} {stream} ---\n{lines}")
        return "\n".join(parts)


def _prefixed(rank: int, line: str) -> str:
    # torch already prefixes a rank's traceback lines with '[rankN]:'; don't say it twice.
    prefix = f"[rank{rank}]"
    return f"{line}\n" if line.startswith(prefix) else f"{prefix} {line}\n"


def launch_env(gpus: int, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a launch (:func:`..launching.launch_env`: the GPUs hidden from a block
    that declares none, unless ``TORCHSHEET_GPUS_VISIBLE=1``), its ranks in GPU-host mode where
    on."""
    env = launching.launch_env(gpus == 0 and os.environ.get(gpu_host.GPUS_VISIBLE_ENV) != "1")
    env.update(extra or {})
    if gpus == 0 and gpu_host.gpu_host_mode(env):
        env["PYTHONPATH"] = gpu_host.rank_site_first(env)
    return env


def torchrun(
    script: Path,
    nproc: int,
    *,
    args: Sequence[str] = (),
    gpus: int = 0,
    timeout: float = LAUNCH_TIMEOUT_SECONDS,
    env: Mapping[str, str] | None = None,
    cwd: str | Path | None = None,
) -> Launch:
    """Run ``torchrun --standalone --nproc-per-node nproc script args`` and collect ranks."""
    with tempfile.TemporaryDirectory(prefix="torchsheet-torchrun-") as workdir:
        logs = Path(workdir) / "logs"
        argv = launching.torchrun_argv(script, nproc, logs, args)
        finished = run_command(argv, timeout=timeout, cwd=cwd or workdir, env=launch_env(gpus, env))
        launch = Launch(finished, *launching.rank_logs(logs))
    return launch


@dataclass
class TorchrunBlock(LaunchedBlock):
    """Evaluator: runs a page block or a snippets/ script under torchrun and checks its output."""

    def launch(self, example: Example, workdir: Path) -> tuple[str | None, str]:
        script = self.script
        if script is None:
            script = workdir / "block.py"
            # Pad so tracebacks give the page's line numbers.
            script.write_text(padded_source(example, self.source))
        launch = torchrun(
            script,
            self.requirement.torchrun,
            gpus=self.requirement.gpus,
            timeout=self.timeout,
            env=self.launch_env(script),
            cwd=workdir,
        )
        shown = self.script or example.path  # a block's own script is padded to its page lines

        def where_line(_: str, line: int) -> str:
            return place(shown, line)

        stderr = {f"rank {rank}": text for rank, text in sorted(launch.rank_stderr.items())}
        failed = f"{self.gpu_host_finding(launch, where_line)}\n{launch.describe()}"
        failure = processes_failure(stderr, str(script), where_line, None if launch.ok else failed)
        return failure, launch.ranks_stdout()

    def launch_env(self, script: Path) -> dict[str, str]:
        """The block's own deprecations are errors in its ranks; a block exempted with
        ``% gpu-host:`` runs as without the GPU-host mode (it shows the default on purpose)."""
        exempt = {gpu_host.GPU_HOST_ENV: "0"} if self.gpu_host is not None else {}
        return {**launch_filters(script), **exempt}

    def gpu_host_finding(self, launch: Launch, where_line: Callable[[str, int], str]) -> str:
        """What failed: a GPU-host check's finding at its page (or snippet) line, if any."""
        if self.requirement.gpus or self.gpu_host is not None or not gpu_host.gpu_host_mode():
            return "torchrun launch failed"
        found = gpu_host.finding(launch.rank_stderr.values(), where_line)
        return found or f"torchrun launch failed: {gpu_host.UNEXPLAINED}"

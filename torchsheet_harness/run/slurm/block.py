"""Run a page's batch script with ``sbatch`` on a private cluster of its own (started and stopped in
a second and a half each: no daemon outlives its block), from a copy of its ``snippets/``
neighbours, and check the job's stdout."""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from unittest import SkipTest

from sybil import Example

from ..evaluators import LaunchedBlock
from ..torchrun import launch_env
from .cluster import SlurmCluster, SlurmUnavailable
from .jobs import JOB_TIMEOUT_SECONDS


@dataclass
class SlurmBlock(LaunchedBlock):
    """Evaluator: submits a batch script (a snippet, or the block's own text) and checks it."""

    timeout: float = JOB_TIMEOUT_SECONDS
    prefix = "torchsheet-sbatch-"

    def launch(self, example: Example, workdir: Path) -> tuple[str | None, str]:
        job_script = self._stage(workdir)
        # The job inherits the torchrun launcher's environment, this Python first on PATH
        # (``torchrun`` and ``python`` in a batch script mean this interpreter's).
        env = launch_env(self.requirement.gpus)
        env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
        try:
            with SlurmCluster() as cluster:
                job = cluster.submit(job_script, cwd=workdir, env=env, timeout=self.timeout)
                logs = "" if job.ok else cluster.logs()
        except SlurmUnavailable as unavailable:
            raise SkipTest(str(unavailable)) from None
        if not job.ok:
            return f"the Slurm job failed\n{job.describe()}\n{logs}", ""
        return None, job.stdout

    def _stage(self, workdir: Path) -> Path:
        if self.script is None:
            job_script = workdir / "block.sbatch"
            job_script.write_text(str(self.source))
            return job_script
        for neighbour in self.script.parent.iterdir():
            if neighbour.is_file():
                shutil.copy(neighbour, workdir / neighbour.name)
        return workdir / self.script.name

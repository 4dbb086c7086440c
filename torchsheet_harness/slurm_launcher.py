"""Run a page's batch script with ``sbatch`` on a private Slurm cluster and check its output.

Each block gets a cluster of its own (:class:`.slurm_cluster.SlurmCluster`, started in about a
second and a half and stopped in as much), so no daemon outlives the block that needed it. The
script is submitted from a temporary directory holding a copy of its neighbours in ``snippets/``
(the Python files it starts), and the job's stdout is compared with the page's output block.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from unittest import SkipTest

from sybil import Example

from .evaluators import compare_output, where
from .page_parser import LAUNCHERS
from .requirements import Requirement
from .slurm_cluster import JOB_TIMEOUT_SECONDS, SlurmCluster, SlurmUnavailable
from .torchrun_launcher import launch_env


def job_env(gpus: int) -> dict[str, str]:
    """What the job inherits from sbatch: the torchrun launcher's, with this Python first on PATH.

    ``torchrun`` and ``python`` in a batch script then mean this interpreter's.
    """
    env = launch_env(gpus)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


@dataclass
class SlurmBlock:
    """Evaluator: submits a batch script (a snippet, or the block's own text) and checks it."""

    requirement: Requirement
    place: str
    source: str | None = None
    script: Path | None = None
    expected: str | None = None
    timeout: float = JOB_TIMEOUT_SECONDS

    def __call__(self, example: Example) -> str | None:
        with tempfile.TemporaryDirectory(prefix="torchsheet-sbatch-") as workdir:
            job_script = self._stage(Path(workdir))
            try:
                with SlurmCluster() as cluster:
                    job = cluster.submit(
                        job_script,
                        cwd=Path(workdir),
                        env=job_env(self.requirement.gpus),
                        timeout=self.timeout,
                    )
                    logs = "" if job.ok else cluster.logs()
            except SlurmUnavailable as unavailable:
                raise SkipTest(str(unavailable)) from None
        if not job.ok:
            return f"{where(example)}: the Slurm job failed\n{job.describe()}\n{logs}"
        if self.expected is not None:
            return compare_output(str(self.expected), job.stdout, where(example))
        return None

    def _stage(self, workdir: Path) -> Path:
        if self.script is None:
            job_script = workdir / "block.sbatch"
            job_script.write_text(str(self.source))
            return job_script
        for neighbour in self.script.parent.iterdir():
            if neighbour.is_file():
                shutil.copy(neighbour, workdir / neighbour.name)
        return workdir / self.script.name


LAUNCHERS["slurm"] = SlurmBlock

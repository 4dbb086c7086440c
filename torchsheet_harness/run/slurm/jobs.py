"""Batch jobs on a running cluster: submit with ``sbatch``, poll until the job ends, read output."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from ..process import Finished, run_command

JOB_TIMEOUT_SECONDS = 300.0
POLL_SECONDS = 0.25
FINAL_STATES = frozenset(
    "COMPLETED FAILED CANCELLED TIMEOUT NODE_FAIL OUT_OF_MEMORY BOOT_FAIL DEADLINE PREEMPTED"
    "".split()
)


@dataclass
class Job:
    """A finished batch job: its id, final state, exit code, output files' text and duration."""

    job_id: int
    state: str
    exit_code: str
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        return self.state == "COMPLETED" and self.exit_code == "0:0" and not self.timed_out

    def describe(self) -> str:
        how = "did not finish in time and was cancelled" if self.timed_out else "finished"
        return (
            f"job {self.job_id} {how}: State={self.state} ExitCode={self.exit_code} "
            f"after {self.seconds:.1f} s\n--- job stdout ---\n{self.stdout}"
            f"--- job stderr ---\n{self.stderr}"
        )


def submit(
    script: Path, *, cwd: Path, env: Mapping[str, str], timeout: float = JOB_TIMEOUT_SECONDS
) -> Job:
    """``sbatch`` ``script`` from ``cwd`` (``env`` names the cluster); wait, read its output."""
    began = time.monotonic()
    out, err = cwd / "slurm-%j.out", cwd / "slurm-%j.err"
    limit = max(1, int(timeout // 60) + 1)
    argv = ["sbatch", "--parsable", f"--output={out}", f"--error={err}", f"--time={limit}"]
    submitted = run_command([*argv, str(script)], timeout=30, cwd=cwd, env=env)
    if not submitted.ok:
        raise RuntimeError(f"sbatch refused {script.name}\n{submitted.describe()}")
    job_id = int(submitted.stdout.strip().split(";")[0])
    client = partial(run_command, cwd=cwd, env=env)
    state, exit_code, timed_out = wait_job(client, job_id, timeout)
    files = [Path(str(path).replace("%j", str(job_id))) for path in (out, err)]
    stdout, stderr = (file.read_text(errors="replace") if file.exists() else "" for file in files)
    return Job(job_id, state, exit_code, stdout, stderr, time.monotonic() - began, timed_out)


def job_fields(client: Callable[..., Finished], job_id: int) -> dict[str, str]:
    """``scontrol show job`` as a dict (slurmctld keeps finished jobs for MinJobAge)."""
    shown = client(["scontrol", "--oneliner", "show", "job", str(job_id)], timeout=30)
    return dict(re.findall(r"(\w+)=(\S*)", shown.stdout))


def wait_job(client: Callable[..., Finished], job_id: int, timeout: float) -> tuple[str, str, bool]:
    """(state, exit code, timed out): polled until final, cancelled after ``timeout``."""
    # sbatch --wait polls at growing intervals (tens of seconds); poll faster ourselves.
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        fields = job_fields(client, job_id)
        state = fields.get("JobState", "UNKNOWN")
        if state in FINAL_STATES:
            return state, fields.get("ExitCode", "?"), False
        time.sleep(POLL_SECONDS)
    client(["scancel", str(job_id)], timeout=30)
    fields = job_fields(client, job_id)
    return fields.get("JobState", "UNKNOWN"), fields.get("ExitCode", "?"), True

"""Run a command in its own session with a hard timeout, leaving nothing behind."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

GRACE_SECONDS = 5.0


@dataclass
class Finished:
    """What a command did: exit status (negative: killed by that signal) and its output."""

    argv: list[str]
    returncode: int
    stdout: str
    stderr: str
    timed_out: bool

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out

    def describe(self) -> str:
        """A failure report: the command, how it ended, and both streams."""
        if self.timed_out:
            how = "timed out and was killed (SIGTERM, then SIGKILL)"
        elif self.returncode < 0:
            how = f"was killed by {signal.Signals(-self.returncode).name}"
        else:
            how = f"exited with status {self.returncode}"
        return (
            f"$ {' '.join(self.argv)}\n{how}\n"
            f"--- stdout ---\n{self.stdout}--- stderr ---\n{self.stderr}"
        )


def run_command(
    argv: Sequence[str],
    *,
    timeout: float,
    cwd: str | Path | None = None,
    env: Mapping[str, str] | None = None,
) -> Finished:
    """Run ``argv`` in a new session; on timeout SIGTERM its process group, then SIGKILL."""
    proc = subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=None if env is None else dict(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    timed_out = False
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        stdout, stderr = _terminate_group(proc)
    finally:
        # Children that outlived a clean exit of the leader (daemonised workers) go too.
        _kill_group(proc.pid, signal.SIGKILL)
    return Finished(list(argv), proc.returncode, stdout, stderr, timed_out)


def _terminate_group(proc: subprocess.Popen) -> tuple[str, str]:
    _kill_group(proc.pid, signal.SIGTERM)
    try:
        return proc.communicate(timeout=GRACE_SECONDS)
    except subprocess.TimeoutExpired:
        _kill_group(proc.pid, signal.SIGKILL)
        return proc.communicate()


def _kill_group(pgid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass

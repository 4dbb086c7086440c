"""Run a command in its own session with a hard timeout, leaving nothing behind: torchrun starts
every rank in a session of its own, so a watcher records every descendant it sees (from ``/proc``),
and whatever of them is alive when the command ends is killed."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

GRACE_SECONDS = 5.0
WATCH_INTERVAL_SECONDS = 0.2
_PROC = Path("/proc")


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
    """Run ``argv`` in a new session; on timeout SIGTERM it and its descendants, then SIGKILL."""
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
    watcher = DescendantWatcher(proc.pid)
    watcher.start()
    timed_out = False
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        _signal_tree(proc.pid, watcher, signal.SIGTERM)
        try:
            stdout, stderr = proc.communicate(timeout=GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            _signal_tree(proc.pid, watcher, signal.SIGKILL)
            stdout, stderr = proc.communicate()
    finally:
        watcher.stop()
        # Children that outlived the leader (daemonised workers, ranks in their own sessions).
        # No new scan: the leader is gone, and its pid may already belong to someone else.
        _signal_tree(proc.pid, watcher, signal.SIGKILL, scan=False)
        if proc.poll() is None:  # only when communicate() itself was interrupted
            proc.kill()
            proc.wait()
    return Finished(list(argv), proc.returncode, stdout, stderr, timed_out)


class DescendantWatcher(threading.Thread):
    """Records every process descended from ``root`` while it runs, to kill leftovers later."""

    def __init__(self, root: int) -> None:
        super().__init__(daemon=True, name=f"descendants-of-{root}")
        self.root = root
        self.seen: dict[int, str] = {}  # pid -> start time, so a reused pid is never killed
        self._lock = threading.Lock()
        self._stopped = threading.Event()

    def run(self) -> None:
        while not self._stopped.wait(WATCH_INTERVAL_SECONDS):
            self.snapshot()

    def snapshot(self) -> None:
        """Add the descendants alive now to those already seen."""
        found = descendants(self.root)
        with self._lock:
            self.seen.update(found)

    def stop(self) -> None:
        self._stopped.set()
        self.join()

    def signal_all(self, sig: signal.Signals) -> None:
        """Send ``sig`` to every recorded descendant that is still the same process."""
        with self._lock:
            seen = dict(self.seen)
        for pid, started in seen.items():
            if start_time(pid) == started:
                kill(pid, sig)


def descendants(root: int) -> dict[int, str]:
    """Live descendants of ``root`` (pid -> start time), whatever session they are in."""
    children: dict[int, list[tuple[int, str]]] = {}
    for pid in pids():
        fields = _stat_fields(pid)
        if fields is not None and fields[0] != "Z":
            children.setdefault(int(fields[1]), []).append((pid, fields[19]))
    found: dict[int, str] = {}
    stack = [root]
    while stack:
        for pid, started in children.get(stack.pop(), []):
            if pid not in found:
                found[pid] = started
                stack.append(pid)
    return found


def pids() -> list[int]:
    """Every process id on this machine, from ``/proc``."""
    return [int(entry.name) for entry in _PROC.iterdir() if entry.name.isdigit()]


def _read(pid: int, *files: str) -> bytes | None:
    """The contents of /proc/<pid>/<file> for each of ``files``, joined; None when it is gone."""
    try:
        return b"".join((_PROC / str(pid) / name).read_bytes() for name in files)
    except OSError:
        return None


def _stat_fields(pid: int) -> list[str] | None:
    """Fields of /proc/<pid>/stat after the command name: state, ppid, ... (None if gone)."""
    stat = _read(pid, "stat")
    return None if stat is None else stat.decode().rsplit(")", 1)[1].split()


def start_time(pid: int) -> str | None:
    """When ``pid`` started (clock ticks after boot); None when it is gone or a zombie."""
    fields = _stat_fields(pid)
    if fields is None or fields[0] == "Z":
        return None
    return fields[19]


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie, dead but not yet reaped, counts as gone)."""
    return start_time(pid) is not None


def live_names() -> list[tuple[int, str]]:
    """(pid, command name) of every live process on this machine (zombies left out)."""
    names = ((pid, _read(pid, "comm")) for pid in pids())
    return [(pid, name.decode().strip()) for pid, name in names if name and alive(pid)]


def read_cmdline_and_environ(pid: int) -> bytes:
    """A process's command line and environment, as bytes (empty when unreadable)."""
    return _read(pid, "cmdline", "environ") or b""


def _signal_tree(pid: int, watcher: DescendantWatcher, sig: signal.Signals, scan: bool = True):
    """``sig`` to the group of ``pid`` and to every descendant seen; ``scan`` first while it runs
    (once the leader dies, its children are reparented and cannot be found)."""
    if scan:
        watcher.snapshot()
    kill(pid, sig, group=True)
    watcher.signal_all(sig)


def kill(pid: int, sig: signal.Signals = signal.SIGKILL, *, group: bool = False) -> None:
    """Signal one process (or its process group), if it still exists."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        (os.killpg if group else os.kill)(pid, sig)

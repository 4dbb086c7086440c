"""A private two-node Slurm cluster on this machine (two ``slurmd`` named after two of its names,
its own ``slurmctld`` and ``munged``, every file and port under a temporary folder), reached only
through ``SLURM_CONF``. It starts only where :func:`.host.unavailable_reason` finds nothing
against it, one at a time per machine (a file lock), and stops everything it started."""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from filelock import FileLock

from .. import process
from ..process import Finished, run_command
from . import conf, host, jobs
from .host import SlurmUnavailable

LOCK_FILE = Path(tempfile.gettempdir()) / "torchsheet-slurm-cluster.lock"
LOCK_WAIT_SECONDS = 300.0
READY_SECONDS = 60.0
STOP_SECONDS = 15.0


def wait_for(condition: Callable[[], bool], what: str, seconds: float = READY_SECONDS) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out after {seconds:.0f} s waiting for {what}")
        time.sleep(0.1)


class SlurmCluster:
    """Context manager: a private cluster started on enter and stopped, with its jobs, on exit."""

    def __init__(self, cpus_per_node: int | None = None) -> None:
        self.cpus_per_node = cpus_per_node or os.cpu_count() or 1
        self.nodes = host.node_names()
        self.root: Path | None = None
        self.daemons: list[subprocess.Popen] = []
        self._lock: contextlib.ExitStack | None = None
        self.started_seconds = 0.0
        self.stopped_seconds = 0.0

    def __enter__(self) -> SlurmCluster:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def layout(self) -> conf.Layout:
        if self.root is None:
            raise RuntimeError("the cluster is not started")
        return conf.Layout(self.root)

    def write_files(self) -> None:
        """slurm.conf (free ports), the munge key and the folders, under ``self.root``."""
        text = conf.slurm_conf(
            self.layout,
            self.nodes,
            cpus_per_node=self.cpus_per_node,
            controller_port=(ports := host.free_ports(1 + len(self.nodes)))[0],
            node_ports=ports[1:],
            name=f"torchsheet{os.getpid()}",
        )
        conf.write_files(self.layout, self.nodes, text)

    def start(self) -> None:
        """Start munged, slurmctld and one slurmd per node; return when every node is idle."""
        began = time.monotonic()
        self._lock = contextlib.ExitStack()
        try:
            try:
                self._lock.enter_context(FileLock(LOCK_FILE, timeout=LOCK_WAIT_SECONDS))
            except TimeoutError:
                raise SlurmUnavailable(
                    f"another private cluster held {LOCK_FILE} for {LOCK_WAIT_SECONDS:.0f} s"
                ) from None
            reason = host.unavailable_reason()
            if reason is not None:
                raise SlurmUnavailable(reason)
            atexit.register(self.stop)
            self.root = Path(tempfile.mkdtemp(prefix="torchsheet-slurm-"))
            self.write_files()
            layout = self.layout
            self._spawn(["munged", "--foreground", *conf.munge_options(layout)], "munged")
            wait_for(layout.munge_socket.exists, "munged to create its socket")
            self._spawn(["slurmctld", "-D", "-f", str(layout.conf)], "slurmctld")
            for node in self.nodes:
                self._spawn(["slurmd", "-D", "-f", str(layout.conf), "-N", node], f"slurmd-{node}")
            wait_for(self._all_idle, "every node to be idle")
        except BaseException:
            self.stop()
            raise
        self.started_seconds = time.monotonic() - began

    def stop(self) -> None:
        """Cancel jobs, stop the daemons (SIGTERM, then SIGKILL), kill leftovers, release."""
        if self.root is None and self._lock is None:
            return
        began = time.monotonic()
        atexit.unregister(self.stop)
        if self.daemons and all(proc.poll() is None for proc in self.daemons):
            self.run(["scancel", "--full", "--user", "root"], timeout=10)
        for proc in reversed(self.daemons):  # slurmd before slurmctld before munged
            process.kill(proc.pid, signal.SIGTERM, group=True)
            try:
                proc.wait(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:
                process.kill(proc.pid, signal.SIGKILL, group=True)
                proc.wait()
        # Step daemons finish on their own shortly after slurmd; give them a moment, then kill.
        try:
            wait_for(lambda: not self.leftover_processes(), "job steps to end", STOP_SECONDS)
        except RuntimeError:
            for pid in self.leftover_processes():
                process.kill(pid)
            wait_for(lambda: not self.leftover_processes(), "processes of the cluster to exit")
        self.daemons = []
        if self.root is not None:
            shutil.rmtree(self.root, ignore_errors=True)
            self.root = None
        if self._lock is not None:
            self._lock.close()
            self._lock = None
        self.stopped_seconds = time.monotonic() - began

    def leftover_processes(self) -> list[int]:
        """Pids started by this cluster: daemons, job steps and job processes (by SLURM_CONF)."""
        if self.root is None:
            return []
        marker = str(self.root).encode()
        # slurmstepd overwrites its command line and environment with its title; none ran
        # before this cluster started (checked), so every one running now is ours.
        found = {pid for pid, name in host.running_daemons() if name.startswith("slurmstepd")}
        for pid, _ in process.live_names():
            if pid != os.getpid() and marker in process.read_cmdline_and_environ(pid):
                found.add(pid)
        return sorted(found)

    def env(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """Environment for clients of this cluster only: no inherited SLURM_* variables."""
        env = {key: value for key, value in os.environ.items() if not key.startswith("SLURM_")}
        env["SLURM_CONF"] = str(self.layout.conf)
        env.update(extra or {})
        return env

    def run(
        self, argv: Sequence[str], *, timeout: float = 30, env: Mapping[str, str] | None = None
    ) -> Finished:
        """Run a Slurm client command against this cluster, from its directory."""
        return run_command(argv, timeout=timeout, cwd=self.root, env=self.env(env))

    def submit(
        self, script: Path, *, cwd: Path, env: Mapping[str, str] | None = None, timeout: float
    ) -> jobs.Job:
        """``sbatch`` ``script`` from ``cwd`` on this cluster, and wait (:func:`.jobs.submit`)."""
        return jobs.submit(script, cwd=cwd, env=self.env(env), timeout=timeout)

    def logs(self) -> str:
        """Every daemon log of this cluster, for failure reports."""
        if self.root is None:
            return ""
        return "\n".join(
            f"--- {log.name} ---\n{log.read_text(errors='replace')[-4000:]}"
            for log in sorted(self.layout.logs.glob("*.log"))
        )

    def _spawn(self, argv: list[str], name: str) -> None:
        with open(self.layout.logs / f"{name}.out", "wb") as log:
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=self.env(),
                start_new_session=True,
            )
        self.daemons.append(proc)

    def _all_idle(self) -> bool:
        for proc in self.daemons:
            if proc.poll() is not None:
                raise RuntimeError(f"{proc.args[0]} exited with {proc.returncode}\n{self.logs()}")
        shown = self.run(["sinfo", "--noheader", "--Node", "--format=%N %T"], timeout=10)
        states = dict(line.split() for line in shown.stdout.splitlines() if line.strip())
        return shown.ok and set(states) == set(self.nodes) and set(states.values()) == {"idle"}

"""A private two-node Slurm cluster on this machine, to run the pages' sbatch scripts for real.

Two ``slurmd`` daemons act as two nodes, named after two host names that resolve to this machine
(its host name and ``localhost``), next to a ``slurmctld`` and a ``munged`` of their own. Config,
munge key and socket, state, spool, logs, pid files and ports all live in a temporary directory;
clients (``sbatch``, ``srun``, ``scontrol``) reach this cluster only, through ``SLURM_CONF`` and
the munge socket that config names.

Safety: it starts only as root, only when no munged/slurmctld/slurmd/slurmstepd runs on the
machine (never next to a real cluster), one at a time per machine (an ``flock``), and it stops
everything it started, job processes included, then checks that nothing of it is left.
"""

from __future__ import annotations

import atexit
import fcntl
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from .process import Finished, run_command

DAEMONS = ("munged", "slurmctld", "slurmd", "slurmstepd")
BINARIES = ("munged", "slurmctld", "slurmd", "sbatch", "srun", "scontrol", "sinfo", "scancel")
LOCK_FILE = Path(tempfile.gettempdir()) / "torchsheet-slurm-cluster.lock"
LOCK_WAIT_SECONDS = 300.0
READY_SECONDS = 60.0
STOP_SECONDS = 15.0
JOB_TIMEOUT_SECONDS = 300.0
FINAL_STATES = frozenset(
    {
        "COMPLETED",
        "FAILED",
        "CANCELLED",
        "TIMEOUT",
        "NODE_FAIL",
        "OUT_OF_MEMORY",
        "BOOT_FAIL",
        "DEADLINE",
        "PREEMPTED",
    }
)


class SlurmUnavailable(RuntimeError):
    """This machine cannot host a private cluster now; the message says why."""


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


def running_daemons() -> list[tuple[int, str]]:
    """(pid, name) of every munged/slurmctld/slurmd/slurmstepd process on this machine."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            name = (entry / "comm").read_text().strip()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state != "Z" and name in DAEMONS or name.startswith("slurmstepd"):
            found.append((int(entry.name), name))
    return sorted(found)


def node_names() -> list[str]:
    """Two distinct names for this machine that resolve to a loopback address."""
    names = []
    for name in (socket.gethostname(), "localhost"):
        try:
            address = socket.gethostbyname(name)
        except OSError:
            continue
        if address.startswith("127.") and name not in names:
            names.append(name)
    return names


def unavailable_reason() -> str | None:
    """Why a private cluster cannot be started here, or None when it can."""
    missing = [name for name in BINARIES if shutil.which(name) is None]
    if missing:
        return f"needs Slurm: {', '.join(missing)} not found (the CI script installs slurm-wlm)"
    if os.geteuid() != 0:
        return "needs root to start a private Slurm cluster (slurmd runs jobs as their user)"
    if len(node_names()) < 2:
        return "needs two host names resolving to this machine (its host name and localhost)"
    daemons = running_daemons()
    if daemons:
        listed = ", ".join(f"{name} (pid {pid})" for pid, name in daemons)
        return f"Slurm or munge already runs here ({listed}); not starting a cluster next to it"
    return None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class SlurmCluster:
    """Context manager: a private cluster started on enter and stopped, with its jobs, on exit."""

    def __init__(self, cpus_per_node: int | None = None) -> None:
        self.cpus_per_node = cpus_per_node or os.cpu_count() or 1
        self.nodes = node_names()
        self.root: Path | None = None
        self.daemons: list[subprocess.Popen] = []
        self._lock: int | None = None
        self.started_seconds = 0.0
        self.stopped_seconds = 0.0

    # -- lifecycle -------------------------------------------------------------------------

    def __enter__(self) -> SlurmCluster:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def start(self) -> None:
        """Start munged, slurmctld and one slurmd per node; return when every node is idle."""
        began = time.monotonic()
        self._acquire_lock()
        try:
            reason = unavailable_reason()
            if reason is not None:
                raise SlurmUnavailable(reason)
            atexit.register(self.stop)
            self.root = Path(tempfile.mkdtemp(prefix="torchsheet-slurm-"))
            self._write_files()
            self._spawn(["munged", "--foreground", *self._munge_options()], "munged")
            self._wait(lambda: self.munge_socket.exists(), "munged to create its socket")
            self._spawn(["slurmctld", "-D", "-f", str(self.conf)], "slurmctld")
            for node in self.nodes:
                self._spawn(["slurmd", "-D", "-f", str(self.conf), "-N", node], f"slurmd-{node}")
            self._wait(self._all_idle, "every node to be idle")
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
            _signal_group(proc, signal.SIGTERM)
            try:
                proc.wait(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:
                _signal_group(proc, signal.SIGKILL)
                proc.wait()
        # Step daemons finish on their own shortly after slurmd; give them a moment, then kill.
        try:
            self._wait(lambda: not self.leftover_processes(), "job steps to end", STOP_SECONDS)
        except RuntimeError:
            for pid in self.leftover_processes():
                _kill(pid)
            self._wait(lambda: not self.leftover_processes(), "processes of the cluster to exit")
        self.daemons = []
        if self.root is not None:
            shutil.rmtree(self.root, ignore_errors=True)
            self.root = None
        self._release_lock()
        self.stopped_seconds = time.monotonic() - began

    def leftover_processes(self) -> list[int]:
        """Pids started by this cluster: daemons, job steps and job processes (by SLURM_CONF)."""
        if self.root is None:
            return []
        marker = str(self.root).encode()
        # slurmstepd overwrites its command line and environment with its title; none ran
        # before this cluster started (checked), so every one running now is ours.
        pids = [pid for pid, name in running_daemons() if name.startswith("slurmstepd")]
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or int(entry.name) == os.getpid():
                continue
            try:
                text = (entry / "cmdline").read_bytes() + (entry / "environ").read_bytes()
            except OSError:
                continue
            if marker in text and int(entry.name) not in pids:
                pids.append(int(entry.name))
        return sorted(pids)

    # -- clients ---------------------------------------------------------------------------

    @property
    def conf(self) -> Path:
        return self._path("slurm.conf")

    @property
    def munge_socket(self) -> Path:
        return self._path("munge", "munge.socket")

    def env(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """Environment for clients of this cluster only: no inherited SLURM_* variables."""
        env = {key: value for key, value in os.environ.items() if not key.startswith("SLURM_")}
        env["SLURM_CONF"] = str(self.conf)
        env.update(extra or {})
        return env

    def run(
        self, argv: Sequence[str], *, timeout: float = 30, env: Mapping[str, str] | None = None
    ) -> Finished:
        """Run a Slurm client command against this cluster, from its directory."""
        return run_command(argv, timeout=timeout, cwd=self.root, env=self.env(env))

    def submit(
        self,
        script: Path,
        *,
        cwd: Path,
        env: Mapping[str, str] | None = None,
        timeout: float = JOB_TIMEOUT_SECONDS,
    ) -> Job:
        """``sbatch`` ``script`` from ``cwd``, wait for the job to end and read its output."""
        began = time.monotonic()
        out, err = cwd / "slurm-%j.out", cwd / "slurm-%j.err"
        limit = max(1, int(timeout // 60) + 1)
        submitted = run_command(
            [
                "sbatch",
                "--parsable",
                f"--output={out}",
                f"--error={err}",
                f"--time={limit}",
                str(script),
            ],
            timeout=30,
            cwd=cwd,
            env=self.env(env),
        )
        if not submitted.ok:
            raise RuntimeError(f"sbatch refused {script.name}\n{submitted.describe()}")
        job_id = int(submitted.stdout.strip().split(";")[0])
        state, exit_code, timed_out = self._wait_job(job_id, timeout)
        out_path, err_path = (Path(str(p).replace("%j", str(job_id))) for p in (out, err))
        return Job(
            job_id,
            state,
            exit_code,
            out_path.read_text(errors="replace") if out_path.exists() else "",
            err_path.read_text(errors="replace") if err_path.exists() else "",
            time.monotonic() - began,
            timed_out,
        )

    def job_fields(self, job_id: int) -> dict[str, str]:
        """``scontrol show job`` as a dict (slurmctld keeps finished jobs for MinJobAge)."""
        shown = self.run(["scontrol", "--oneliner", "show", "job", str(job_id)])
        return dict(re.findall(r"(\w+)=(\S*)", shown.stdout))

    # -- internals -------------------------------------------------------------------------

    def _wait_job(self, job_id: int, timeout: float) -> tuple[str, str, bool]:
        # sbatch --wait polls at growing intervals (tens of seconds); poll faster ourselves.
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            fields = self.job_fields(job_id)
            state = fields.get("JobState", "UNKNOWN")
            if state in FINAL_STATES:
                return state, fields.get("ExitCode", "?"), False
            time.sleep(0.25)
        self.run(["scancel", str(job_id)])
        fields = self.job_fields(job_id)
        return fields.get("JobState", "UNKNOWN"), fields.get("ExitCode", "?"), True

    def _path(self, *parts: str) -> Path:
        if self.root is None:
            raise RuntimeError("the cluster is not started")
        return self.root.joinpath(*parts)

    def _munge_options(self) -> list[str]:
        return [
            f"--socket={self.munge_socket}",
            f"--key-file={self._path('munge', 'munge.key')}",
            f"--pid-file={self._path('munge', 'munged.pid')}",
            f"--log-file={self._path('log', 'munged.log')}",
            f"--seed-file={self._path('munge', 'munged.seed')}",
        ]

    def _write_files(self) -> None:
        root = self._path()
        for sub in ("munge", "log", "state", *(f"spool/{node}" for node in self.nodes)):
            (root / sub).mkdir(parents=True)
        # munged wants its socket directory traversable by all and its key readable by it only.
        for directory in (root, root / "munge"):
            directory.chmod(0o755)
        key = root / "munge" / "munge.key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o600)
        self.conf.write_text(self._slurm_conf())

    def _slurm_conf(self) -> str:
        root = self._path()
        lines = [
            f"ClusterName=torchsheet{os.getpid()}",
            f"SlurmctldHost={self.nodes[0]}(127.0.0.1)",
            f"SlurmctldPort={free_port()}",
            "SlurmUser=root",
            "SlurmdUser=root",
            "AuthType=auth/munge",
            "CredType=cred/munge",
            f"AuthInfo=socket={self.munge_socket}",
            f"StateSaveLocation={root}/state",
            f"SlurmdSpoolDir={root}/spool/%n",
            f"SlurmctldPidFile={root}/log/slurmctld.pid",
            f"SlurmdPidFile={root}/log/slurmd-%n.pid",
            f"SlurmctldLogFile={root}/log/slurmctld.log",
            f"SlurmdLogFile={root}/log/slurmd-%n.log",
            # No cgroups: linuxproc tracks job processes by parentage, task/none binds nothing.
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "JobAcctGatherType=jobacct_gather/none",
            "AccountingStorageType=accounting_storage/none",
            "JobCompType=jobcomp/none",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_Core",
            "SchedulerType=sched/backfill",
            "MpiDefault=none",
            "MailProg=/bin/true",
            "ReturnToService=2",
            # Both nodes are this machine: take the CPUs from this config, not the hardware.
            "SlurmdParameters=config_overrides",
        ]
        for node in self.nodes:
            lines.append(
                f"NodeName={node} NodeAddr=127.0.0.1 Port={free_port()} "
                f"CPUs={self.cpus_per_node} State=UNKNOWN"
            )
        lines.append("PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP")
        return "\n".join(lines) + "\n"

    def _spawn(self, argv: list[str], name: str) -> None:
        log = open(self._path("log", f"{name}.out"), "wb")  # noqa: SIM115 (kept by the child)
        with log:
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

    def logs(self) -> str:
        """Every daemon log of this cluster, for failure reports."""
        if self.root is None:
            return ""
        return "\n".join(
            f"--- {log.name} ---\n{log.read_text(errors='replace')[-4000:]}"
            for log in sorted(self._path("log").glob("*.log"))
        )

    def _wait(self, condition, what: str, seconds: float = READY_SECONDS) -> None:
        deadline = time.monotonic() + seconds
        while not condition():
            if time.monotonic() > deadline:
                raise RuntimeError(f"timed out after {seconds:.0f} s waiting for {what}")
            time.sleep(0.1)

    def _acquire_lock(self) -> None:
        self._lock = os.open(LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = time.monotonic() + LOCK_WAIT_SECONDS
        while True:
            try:
                fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() > deadline:
                    self._release_lock()
                    raise SlurmUnavailable(
                        f"another private cluster held {LOCK_FILE} for {LOCK_WAIT_SECONDS:.0f} s"
                    ) from None
                time.sleep(0.2)

    def _release_lock(self) -> None:
        if self._lock is not None:
            os.close(self._lock)  # closing drops the flock
            self._lock = None


def _signal_group(proc: subprocess.Popen, sig: signal.Signals) -> None:
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass

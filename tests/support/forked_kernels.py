"""Fresh IPython kernels in a fraction of a second: :class:`KernelZygote` is a process that
imported torch, NumPy and ipykernel once and forks a new kernel process for each notebook;
:func:`forked_kernel_manager` gives nbclient a kernel manager whose kernels it forks.

Why: a kernel started the usual way spends about 2.5 CPU-seconds starting and importing torch,
which for 70 notebooks would cost more than the notebook check may add to a leg. A forked kernel
is a new process with a new kernel and an empty namespace; what it shares with its zygote is only
modules already imported, before any of them ran (no torch op ran: no thread pool exists to fork).
Python's and NumPy's generators are reseeded from fresh entropy in each, as a new interpreter
seeds them; torch's default generator keeps its fixed start-up seed, as in a new interpreter.

The zygote also imports ``torch._dynamo``, which torch imports on first use (an optimizer's first
step, a meta tensor, ``torch.compile``: 1 to 6 s in each kernel that needs it; the page run pays
it once per worker). Tracebacks are formatted ``Minimal`` (the test reads only an error's class
and message; formatting the default context costs 40-190 ms an error cell). And output written
to the file descriptors directly, not to ``sys.stdout`` (C++ logs), is not captured: ipykernel
forwards it from a thread, into whichever cell runs when it arrives, and the page run, as a
prompt, does not see it either (deployment.md shows such a log from a fresh process)."""

import os
import signal
import subprocess
import sys
import uuid

from jupyter_client.manager import KernelManager
from jupyter_client.provisioning.local_provisioner import LocalProvisioner

ZYGOTE = r"""
import os, random, signal, sys
import numpy, torch
import torch._dynamo
from ipykernel.kernelapp import IPKernelApp
signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # its kernels are reaped as they end
print("ready", flush=True)
for request in sys.stdin:
    connection_file, cwd = request.rstrip("\n").split("\t")
    pid = os.fork()
    if pid:
        print(pid, flush=True)
        continue
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    os.setsid()
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.chdir(cwd)
    random.seed()
    numpy.random.seed()
    try:
        IPKernelApp.launch_instance(
            argv=[
                "-f", connection_file, "--HistoryManager.hist_file=:memory:",
                "--InteractiveShell.xmode=Minimal", "--IPKernelApp.capture_fd_output=False",
            ]
        )
    finally:
        os._exit(0)
"""


class KernelZygote:
    """The process that forks kernels: :meth:`fork` one, :meth:`close` when done."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", ZYGOTE],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        if self.process.stdout.readline().strip() != "ready":
            raise RuntimeError("the kernel zygote did not start")
        self.kernels: list[int] = []

    def fork(self, connection_file: str, cwd: str) -> int:
        """Start a kernel on ``connection_file`` in ``cwd``: its pid."""
        self.process.stdin.write(f"{connection_file}\t{cwd}\n")
        self.process.stdin.flush()
        self.kernels.append(int(self.process.stdout.readline()))
        return self.kernels[-1]

    def close(self) -> None:
        """End the zygote, and any kernel of its still running (none outlives the tests)."""
        for pid in self.kernels:
            _Forked(pid).kill()
        self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


class _Forked:
    """What the provisioner asks of its process, for a kernel another process forked."""

    stdin = stdout = stderr = None  # the zygote's, not ours

    def __init__(self, pid: int) -> None:
        self.pid = pid

    def poll(self) -> int | None:
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return 0
        return None

    def wait(self, timeout: float | None = None) -> int:  # noqa: ARG002
        return 0  # called once poll() found it ended: the zygote reaped it

    def send_signal(self, signum: int) -> None:
        try:
            os.kill(self.pid, signum)
        except ProcessLookupError:
            pass

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)


class ForkedProvisioner(LocalProvisioner):
    """The local provisioner, its kernel forked by the zygote instead of started."""

    zygote: KernelZygote | None = None

    async def launch_kernel(self, cmd: list[str], **kwargs):  # noqa: ANN003, ANN201
        cwd = str(kwargs.get("cwd") or os.getcwd())
        pid = self.zygote.fork(cmd[cmd.index("-f") + 1], cwd)
        self.process, self.pid, self.pgid, self.cwd = _Forked(pid), pid, pid, cwd
        return self.connection_info


def forked_kernel_manager(zygote: KernelZygote) -> KernelManager:
    """A kernel manager for nbclient whose kernel ``zygote`` forks."""
    manager = KernelManager(kernel_name="python3")
    manager.kernel_id = str(uuid.uuid4())
    provisioner = ForkedProvisioner(
        kernel_id=manager.kernel_id, kernel_spec=manager.kernel_spec, parent=manager
    )
    provisioner.zygote = zygote
    manager.provisioner = provisioner
    return manager

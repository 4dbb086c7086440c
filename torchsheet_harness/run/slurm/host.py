"""This machine as a host for the private Slurm cluster: may one start here (programs, root, two
host names, no Slurm or munge daemon already running), and with what names."""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import socket
from pathlib import Path

from .. import process

DAEMONS = ("munged", "slurmctld", "slurmd", "slurmstepd")
BINARIES = ("munged", "slurmctld", "slurmd", "sbatch", "srun", "scontrol", "sinfo", "scancel")


class SlurmUnavailable(RuntimeError):
    """This machine cannot host a private cluster now; the message says why."""


def running_daemons() -> list[tuple[int, str]]:
    """(pid, name) of every live munged/slurmctld/slurmd/slurmstepd process on this machine."""
    return sorted(
        (pid, name)
        for pid, name in process.live_names()
        if name in DAEMONS or name.startswith("slurmstepd")
    )


def node_names() -> list[str]:
    """Two distinct names for this machine that resolve to a loopback address."""
    names = []
    for name in (socket.gethostname(), "localhost"):
        with contextlib.suppress(OSError):
            if socket.gethostbyname(name).startswith("127.") and name not in names:
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


def free_ports(count: int) -> list[int]:
    """Distinct TCP ports free on the loopback address now, below the kernel's ephemeral range:
    no outgoing connection takes one before its daemon binds it ("Address already in use")."""
    low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    ports: list[int] = []
    candidates = range(min(20000, low // 2), low)
    for port in random.Random().sample(candidates, len(candidates)):
        with socket.socket() as probe, contextlib.suppress(OSError):
            probe.bind(("127.0.0.1", port))
            ports.append(port)
        if len(ports) == count:
            return ports
    raise RuntimeError(f"no {count} free ports below {low}")

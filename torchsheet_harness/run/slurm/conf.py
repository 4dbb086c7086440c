"""The private cluster's files as pure functions of its folder, nodes and ports."""

from __future__ import annotations

import os
from pathlib import Path


class Layout:
    """Where the files of a cluster rooted at ``root`` are."""

    def __init__(self, root: Path) -> None:
        self.root, self.conf, self.logs = root, root / "slurm.conf", root / "log"
        self.munge = root / "munge"
        self.munge_socket, self.munge_key = self.munge / "munge.socket", self.munge / "munge.key"


def munge_options(layout: Layout) -> list[str]:
    """``munged`` options that keep its socket, key, pid, log and seed under the root."""
    munge = layout.munge
    return [
        f"--socket={layout.munge_socket}",
        f"--key-file={layout.munge_key}",
        f"--pid-file={munge / 'munged.pid'}",
        f"--log-file={layout.logs / 'munged.log'}",
        f"--seed-file={munge / 'munged.seed'}",
    ]


def slurm_conf(
    layout: Layout,
    nodes: list[str],
    *,
    cpus_per_node: int,
    controller_port: int,
    node_ports: list[int],
    name: str,
) -> str:
    """slurm.conf for a cluster of ``nodes`` (all this machine) with its files under the root."""
    root = layout.root
    lines = [
        f"ClusterName={name}",
        f"SlurmctldHost={nodes[0]}(127.0.0.1)",
        f"SlurmctldPort={controller_port}",
        "SlurmUser=root",
        "SlurmdUser=root",
        "AuthType=auth/munge",
        "CredType=cred/munge",
        f"AuthInfo=socket={layout.munge_socket}",
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
    for node, port in zip(nodes, node_ports, strict=True):
        lines.append(
            f"NodeName={node} NodeAddr=127.0.0.1 Port={port} CPUs={cpus_per_node} State=UNKNOWN"
        )
    lines.append("PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP")
    return "\n".join(lines) + "\n"


def write_files(layout: Layout, nodes: list[str], conf: str) -> None:
    """Create the folders, a private munge key and slurm.conf under the root."""
    root = layout.root
    for sub in ("munge", "log", "state", *(f"spool/{node}" for node in nodes)):
        (root / sub).mkdir(parents=True)
    # munged wants its socket directory traversable by all and its key readable by it only.
    for directory in (root, root / "munge"):
        directory.chmod(0o755)
    layout.munge_key.write_bytes(os.urandom(1024))
    layout.munge_key.chmod(0o600)
    layout.conf.write_text(conf)

"""The private Slurm cluster is safe: its own files and ports, no real cluster, nothing left.
Only ``test_stop_leaves_nothing`` starts daemons (root, Debian's slurm-wlm and munge)."""

import fcntl
import os
import re
import time
from pathlib import Path
from unittest import SkipTest

import pytest

from torchsheet_harness.pages.requirements import Requirement
from torchsheet_harness.run import process
from torchsheet_harness.run.process import alive
from torchsheet_harness.run.slurm import cluster as slurm_cluster
from torchsheet_harness.run.slurm import host as slurm_host
from torchsheet_harness.run.slurm.block import SlurmBlock
from torchsheet_harness.run.slurm.cluster import SlurmCluster, SlurmUnavailable
from torchsheet_harness.run.slurm.conf import Layout, munge_options, slurm_conf


@pytest.fixture
def written(tmp_path: Path) -> SlurmCluster:
    """A cluster whose files are written under tmp_path, with no daemon started."""
    cluster = SlurmCluster(cpus_per_node=2)
    cluster.nodes, cluster.root = ["node-a", "node-b"], tmp_path
    cluster.write_files()
    yield cluster
    cluster.root = None


def test_its_files_ports_and_key_are_its_own(written: SlurmCluster) -> None:
    conf = written.layout.conf.read_text()
    for key in "StateSaveLocation SlurmdSpoolDir SlurmctldPidFile SlurmdPidFile".split() + [
        "SlurmctldLogFile", "SlurmdLogFile"
    ]:  # fmt: skip
        value = re.search(rf"^{key}=(\S+)$", conf, re.MULTILINE)[1]
        assert value.startswith(f"{written.root}/"), (key, value)
    assert f"AuthInfo=socket={written.layout.munge_socket}" in conf
    assert re.search(r"^ClusterName=torchsheet\d+$", conf, re.MULTILINE)
    for line in (
        "ProctrackType=proctrack/linuxproc",
        "TaskPlugin=task/none",
        "SelectType=select/cons_tres",
        "AccountingStorageType=accounting_storage/none",
    ):
        assert line in conf.splitlines()
    assert "cgroup" not in conf and conf.count("NodeName=") == 2 and "CPUs=2" in conf
    ports = [int(port) for port in re.findall(r"(?:SlurmctldPort|Port)=(\d+)", conf)]
    assert len(set(ports)) == len(ports) == 3
    assert 6817 not in ports and 6818 not in ports  # Slurm's defaults, a real cluster's
    low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    assert max(ports) < low  # never handed to an outgoing connection before slurmd binds it
    key = written.root / "munge" / "munge.key"
    assert (key.stat().st_mode & 0o777, key.stat().st_size) == (0o600, 1024)


def test_clients_reach_only_this_cluster(
    written: SlurmCluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As if pytest itself ran inside a job of a real cluster.
    monkeypatch.setenv("SLURM_CONF", "/etc/slurm/slurm.conf")
    monkeypatch.setenv("SLURM_JOB_ID", "4242")
    env = written.env({"EXTRA": "1"})
    assert env["SLURM_CONF"] == str(written.layout.conf)
    assert "SLURM_JOB_ID" not in env and env["EXTRA"] == "1"


def test_conf_and_munge_options_are_pure_functions_of_the_folder() -> None:
    layout = Layout(Path("/x/cluster"))
    args = (layout, ["a", "b"])
    kwargs = dict(cpus_per_node=3, controller_port=7001, node_ports=[7002, 7003], name="t")
    text = slurm_conf(*args, **kwargs)
    assert text == slurm_conf(*args, **kwargs)
    lines = text.splitlines()
    assert "SlurmctldHost=a(127.0.0.1)" in lines and "SlurmctldPort=7001" in lines
    assert "NodeName=b NodeAddr=127.0.0.1 Port=7003 CPUs=3 State=UNKNOWN" in lines
    assert "AuthInfo=socket=/x/cluster/munge/munge.socket" in lines
    options = munge_options(layout)
    assert all(option.split("=", 1)[1].startswith("/x/cluster/") for option in options)
    assert "--socket=/x/cluster/munge/munge.socket" in options


@pytest.mark.parametrize(
    ("which", "euid", "reason"),
    [(lambda name: f"/usr/bin/{name}", 1000, "needs root"), (lambda name: None, 0, "slurm-wlm")],
    ids=["not root", "no binaries"],
)
def test_a_host_it_cannot_use_is_a_reason(monkeypatch, which, euid: int, reason: str) -> None:
    monkeypatch.setattr(slurm_host.shutil, "which", which)
    monkeypatch.setattr(slurm_host.os, "geteuid", lambda: euid)
    assert reason in slurm_host.unavailable_reason()


def test_refuses_next_to_running_daemons(monkeypatch: pytest.MonkeyPatch) -> None:
    if os.geteuid() != 0:
        pytest.skip("the daemon check comes after the root check")
    monkeypatch.setattr(slurm_host.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(slurm_host, "running_daemons", lambda: [(4321, "slurmctld")])
    assert "slurmctld (pid 4321)" in slurm_host.unavailable_reason()
    cluster = SlurmCluster()
    with pytest.raises(SlurmUnavailable, match="already runs here"):
        cluster.start()
    assert cluster.root is None and cluster.daemons == [] and cluster._lock is None


def test_a_zombie_step_daemon_is_not_a_running_daemon(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    processes = {10: ("slurmstepd", "Z"), 11: ("slurmd", "S"), 12: ("munged", "Z")}
    for pid, (name, state) in {**processes, 13: ("slurmstepd", "S"), 14: ("bash", "R")}.items():
        (tmp_path / str(pid)).mkdir()
        (tmp_path / str(pid) / "comm").write_text(f"{name}\n")
        fields = [state, "1", *["0"] * 17, str(1000 + pid)]  # state, ppid, ..., start time
        (tmp_path / str(pid) / "stat").write_text(f"{pid} ({name}) {' '.join(fields)}\n")
    monkeypatch.setattr(process, "_PROC", tmp_path)
    assert slurm_host.running_daemons() == [(11, "slurmd"), (13, "slurmstepd")]


def test_one_cluster_at_a_time(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    lock = tmp_path / "cluster.lock"
    monkeypatch.setattr(slurm_cluster, "LOCK_FILE", lock)
    monkeypatch.setattr(slurm_cluster, "LOCK_WAIT_SECONDS", 0.3)
    holder = os.open(lock, os.O_RDWR | os.O_CREAT)
    fcntl.flock(holder, fcntl.LOCK_EX)  # as another pytest worker's cluster would
    try:
        with pytest.raises(SlurmUnavailable, match="another private cluster"):
            SlurmCluster().start()
    finally:
        os.close(holder)


def test_block_is_skipped_with_the_reason(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def refuse(self: SlurmCluster) -> None:
        raise SlurmUnavailable("Slurm or munge already runs here (slurmd (pid 1))")

    monkeypatch.setattr(SlurmCluster, "start", refuse)
    block = SlurmBlock(Requirement(slurm=True), source="#!/bin/bash\necho hi\n")
    with pytest.raises(SkipTest, match="already runs here"):
        block.launch(None, tmp_path)


@pytest.mark.slurm
def test_stop_leaves_nothing(tmp_path: Path) -> None:
    """A job still running at stop is killed; no daemon, step or job process of ours is left."""
    reason = slurm_host.unavailable_reason()
    if reason is not None:
        pytest.skip(reason)
    script = tmp_path / "sleeper.sbatch"
    script.write_text(f"#!/bin/bash\necho $$ > {tmp_path}/job.pid\nsleep 600\n")
    seen: set[int] = set()
    with SlurmCluster() as cluster:
        root = cluster.root
        submitted = cluster.run(
            ["sbatch", "--parsable", f"--output={tmp_path}/slurm-%j.out", str(script)]
        )
        assert submitted.ok, submitted.describe()
        deadline = time.monotonic() + 30
        while not (tmp_path / "job.pid").exists():
            assert time.monotonic() < deadline, cluster.logs()
            time.sleep(0.1)
        seen.update(proc.pid for proc in cluster.daemons)
        seen.update(cluster.leftover_processes())
        seen.add(int((tmp_path / "job.pid").read_text()))
    left = [pid for pid in seen if alive(pid)]
    assert left == [], f"left running after stop: {left}"
    assert not root.exists()
    assert cluster.started_seconds < 30 and cluster.stopped_seconds < 30

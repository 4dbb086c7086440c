"""How a launched block runs, in one place: the ``torchrun`` command line, the environment and
the ranks' outputs of a launch, and a script run as ``python script.py``. The harness's launchers
(:mod:`.run.torchrun`, :mod:`.run.evaluators`) build their commands here, and a notebook's launch
cells call :func:`torchrun` and :func:`python_script`: its helper cell is this file's source, so
the notebook launches exactly as the tests do. Standard library only."""

import os
import shutil
import subprocess
import sys
from pathlib import Path


def torchrun_argv(script, nproc, log_dir, args=()):  # noqa: ANN001, ANN201
    """The command: the real torchrun, a free port (``--standalone``), each rank's streams in
    its own log files under ``log_dir``."""
    argv = [sys.executable, "-m", "torch.distributed.run", "--standalone"]
    argv += ["--nproc-per-node", str(nproc), "--log-dir", str(log_dir), "--redirects", "3"]
    return [*argv, str(script), *args]


def script_argv(script):  # noqa: ANN001, ANN201
    """The command of a script a reader runs as ``python script.py``."""
    return [sys.executable, str(script)]


def launch_env(hide_gpus, base=None):  # noqa: ANN001, ANN201
    """The environment of a launch: gloo on loopback, one thread a rank, unbuffered output; a
    block that declares no GPU sees none (``hide_gpus``: it runs on gloo, as on CPU)."""
    env = dict(os.environ if base is None else base)
    env.setdefault("GLOO_SOCKET_IFNAME", "lo")
    env.setdefault("OMP_NUM_THREADS", "1")
    env["PYTHONUNBUFFERED"] = "1"
    if hide_gpus:
        env["CUDA_VISIBLE_DEVICES"] = ""
    return env


def rank_logs(log_dir):  # noqa: ANN001, ANN201
    """({rank: stdout}, {rank: stderr}) of a launch, every attempt's logs in order."""
    stdout, stderr = {}, {}
    for log in sorted(Path(log_dir).glob("*/attempt_*/*/std*.log")):
        rank = int(log.parent.name)
        target = stdout if log.name == "stdout.log" else stderr
        target[rank] = target.get(rank, "") + log.read_text(errors="replace")
    return stdout, stderr


def torchrun(script, nproc, gpus=0):  # noqa: ANN001, ANN201
    """Launch ``script`` with ``nproc`` ranks as the tests do; print every rank's output, rank 0
    first (what the page shows); raise with every rank's errors when the launch fails."""
    log_dir = Path(f"{Path(script).stem}-logs")
    shutil.rmtree(log_dir, ignore_errors=True)
    argv = torchrun_argv(script, nproc, log_dir)
    done = subprocess.run(argv, env=launch_env(gpus == 0), capture_output=True, text=True)
    stdout, stderr = rank_logs(log_dir)
    print("".join(stdout[rank] for rank in sorted(stdout)), end="")
    if done.returncode:
        ranks = "".join(f"--- rank {rank} ---\n{stderr[rank]}" for rank in sorted(stderr))
        raise RuntimeError(f"torchrun exited with {done.returncode}\n{done.stderr}{ranks}")


def python_script(script):  # noqa: ANN001, ANN201
    """Run ``script`` as ``python script.py`` in a process of its own; print what it prints."""
    done = subprocess.run(script_argv(script), capture_output=True, text=True)
    print(done.stdout, end="")
    if done.returncode:
        raise RuntimeError(f"{script} exited with {done.returncode}\n{done.stderr}")

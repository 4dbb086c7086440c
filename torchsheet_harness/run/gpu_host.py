"""GPU-host mode, the launcher's side: CPU torchrun blocks run as on a machine whose accelerator is
CUDA (:mod:`.gpu_host_rank` in each rank), and the failure read back from the ranks' stderr. The
mode and ``TORCHSHEET_GPUS_VISIBLE``: MAINTAINING.md, "torchrun and Slurm blocks"."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from .gpu_host_rank import GPU_HOST_ENV, MARK

GPUS_VISIBLE_ENV = "TORCHSHEET_GPUS_VISIBLE"
#: The start-up hook of every launched block's processes, first on their ``PYTHONPATH``.
SITE_DIR = Path(__file__).resolve().parent / "rank_site"
_FINDING = re.compile(rf"{MARK}(?: \[at (?P<file>[^:\]]+):(?P<line>\d+)\])?: (?P<message>.*)")


def gpu_host_mode(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether CPU launches run as on a GPU host (``TORCHSHEET_GPU_HOST=1``)."""
    return environ.get(GPU_HOST_ENV) == "1"


def gpus_visible(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether CPU launches keep the machine's GPUs visible (``TORCHSHEET_GPUS_VISIBLE=1``)."""
    return environ.get(GPUS_VISIBLE_ENV) == "1"


def rank_env(env: dict[str, str]) -> dict[str, str]:
    """``env`` with the ranks' start-up hook first on their ``PYTHONPATH``, in GPU-host mode."""
    return {**env, "PYTHONPATH": rank_site_first(env), GPU_HOST_ENV: "1"}


def rank_site_first(env: Mapping[str, str]) -> str:
    """``env``'s ``PYTHONPATH`` with the start-up hook (:data:`SITE_DIR`) first, once."""
    rest = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and p != str(SITE_DIR)]
    return os.pathsep.join([str(SITE_DIR), *rest])


def finding(rank_streams: Iterable[str], where_line) -> str | None:  # noqa: ANN001
    """The first check a rank reported, as 'GPU-host check at page:line: what a GPU host does'
    (``where_line(file, line)`` turns the rank's script and line into a place)."""
    for text in rank_streams:
        for line in text.splitlines():
            match = _FINDING.search(line)
            if match is None:
                continue
            at = ""
            if match["line"]:
                at = f" at {where_line(match['file'], int(match['line']))}"
            return f"GPU-host check{at}: {match['message']}"
    return None


UNEXPLAINED = (
    "fails in GPU-host mode (torch reports CUDA as this machine's accelerator, with fewer GPUs "
    "than local ranks) and passes with the GPUs hidden: somewhere it leans on the machine's "
    "device; name the backend and the device"
)

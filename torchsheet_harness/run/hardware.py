"""What this machine has for a block's requirement, and :func:`unmet_reason`: why it cannot run
the block here (the skip reason, generated from the requirement, never written by hand)."""

from __future__ import annotations

import shutil
from functools import cache

from ..pages.requirements import Requirement


@cache
def cuda_device_count() -> int:
    """CUDA GPUs visible to this process (0 when torch has no CUDA)."""
    import torch

    return torch.cuda.device_count() if torch.cuda.is_available() else 0


def unmet_reason(requirement: Requirement) -> str | None:
    """Why this machine cannot run a block that needs ``requirement``, or None when it can."""
    if requirement.gpus:
        found = cuda_device_count()
        if found < requirement.gpus:
            if requirement.gpus == 1:
                return f"needs CUDA, found {found} CUDA GPUs"
            return f"needs {requirement.gpus} CUDA GPUs, found {found}"
    if requirement.no_gpu and (found := cuda_device_count()):
        return f"holds only without a CUDA GPU; found {found}"
    if requirement.slurm and shutil.which("sbatch") is None:
        return "needs Slurm: sbatch not found (the CI script installs slurm-wlm)"
    return None

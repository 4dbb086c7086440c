"""What a run runs on: :func:`current` names its results file, :func:`fingerprint` adds what else
can change an output (builds, every installed distribution), for ``--torchsheet-reuse``."""

from __future__ import annotations

import hashlib
import json
import platform
import sys
from collections import Counter
from importlib import metadata

from .results import Environment, environment_key

# Where distributions are looked up: the import path as the harness was loaded. Pages extend it
# as they run (importing setuptools adds its vendored packages), which is no change of the
# environment.
_IMPORT_PATH = list(sys.path)


def current() -> Environment:
    """This process's torch, CUDA build, device and Python."""
    import torch

    from .run.hardware import cuda_device_count

    gpus = cuda_device_count()
    found = Environment(
        torch=torch.__version__,
        cuda=torch.version.cuda,
        device=torch.cuda.get_device_name(0) if gpus else "CPU",
        gpus=gpus,
        python=platform.python_version(),
    )
    return Environment(**found, key=environment_key(found))


def fingerprint(environment: Environment) -> str:
    """sha256 of ``environment``, torch's build, Python's build and the installed versions."""
    import torch

    installed = metadata.distributions(path=_IMPORT_PATH)
    parts = {
        "environment": {k: v for k, v in sorted(environment.items()) if k != "key"},
        "torch_build": torch.version.git_version,
        "python_build": [sys.version, platform.python_implementation(), sys.platform],
        "distributions": sorted(
            {f"{(d.metadata['Name'] or '').lower()}=={d.version}" for d in installed}
        ),
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def gpu_run_refusal(environment: Environment, outcomes: Counter[str] | None = None) -> str | None:
    """Why a run meant to test CUDA blocks tested nothing, or None; ``outcomes``: the selected
    blocks' outcomes, or None before the run (only the machine is checked then)."""
    if not environment.get("cuda"):
        return (
            f"torch {environment.get('torch')} is a CPU build: install a CUDA build of torch "
            "(e.g. TORCH_SPEC=torch==2.13.0 from PyPI on Linux, without the CPU index)"
        )
    if not environment.get("gpus"):
        return (
            f"no CUDA device visible (torch {environment.get('torch')}, CUDA "
            f"{environment.get('cuda')}): check the driver and CUDA_VISIBLE_DEVICES"
        )
    if outcomes is None:
        return None
    ran = sum(count for outcome, count in outcomes.items() if outcome != "skipped")
    if not ran:
        return f"every selected block was skipped ({outcomes.get('skipped', 0)} skipped, none ran)"
    return None

"""Start every page as a fresh ``python`` prompt starts (a fresh ``__main__``, generators seeded
from fresh entropy, default print options, an empty working directory), and after it restore
every global torch state a page may change, so one page cannot change another page's output."""

from __future__ import annotations

import builtins
import gc
import importlib.machinery
import os
import random
import shutil
import sys
import tempfile
from typing import Any

import numpy as np
import torch

#: The global state each page's namespace had before it ran, by the namespace's id.
_SAVED: dict[int, dict[str, Any]] = {}
#: What a fresh prompt's ``__main__`` holds.
FRESH_MAIN = {
    "__name__": "__main__",
    "__doc__": None,
    "__package__": None,
    "__loader__": importlib.machinery.BuiltinImporter,
    "__spec__": None,
}


def reset_print_options() -> None:
    """Torch's and NumPy's default print options, set explicitly."""
    torch.set_printoptions(profile="default", sci_mode=None)
    np.set_printoptions(
        precision=8, threshold=1000, edgeitems=3, linewidth=75, suppress=False, legacy=False
    )


def _default_device() -> torch.device | None:
    """The device ``torch.set_default_device`` set, or None: ``torch.get_default_device()`` says
    'cpu' when none is, and setting 'cpu' back installs a TorchFunctionMode that changes what later
    pages see (torch.compile traces ``x * 2`` as a method call under it)."""
    context = getattr(torch._GLOBAL_DEVICE_CONTEXT, "device_context", None)
    return None if context is None else context.device


def capture_global_state() -> dict[str, Any]:
    """Everything process-wide a page can change, read so it can be put back."""
    state: dict[str, Any] = {
        "cwd": os.getcwd(),
        "default_dtype": torch.get_default_dtype(),
        "default_device": _default_device(),
        "safe_globals": torch.serialization.get_safe_globals(),
        "grad_enabled": torch.is_grad_enabled(),
        "deterministic": torch.are_deterministic_algorithms_enabled(),
        "deterministic_warn_only": torch.is_deterministic_algorithms_warn_only_enabled(),
        "anomaly": torch.is_anomaly_enabled(),
        "warn_always": torch.is_warn_always_enabled(),
        "num_threads": torch.get_num_threads(),
        "matmul_precision": torch.get_float32_matmul_precision(),
        "cudnn_deterministic": torch.backends.cudnn.deterministic,
        "cudnn_benchmark": torch.backends.cudnn.benchmark,
        "torch_rng": torch.get_rng_state(),
        "python_rng": random.getstate(),
        "numpy_rng": np.random.get_state(),
        "environ": dict(os.environ),
    }
    if torch.cuda.is_available():
        state["cuda_tf32"] = torch.backends.cuda.matmul.allow_tf32
    return state


def restore_global_state(state: dict[str, Any]) -> None:
    """Put back what :func:`capture_global_state` read."""
    os.chdir(state["cwd"])
    torch.set_default_dtype(state["default_dtype"])
    torch.set_default_device(state["default_device"])
    torch.serialization.clear_safe_globals()
    torch.serialization.add_safe_globals(state["safe_globals"])
    torch.set_grad_enabled(state["grad_enabled"])
    deterministic = (state["deterministic"], state["deterministic_warn_only"])
    if deterministic != (
        torch.are_deterministic_algorithms_enabled(),
        torch.is_deterministic_algorithms_warn_only_enabled(),
    ):  # (setting it imports torch._dynamo and torch._inductor: seconds, once a process)
        torch.use_deterministic_algorithms(deterministic[0], warn_only=deterministic[1])
    torch.autograd.set_detect_anomaly(state["anomaly"])
    torch.set_warn_always(state["warn_always"])
    torch.set_num_threads(state["num_threads"])
    torch.set_float32_matmul_precision(state["matmul_precision"])
    torch.backends.cudnn.deterministic = state["cudnn_deterministic"]
    torch.backends.cudnn.benchmark = state["cudnn_benchmark"]
    torch.set_rng_state(state["torch_rng"])
    random.setstate(state["python_rng"])
    np.random.set_state(state["numpy_rng"])
    if "cuda_tf32" in state:
        torch.backends.cuda.matmul.allow_tf32 = state["cuda_tf32"]
    os.environ.clear()
    os.environ.update(state["environ"])
    reset_print_options()


def page_setup(namespace: dict[str, Any]) -> None:
    """Sybil setup: save global state, then start the page as a fresh prompt (see above)."""
    state = _SAVED[id(namespace)] = capture_global_state()
    state["workdir"] = tempfile.mkdtemp(prefix="torchsheet-page-")
    os.chdir(state["workdir"])
    namespace.clear()
    namespace.update(FRESH_MAIN, __annotations__={}, __builtins__=builtins)
    reset_print_options()
    # Seeded from fresh entropy, as in a new interpreter: a page prints only the seeds it sets.
    random.seed()
    np.random.seed()
    torch.seed()


def page_teardown(namespace: dict[str, Any]) -> None:
    """Sybil teardown: free what the page made, restore global state and delete the page's
    temporary directory. Freed now, not when the process ends: Sybil keeps every page's
    namespace for the session, and a later page's fork (a DataLoader worker) would inherit it
    all, a live DataLoader iterator too, whose clean-up then runs in the forked worker (seen:
    workers killed by SIGSEGV, a main process hung past its timeout)."""
    namespace.clear()
    for name in ("last_exc", "last_type", "last_value", "last_traceback"):
        if hasattr(sys, name):
            delattr(sys, name)
    gc.collect()  # an iterator in a cycle (an exception's traceback) shuts its workers down now
    state = _SAVED.pop(id(namespace))
    restore_global_state(state)
    shutil.rmtree(state["workdir"], ignore_errors=True)

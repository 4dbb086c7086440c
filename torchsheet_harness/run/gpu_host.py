"""GPU-host mode: CPU torchrun blocks run as on a machine whose accelerator is CUDA.

In each rank (:func:`install`, run by the rank hook before torch is imported) torch answers as on
a GPU host, and the two defaults that then go wrong (a bare ``init_process_group()``,
``fully_shard`` without ``mesh=``) raise; the launcher reads the finding back from stderr. The
block's own questions (from ``__main__``) get a host with ``LOCAL_WORLD_SIZE - 1`` GPUs, so code
that picks NCCL only "when every rank has a GPU" must fall back to gloo; torch's own calls get
the real answers. Standard library only. The mode: MAINTAINING.md, "torchrun and Slurm blocks"."""

from __future__ import annotations

import importlib.abc
import os
import re
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

GPU_HOST_ENV = "TORCHSHEET_GPU_HOST"
MARK = "torchsheet GPU-host check"
GPUS_VISIBLE_ENV = "TORCHSHEET_GPUS_VISIBLE"
#: The start-up hook of every launched block's processes, first on their ``PYTHONPATH``.
SITE_DIR = Path(__file__).resolve().parent / "rank_site"
_FINDING = re.compile(rf"{MARK}(?: \[at (?P<file>[^:\]]+):(?P<line>\d+)\])?: (?P<message>.*)")


def gpu_host_mode(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether CPU launches run as on a GPU host (``TORCHSHEET_GPU_HOST=1``)."""
    return environ.get(GPU_HOST_ENV) == "1"


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
            at = f" at {where_line(match['file'], int(match['line']))}" if match["line"] else ""
            return f"GPU-host check{at}: {match['message']}"
    return None


UNEXPLAINED = (
    "fails in GPU-host mode (torch reports CUDA as this machine's accelerator, with fewer GPUs "
    "than local ranks) and passes with the GPUs hidden: somewhere it leans on the machine's "
    "device; name the backend and the device"
)


class GpuHostDefault(RuntimeError):
    """The block leans on the machine's default device; on a GPU host it would get CUDA."""


def _innermost(*module_suffixes: str):  # noqa: ANN202
    """The innermost calling frame whose module's name ends with one of ``module_suffixes``."""
    frame = sys._getframe(1)
    while frame is not None and not frame.f_globals.get("__name__", "").endswith(module_suffixes):
        frame = frame.f_back
    return frame


def _raise(message: str) -> None:
    frame = _innermost("__main__")  # the block's own code
    at = f" [at {os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno}]" if frame else ""
    raise GpuHostDefault(f"{MARK}{at}: {message}")


def _to_the_block(real, answer):  # noqa: ANN001, ANN202
    """``real``, which answers a call from the block's own code (``__main__``) with ``answer``."""

    def patched(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        from_block = sys._getframe(1).f_globals.get("__name__") == "__main__"
        return (answer if from_block else real)(*args, **kwargs)

    return patched


def _patch_torch(torch) -> None:
    gpus = max(int(os.environ.get("LOCAL_WORLD_SIZE", "1")) - 1, 0)
    cuda = torch.device("cuda")
    torch._C._get_accelerator = lambda check=None: cuda  # noqa: ARG005
    torch.cuda.is_available = _to_the_block(torch.cuda.is_available, lambda: gpus > 0)
    torch.cuda.device_count = _to_the_block(torch.cuda.device_count, lambda: gpus)
    torch.accelerator.current_accelerator = _to_the_block(
        torch.accelerator.current_accelerator,
        lambda check_available=False: cuda if gpus or not check_available else None,
    )
    torch.accelerator.is_available = _to_the_block(torch.accelerator.is_available, lambda: gpus > 0)


def _patch_c10d(c10d) -> None:
    real_init = c10d.BackendConfig.__init__

    def backend_config_init(self, backend) -> None:  # noqa: ANN001
        if str(backend) == c10d.Backend.UNDEFINED:
            if _innermost("fsdp._fully_shard._fsdp_init"):
                how = "fully_shard without mesh= creates the default group for its default mesh"
            elif _innermost("distributed.device_mesh"):
                how = "init_device_mesh creates the default group when none exists"
            else:
                how = "init_process_group() was called without a backend"
            _raise(
                f"{how}; on a machine with a GPU this block would create an NCCL-only group "
                "(no CPU backend: dist.get_backend() says 'undefined', and a collective on a "
                "CPU tensor fails). Name the backend first: dist.init_process_group('gloo') "
                "for CPU tensors, 'cpu:gloo,cuda:nccl' for both."
            )
        real_init(self, backend)

    c10d.BackendConfig.__init__ = backend_config_init


def _patch_default_mesh(module) -> None:
    def default_mesh(*args, **kwargs):  # noqa: ANN002, ANN003, ARG001
        _raise(
            "fully_shard without mesh= makes its default mesh on the machine's accelerator; on "
            "a machine with a GPU that is a CUDA mesh: the parameters move to cuda:LOCAL_RANK "
            "and torch.cuda.set_device(LOCAL_RANK) is called. Pass "
            "mesh=init_device_mesh('cpu', (world_size,)) after init_process_group('gloo')."
        )

    module._init_default_mesh = default_mesh


PATCHES = {
    "torch": _patch_torch,
    "torch.distributed.distributed_c10d": _patch_c10d,
    "torch.distributed.fsdp._fully_shard._fully_shard": _patch_default_mesh,
    "torch.distributed._composable.replicate_with_fsdp": _patch_default_mesh,
}


class _PatchAfterImport(importlib.abc.MetaPathFinder):
    """Finds the modules of PATCHES with the other finders, and patches each once it ran."""

    def find_spec(self, name, path=None, target=None):  # noqa: ANN001, ANN201
        if name not in PATCHES:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None and spec.loader is not None:
                real_exec = spec.loader.exec_module

                def exec_module(module, real_exec=real_exec, name=name) -> None:  # noqa: ANN001
                    real_exec(module)
                    PATCHES[name](module)

                spec.loader.exec_module = exec_module
                return spec
        return None


def install() -> None:
    """Patch torch's modules as they are imported, in a rank of a GPU-host run."""
    if os.environ.get(GPU_HOST_ENV) == "1" and "RANK" in os.environ:
        sys.meta_path.insert(0, _PatchAfterImport())

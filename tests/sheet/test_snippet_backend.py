"""Every snippet that picks a backend picks it the same way, whatever the number of GPUs: NCCL
and ``cuda:LOCAL_RANK`` only when the build has NCCL and the node has a GPU for every local rank,
else gloo on CPU (``torch.cuda`` patched to report 0, 1 or 2 GPUs, NCCL to be built in or not:
Windows CUDA builds have none); and names its backend and mesh."""

import ast
import importlib.util
import os
import runpy
import sys
from pathlib import Path
from types import ModuleType

import pytest
import torch
import torch.distributed as dist

pytestmark = pytest.mark.torchsheet_inputs("snippets")

SNIPPETS = Path(__file__).resolve().parents[2] / "snippets"


def names_nccl(path: Path) -> bool:
    """Whether a string in the script's code mentions nccl: then it picks a backend."""
    nodes = ast.walk(ast.parse(path.read_text(), filename=str(path)))
    return any(isinstance(node, ast.Constant) and "nccl" in str(node.value) for node in nodes)


PICKING = sorted(path.stem for path in SNIPPETS.glob("*.py") if names_nccl(path))
# Started by torch.multiprocessing.spawn, not torchrun: how to start its rank 1 of 2 (the store
# it would connect to is patched away below). Every other picking snippet runs as __main__.
SPAWNED = {"ddp_spawn": lambda module: module.main(1, 2, 0, 1)}


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"snippet_{name}", SNIPPETS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_snippets_that_pick_are_found() -> None:
    """The search finds the known ones, so an empty or short list cannot pass unnoticed."""
    known = {"broadcast_bench", "collectives_demo", "dcp_reshard", "ddp_spawn", "ddp_torchrun"}
    assert known | {"fsdp2_train"} <= set(PICKING), PICKING
    assert "env_report" not in PICKING  # gloo only: it picks nothing


@pytest.fixture
def gpus(monkeypatch: pytest.MonkeyPatch):
    """Call with a count: torch.cuda then reports that many GPUs."""

    def visible(count: int, nccl: bool = True) -> None:
        monkeypatch.setattr(torch.cuda, "device_count", lambda: count)
        monkeypatch.setattr(torch.cuda, "is_available", lambda: count > 0)
        monkeypatch.setattr(dist, "is_nccl_available", lambda: nccl)

    return visible


@pytest.mark.parametrize("name", PICKING)
@pytest.mark.parametrize(
    ("visible", "local_world_size", "local_rank", "expected"),
    [
        (0, 2, 1, "cpu"),
        (1, 2, 0, "cpu"),  # rank 0 too: every rank must agree on gloo
        (1, 2, 1, "cpu"),  # not cuda:1 on a 1-GPU machine ("invalid device ordinal")
        (2, 2, 1, "cuda:1"),
        (1, 1, 0, "cuda:0"),
        (2, 1, 0, "cuda:0"),
    ],
)
def test_choose_device(gpus, name, visible, local_world_size, local_rank, expected) -> None:
    gpus(visible)
    assert str(load(name).choose_device(local_rank, local_world_size)) == expected


@pytest.mark.parametrize("name", PICKING)
def test_a_cuda_build_without_nccl_picks_gloo(gpus, name) -> None:
    """Windows' CUDA builds: GPUs for every rank, and no NCCL."""
    gpus(2, nccl=False)
    assert str(load(name).choose_device(1, 2)) == "cpu"


class Joined(Exception):
    """Raised by the patched init_process_group: the test has seen what the script asked for."""


def start_rank_1(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Start the snippet's rank 1 as its launcher would, up to init_process_group."""
    if name in SPAWNED:
        monkeypatch.setattr(dist, "TCPStore", lambda *args, **kwargs: None)
        SPAWNED[name](load(name))
        return
    monkeypatch.setattr(sys, "argv", [f"{name}.py"])

    def left(code: int) -> None:
        raise AssertionError(f"{name}.py reached os._exit({code}) without joining a group")

    monkeypatch.setattr(os, "_exit", left)
    runpy.run_path(str(SNIPPETS / f"{name}.py"), run_name="__main__")


@pytest.mark.parametrize("name", PICKING)
@pytest.mark.parametrize(("visible", "backend"), [(0, "gloo"), (1, "gloo"), (2, "nccl")])
def test_rank_1_of_2_joins_with(gpus, monkeypatch, name, visible, backend) -> None:
    """Rank 1 of 2 on one node: what the script passes to set_device and init_process_group."""
    gpus(visible)
    ranks = dict(RANK="1", LOCAL_RANK="1", WORLD_SIZE="2", LOCAL_WORLD_SIZE="2")
    for variable, value in {**ranks, "MASTER_ADDR": "localhost", "MASTER_PORT": "0"}.items():
        monkeypatch.setenv(variable, value)
    asked: dict[str, object] = {}
    monkeypatch.setattr(torch.cuda, "set_device", lambda device: asked.update(set_device=device))

    def init_process_group(backend=None, *args, **kwargs):
        asked.update(backend=backend, device_id=kwargs.get("device_id"))
        raise Joined

    monkeypatch.setattr(dist, "init_process_group", init_process_group)
    with pytest.raises(Joined):
        start_rank_1(name, monkeypatch)
    assert asked["backend"] == backend
    if backend == "nccl":
        assert asked["set_device"] == asked["device_id"] == torch.device("cuda", 1)
    else:
        assert "set_device" not in asked and asked["device_id"] is None


def calls(path: Path, function: str) -> list[ast.Call]:
    """Every call of ``function`` (as ``f(...)`` or ``x.f(...)``) in the script."""
    nodes = ast.walk(ast.parse(path.read_text(), filename=str(path)))
    return [node for node in nodes if isinstance(node, ast.Call) and function in
            (getattr(node.func, "id", None), getattr(node.func, "attr", None))]  # fmt: skip


@pytest.mark.parametrize("path", sorted(SNIPPETS.glob("*.py")), ids=lambda path: path.name)
def test_names_its_backend_and_mesh(path: Path) -> None:
    """No group on the machine's default backend, no FSDP2 mesh on its default accelerator."""
    for call in calls(path, "init_process_group"):
        named = call.args or any(keyword.arg == "backend" for keyword in call.keywords)
        assert named, f"{path.name}:{call.lineno}: init_process_group() without a backend"
    for call in calls(path, "fully_shard"):
        meshed = any(keyword.arg == "mesh" for keyword in call.keywords)
        assert meshed, f"{path.name}:{call.lineno}: fully_shard() without mesh="

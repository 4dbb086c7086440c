"""Every snippet that picks a backend picks it the same way, whatever the number of GPUs.

NCCL and ``cuda:LOCAL_RANK`` only when the node has a GPU for every local rank, otherwise gloo on
CPU. The suite's own launches hide the GPUs (``CUDA_VISIBLE_DEVICES=""``), so the GPU paths are
checked here with ``torch.cuda`` patched to report 0, 1 or 2 GPUs.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest
import torch
import torch.distributed as dist

SNIPPETS = Path(__file__).resolve().parent.parent / "snippets"
CHOOSING = ["broadcast_bench", "collectives_demo", "ddp_torchrun", "ddp_spawn"]
# The ones torchrun starts, whose setup reads LOCAL_RANK and LOCAL_WORLD_SIZE.
TORCHRUN_MAIN = {
    "broadcast_bench": lambda module: module.main(),
    "collectives_demo": lambda module: module.main(),
    "ddp_torchrun": lambda module: module.main(1),
}


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"snippet_{name}", SNIPPETS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def gpus(monkeypatch: pytest.MonkeyPatch):
    """Call with a count: torch.cuda then reports that many GPUs."""

    def visible(count: int) -> None:
        monkeypatch.setattr(torch.cuda, "device_count", lambda: count)
        monkeypatch.setattr(torch.cuda, "is_available", lambda: count > 0)

    return visible


@pytest.mark.parametrize("name", CHOOSING)
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


class Joined(Exception):
    """Raised by the patched init_process_group: the test has seen what the script asked for."""


@pytest.mark.parametrize("name", sorted(TORCHRUN_MAIN))
@pytest.mark.parametrize(("visible", "backend"), [(0, "gloo"), (1, "gloo"), (2, "nccl")])
def test_rank_1_of_2_joins_with(gpus, monkeypatch, name, visible, backend) -> None:
    """Rank 1 of 2 on one node: what the script passes to set_device and init_process_group."""
    gpus(visible)
    for variable, value in {
        "RANK": "1",
        "LOCAL_RANK": "1",
        "WORLD_SIZE": "2",
        "LOCAL_WORLD_SIZE": "2",
        "MASTER_ADDR": "localhost",
        "MASTER_PORT": "0",
    }.items():
        monkeypatch.setenv(variable, value)
    monkeypatch.setattr(sys, "argv", [f"{name}.py"])
    asked: dict[str, object] = {}
    monkeypatch.setattr(torch.cuda, "set_device", lambda device: asked.update(set_device=device))

    def init_process_group(backend=None, *args, **kwargs):
        asked.update(backend=backend, device_id=kwargs.get("device_id"))
        raise Joined

    monkeypatch.setattr(dist, "init_process_group", init_process_group)
    with pytest.raises(Joined):
        TORCHRUN_MAIN[name](load(name))
    assert asked["backend"] == backend
    if backend == "nccl":
        assert asked["set_device"] == asked["device_id"] == torch.device("cuda", 1)
    else:
        assert "set_device" not in asked and asked["device_id"] is None

"""Save a sharded model and its optimizer on every rank, load them on one: a DCP reshard.

Run:  torchrun --standalone --nproc-per-node 2 snippets/dcp_reshard.py [CHECKPOINT_DIR]

Every rank trains an FSDP2 (`fully_shard`) model with AdamW for a few steps and saves its shards
of the parameters and optimizer state with `torch.distributed.checkpoint` (DCP) into
CHECKPOINT_DIR (default `checkpoint`). Rank 0 first deletes the DCP files an earlier run left
there: `dcp.save` replaces files but deletes none, so a run on fewer ranks would list the earlier
run's extra `__N_0.distcp` files as its own. Then rank 0 alone, without the process group
(`no_dist=True`), loads that checkpoint into a plain, unsharded model and optimizer: saved on N
ranks, loaded on 1. It asserts that the loaded values equal the sharded ones and that one more
training step gives the same parameters on both sides, so the optimizer state came back too.
Rank 0 reads every rank's files: run it on one node, or with CHECKPOINT_DIR on a filesystem that
all nodes share. gloo on CPU, NCCL when there is a GPU for every local rank.
"""

import os
import sys
from pathlib import Path

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
import torch.nn.functional as F
from torch.distributed.checkpoint.state_dict import get_state_dict, set_state_dict
from torch.distributed.checkpoint.stateful import Stateful
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard


class AppState(Stateful):
    """Model and optimizer as one DCP entry: `dcp.save` calls `state_dict()`, `dcp.load` calls
    `state_dict()` (to know what to fill) and then `load_state_dict()`."""

    def __init__(self, model, optimizer):
        self.model, self.optimizer = model, optimizer

    def state_dict(self):
        # Keys by parameter name (not by position), shards as DTensors: what makes resharding work.
        model_state, optimizer_state = get_state_dict(self.model, self.optimizer)
        return {"model": model_state, "optimizer": optimizer_state}

    def load_state_dict(self, state_dict):
        set_state_dict(
            self.model,
            self.optimizer,
            model_state_dict=state_dict["model"],
            optim_state_dict=state_dict["optimizer"],
        )


def make_model(device):
    torch.manual_seed(0)  # the same initial weights everywhere
    return torch.nn.Sequential(
        torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 32), torch.nn.Linear(32, 4)
    ).to(device)


def train_step(model, optimizer, x, y):
    optimizer.zero_grad()
    F.mse_loss(model(x), y).backward()
    optimizer.step()


def choose_device(local_rank: int, local_world_size: int) -> torch.device:
    """cuda:LOCAL_RANK if torch has NCCL and this node a GPU for every local rank, else the CPU.

    Fewer GPUs than ranks (2 ranks on a 1-GPU machine) gives gloo on CPU rather than rank 1
    asking for a GPU that is not there ("invalid device ordinal"); so does a CUDA build without
    NCCL (Windows builds have none), rather than "Distributed package doesn't have NCCL built in".
    """
    enough_gpus = torch.cuda.is_available() and torch.cuda.device_count() >= local_world_size
    if enough_gpus and dist.is_nccl_available():
        return torch.device("cuda", local_rank)
    return torch.device("cpu")


def setup():
    """Join the process group, build the 1-D mesh; returns (rank, world size, device, mesh)."""
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    device = choose_device(local_rank, int(os.environ.get("LOCAL_WORLD_SIZE", 1)))
    if device.type == "cuda":
        torch.cuda.set_device(device)
        dist.init_process_group("nccl", device_id=device)
    else:
        dist.init_process_group("gloo")
    world_size = dist.get_world_size()
    # Passed to fully_shard: its default mesh is on the accelerator, cuda:LOCAL_RANK even here.
    mesh = init_device_mesh(device.type, (world_size,))
    return dist.get_rank(), world_size, device, mesh


def remove_old_checkpoint(checkpoint_dir):
    """Delete the DCP files (shards and metadata) an earlier run left in checkpoint_dir."""
    folder = Path(checkpoint_dir)
    for old in [*folder.glob("__*_*.distcp"), folder / ".metadata"]:
        old.unlink(missing_ok=True)


def main(checkpoint_dir):
    rank, world_size, device, mesh = setup()
    model = make_model(device)
    for layer in model:
        if isinstance(layer, torch.nn.Linear):
            fully_shard(layer, mesh=mesh)  # each rank keeps 1/world_size of every parameter
    fully_shard(model, mesh=mesh)
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.01)

    torch.manual_seed(1)  # the same batches on every rank; each trains on its share
    batches = [(torch.randn(4 * world_size, 8), torch.randn(4 * world_size, 4)) for _ in range(4)]
    mine = slice(rank * 4, (rank + 1) * 4)
    for x, y in batches[:3]:
        train_step(model, optimizer, x[mine].to(device), y[mine].to(device))

    if rank == 0:
        remove_old_checkpoint(checkpoint_dir)
    dist.barrier()  # the old files are gone before any rank writes
    dcp.save({"app": AppState(model, optimizer)}, checkpoint_id=checkpoint_dir)
    saved = {name: p.full_tensor() for name, p in model.named_parameters()}  # gathered on all

    if rank == 0:  # a world of one: no process group, no other rank involved
        files = sorted(os.listdir(checkpoint_dir))
        plain = make_model(device)
        plain_optimizer = torch.optim.AdamW(plain.parameters(), lr=0.01)
        dcp.load(
            {"app": AppState(plain, plain_optimizer)}, checkpoint_id=checkpoint_dir, no_dist=True
        )
        loaded = dict(plain.named_parameters())
        assert all(torch.equal(loaded[name], saved[name]) for name in saved), "loaded != saved"
        print(f"saved on {world_size} ranks ({', '.join(files)}), loaded on 1: parameters equal")

    # One more step on both sides: equal only if the optimizer state was restored as well.
    x, y = batches[3]
    train_step(model, optimizer, x[mine].to(device), y[mine].to(device))
    resumed = {name: p.full_tensor() for name, p in model.named_parameters()}
    if rank == 0:
        train_step(plain, plain_optimizer, x.to(device), y.to(device))  # the whole batch
        close = all(
            torch.allclose(p, resumed[name], atol=1e-6) for name, p in plain.named_parameters()
        )
        assert close, "one more step differs: the optimizer state did not come back"
        print(f"one more step, sharded on {world_size} ranks and plain on 1: parameters match")

    # Clean shutdown: see docs/distributed/ddp.md, "Shutting down cleanly".
    dist.barrier()  # every rank is done communicating
    dist.destroy_process_group()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "checkpoint")
    sys.stdout.flush()
    os._exit(0)  # skip interpreter teardown, where gloo can abort

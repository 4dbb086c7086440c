"""Save a sharded model and its optimizer on every rank, load them on one: a DCP reshard.

Run:  torchrun --standalone --nproc-per-node 2 snippets/dcp_reshard.py [CHECKPOINT_DIR]

Every rank trains an FSDP2 (`fully_shard`) model with AdamW for a few steps and saves its shards
of the parameters and optimizer state with `torch.distributed.checkpoint` (DCP) into
CHECKPOINT_DIR (default `checkpoint`). Then rank 0 alone, without the process group
(`no_dist=True`), loads that checkpoint into a plain, unsharded model and optimizer: saved on N
ranks, loaded on 1. It asserts that the loaded values equal the sharded ones and that one more
training step gives the same parameters on both sides, so the optimizer state came back too.
gloo on CPU, NCCL when there is a GPU for every local rank.
"""

import os
import sys

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
import torch.nn.functional as F
from torch.distributed.checkpoint.state_dict import get_state_dict, set_state_dict
from torch.distributed.checkpoint.stateful import Stateful
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


def setup():
    """Join the process group; returns (rank, world size, device)."""
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    local_world_size = int(os.environ.get("LOCAL_WORLD_SIZE", 1))
    use_nccl = torch.cuda.device_count() >= local_world_size
    device = torch.device("cuda", local_rank) if use_nccl else torch.device("cpu")
    if use_nccl:
        torch.cuda.set_device(device)
    dist.init_process_group("nccl" if use_nccl else "gloo", device_id=device if use_nccl else None)
    return dist.get_rank(), dist.get_world_size(), device


def main(checkpoint_dir):
    rank, world_size, device = setup()
    model = make_model(device)
    for layer in model:
        if isinstance(layer, torch.nn.Linear):
            fully_shard(layer)  # each rank keeps 1/world_size of every parameter
    fully_shard(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.01)

    torch.manual_seed(1)  # the same batches on every rank; each trains on its share
    batches = [(torch.randn(4 * world_size, 8), torch.randn(4 * world_size, 4)) for _ in range(4)]
    mine = slice(rank * 4, (rank + 1) * 4)
    for x, y in batches[:3]:
        train_step(model, optimizer, x[mine].to(device), y[mine].to(device))

    dcp.save({"app": AppState(model, optimizer)}, checkpoint_id=checkpoint_dir)
    files = sorted(os.listdir(checkpoint_dir))
    saved = {name: p.full_tensor() for name, p in model.named_parameters()}  # gathered on all

    if rank == 0:  # a world of one: no process group, no other rank involved
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

"""Train a small classifier with FSDP2 (fully_shard), one process per rank started by torchrun.

Run:  torchrun --standalone --nproc-per-node 2 snippets/fsdp2_train.py

Gloo on CPU, NCCL when there is a GPU for every local rank (then with bf16 mixed precision).
Each block and the root are sharded with fully_shard, gradients are clipped over all shards, and
the full state dict is gathered to rank 0 and saved as a plain file that a single process without
FSDP loads. It asserts that the model learned and that the saved file reproduces the sharded
model's predictions, so it never exits 0 having done nothing. Run as plain
`python snippets/fsdp2_train.py` it trains alone, as a world of one process.
"""

import os
import sys

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

NUM_EPOCHS = 5
CHECKPOINT = "fsdp2_model.pt"


def make_model():
    torch.manual_seed(123)  # the same initial weights on every rank, before sharding
    return torch.nn.Sequential(
        torch.nn.Sequential(torch.nn.Linear(2, 32), torch.nn.ReLU()),
        torch.nn.Sequential(torch.nn.Linear(32, 32), torch.nn.ReLU()),
        torch.nn.Linear(32, 2),
    )


def make_data():
    """Two Gaussian blobs, labelled by their blob; every rank builds the same dataset."""
    generator = torch.Generator().manual_seed(0)
    labels = torch.arange(64) % 2
    features = torch.randn(64, 2, generator=generator) + (labels[:, None] * 4.0 - 2.0)
    return TensorDataset(features, labels)


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
    rank = int(os.environ.get("RANK", 0))
    world_size = int(os.environ.get("WORLD_SIZE", 1))
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    local_world_size = int(os.environ.get("LOCAL_WORLD_SIZE", world_size))
    # torchrun sets these; without it this is a world of one and any free port will do.
    os.environ.setdefault("MASTER_ADDR", "localhost")
    os.environ.setdefault("MASTER_PORT", "0")
    device = choose_device(local_rank, local_world_size)
    use_nccl = device.type == "cuda"
    if use_nccl:
        torch.cuda.set_device(device)
    dist.init_process_group(
        "nccl" if use_nccl else "gloo",
        rank=rank,
        world_size=world_size,
        device_id=device if use_nccl else None,
    )
    return rank, world_size, device, init_device_mesh(device.type, (world_size,))


def main(num_epochs):
    rank, world_size, device, mesh = setup()
    # bf16 compute with fp32 gradient reduction on GPUs; plain fp32 on CPU.
    on_gpu = device.type == "cuda"
    policy = MixedPrecisionPolicy(
        param_dtype=torch.bfloat16 if on_gpu else None, reduce_dtype=torch.float32
    )
    model = make_model().to(device)
    for block in model[:2]:
        fully_shard(block, mesh=mesh, mp_policy=policy)
    fully_shard(model, mesh=mesh, mp_policy=policy)
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.002)

    dataset = make_data()
    sampler = DistributedSampler(dataset, shuffle=True, seed=0)
    loader = DataLoader(dataset, batch_size=8, sampler=sampler)
    for epoch in range(num_epochs):
        sampler.set_epoch(epoch)
        for features, labels in loader:
            features, labels = features.to(device), labels.to(device)
            loss = F.cross_entropy(model(features).float(), labels)
            optimizer.zero_grad()
            loss.backward()  # gradients reduce-scattered: each rank keeps its shard
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
            optimizer.step()
        mean_loss = loss.detach().clone()
        dist.all_reduce(mean_loss)  # sum over ranks
        if rank == 0:  # one process prints, so the output does not interleave
            print(f"epoch {epoch + 1}/{num_epochs} loss {mean_loss.item() / world_size:.2f}")

    features, labels = dataset.tensors
    with torch.no_grad():
        logits = model(features.to(device)).float().cpu()
    accuracy = (logits.argmax(dim=1) == labels).float().mean().item()
    assert accuracy == 1.0, f"rank {rank}: the model did not learn, accuracy {accuracy}"

    # Gather the full state dict onto rank 0's CPU (every rank must call this) and save it there.
    options = StateDictOptions(full_state_dict=True, cpu_offload=True)
    state_dict = get_model_state_dict(model, options=options)
    if rank == 0:
        torch.save(state_dict, CHECKPOINT)
        plain = make_model()  # a single process, no FSDP, no process group needed
        plain.load_state_dict(torch.load(CHECKPOINT, weights_only=True))
        with torch.no_grad():
            same = (plain(features).argmax(dim=1) == logits.argmax(dim=1)).all().item()
        assert same, "the saved model predicts differently from the sharded one"
        print(f"world size {world_size}: accuracy {accuracy}, {CHECKPOINT} loads in a plain model")

    # Clean shutdown: see docs/distributed/ddp.md, "Shutting down cleanly".
    dist.barrier()  # every rank is done communicating
    dist.destroy_process_group()


if __name__ == "__main__":
    main(NUM_EPOCHS)
    sys.stdout.flush()
    os._exit(0)  # skip interpreter teardown, where gloo can abort

"""Run every common collective on any number of ranks and check what each rank received.

Run:  torchrun --standalone --nproc-per-node 2 snippets/collectives_demo.py

Gloo on CPU; NCCL when every local rank has a GPU. Each rank r contributes tensors built from r,
so the expected result is known in closed form; a wrong result fails the rank with an
AssertionError. Rank 0 prints one line per collective.
"""

import os
import sys

import torch
import torch.distributed as dist


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


def setup() -> torch.device:
    device = choose_device(int(os.environ["LOCAL_RANK"]), int(os.environ["LOCAL_WORLD_SIZE"]))
    if device.type == "cuda":
        torch.cuda.set_device(device)
        dist.init_process_group("nccl", device_id=device)
    else:
        dist.init_process_group("gloo")
    return device


def check(name: str, got: torch.Tensor, expected: torch.Tensor) -> None:
    assert torch.equal(got.cpu(), expected), f"rank {dist.get_rank()}: {name} {got} != {expected}"
    # Every rank checked its own result; rank 0 reports once everybody did.
    ok = torch.ones(1, device=got.device)
    dist.all_reduce(ok)
    if dist.get_rank() == 0:
        print(f"{name:<22} ok on {int(ok.item())} ranks, rank 0 has {got.cpu().tolist()}")


def main() -> None:
    device = setup()
    rank, n = dist.get_rank(), dist.get_world_size()
    ranks = torch.arange(n, dtype=torch.float32)  # [0, 1, ..., n-1]
    mine = torch.tensor([float(rank)], device=device)

    x = mine.clone()
    dist.all_reduce(x)
    check("all_reduce SUM", x, ranks.sum().reshape(1))

    x = mine.clone()
    dist.all_reduce(x, op=dist.ReduceOp.MAX)
    check("all_reduce MAX", x, torch.tensor([n - 1.0]))

    x = torch.full((2,), 7.0, device=device) if rank == 0 else torch.zeros(2, device=device)
    dist.broadcast(x, src=0)
    check("broadcast", x, torch.full((2,), 7.0))

    x = torch.empty(n, device=device)
    dist.all_gather_single(x, mine)
    check("all_gather_single", x, ranks)

    # Rank r sends r * [1, 2, ..., n]; slot k of the sum, (k + 1) * sum(ranks), goes to rank k.
    contribution = (torch.arange(n, dtype=torch.float32) + 1).to(device) * rank
    x = torch.empty(1, device=device)
    dist.reduce_scatter_single(x, contribution)
    check("reduce_scatter_single", x, ((rank + 1) * ranks.sum()).reshape(1))

    x = torch.empty(1, device=device)
    chunks = list((ranks.to(device) * 10).chunk(n)) if rank == 0 else None
    dist.scatter(x, chunks, src=0)
    check("scatter", x, torch.tensor([10.0 * rank]))

    x = torch.empty(n, device=device)
    dist.all_to_all_single(x, torch.full((n,), float(rank), device=device))
    check("all_to_all_single", x, ranks)  # slot k came from rank k

    # Clean shutdown: see docs/distributed/ddp.md, "Shutting down cleanly".
    dist.barrier()  # every rank is done communicating
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
    sys.stdout.flush()
    os._exit(0)  # skip interpreter teardown, where gloo can abort

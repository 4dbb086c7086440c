"""Broadcast one payload from rank 0 to every rank, time it, report bandwidth, check the data.

On CPU with gloo (the default payload, 4 MiB, suits it):

    torchrun --standalone --nproc-per-node 2 broadcast_bench.py

NCCL and one GPU per rank when the node has a GPU for every local rank, otherwise gloo on CPU.
On one node's GPUs with NCCL, a payload large enough to reach full bandwidth:

    torchrun --standalone --nproc-per-node 8 broadcast_bench.py --size 512MiB --iters 100
"""

import argparse
import os
import re
import sys
import time

import torch
import torch.distributed as dist

UNITS = {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30}


def parse_size(text: str) -> int:
    """'4MiB' -> 4194304 bytes."""
    number, unit = re.fullmatch(r"(\d+)\s*([KMG]iB|B)", text).groups()
    return int(number) * UNITS[unit]


def format_size(nbytes: int) -> str:
    """4194304 -> '4 MiB'."""
    unit = max((u for u in UNITS if nbytes % UNITS[u] == 0), key=UNITS.get)
    return f"{nbytes // UNITS[unit]} {unit}"


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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", default="4MiB", help="payload, e.g. 4MiB or 1GiB")
    parser.add_argument("--warmup", type=int, default=5, help="untimed iterations first")
    parser.add_argument("--iters", type=int, default=20, help="timed iterations")
    args = parser.parse_args()

    device = choose_device(int(os.environ["LOCAL_RANK"]), int(os.environ["LOCAL_WORLD_SIZE"]))
    if device.type == "cuda":
        torch.cuda.set_device(device)
        dist.init_process_group("nccl", device_id=device)
    else:
        dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()

    def synchronize() -> None:
        # GPU work is asynchronous: wait for it before reading the clock.
        if device.type == "cuda":
            torch.cuda.synchronize(device)

    nbytes = parse_size(args.size)
    source = torch.rand(nbytes // 4, generator=torch.Generator().manual_seed(0)).to(device)
    payload = source.clone() if rank == 0 else torch.empty_like(source)

    for _ in range(args.warmup):
        dist.broadcast(payload, src=0)
    synchronize()
    dist.barrier()
    start = time.perf_counter()
    for _ in range(args.iters):
        dist.broadcast(payload, src=0)
    synchronize()
    elapsed = torch.tensor(time.perf_counter() - start, dtype=torch.float64, device=device)
    dist.all_reduce(elapsed, op=dist.ReduceOp.MAX)  # the slowest rank sets the pace

    seconds = elapsed.item() / args.iters
    algbw = nbytes / seconds / 1e9  # GB/s of payload delivered per broadcast
    busbw = algbw  # for broadcast the bus bandwidth equals the algorithm bandwidth
    if rank == 0:
        print(f"backend {dist.get_backend()}  ranks {world}")
        print(
            f"size {format_size(nbytes)}  time {seconds * 1e3:.3f} ms  "
            f"algbw {algbw:.2f} GB/s  busbw {busbw:.2f} GB/s"
        )

    # Validate: wipe the receivers, broadcast once more, every rank must hold the source.
    if rank != 0:
        payload.fill_(-1)
    dist.broadcast(payload, src=0)
    ok = torch.tensor(int(torch.equal(payload, source)), device=device)
    dist.all_reduce(ok, op=dist.ReduceOp.MIN)
    if rank == 0:
        print("PASS" if ok.item() else "FAIL")
    # Clean shutdown: see docs/distributed/ddp.md, "Shutting down cleanly".
    dist.barrier()  # every rank is done communicating
    dist.destroy_process_group()
    if not ok.item():
        raise SystemExit(1)


if __name__ == "__main__":
    main()
    sys.stdout.flush()
    os._exit(0)  # skip interpreter teardown, where gloo can abort

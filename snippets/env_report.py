"""Print what torchrun tells each rank through its environment, as a table on rank 0.

Run it (the same script works on one node, on several nodes and under Slurm):

    torchrun --standalone --nproc-per-node 2 env_report.py
"""

import os
import sys

import torch.distributed as dist

PER_RANK = ("RANK", "LOCAL_RANK", "GROUP_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE")
SHARED = ("MASTER_ADDR", "MASTER_PORT", "TORCHELASTIC_RUN_ID")


def main() -> None:
    dist.init_process_group("gloo")  # reads RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT
    mine = {name: os.environ[name] for name in PER_RANK + SHARED}
    everyone = [None] * dist.get_world_size()
    dist.all_gather_object(everyone, mine)
    if dist.get_rank() == 0:
        print("  ".join(PER_RANK))
        for env in everyone:
            print("  ".join(f"{env[name]:>{len(name)}}" for name in PER_RANK))
        # The rendezvous values are the same on every rank.
        assert all(env[name] == mine[name] for env in everyone for name in SHARED)
        print(" ".join(f"{name}={mine[name]}" for name in SHARED))
    # Clean shutdown: see docs/distributed/ddp.md, "Shutting down cleanly".
    dist.barrier()  # every rank is done communicating
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
    sys.stdout.flush()
    os._exit(0)  # skip interpreter teardown, where gloo can abort

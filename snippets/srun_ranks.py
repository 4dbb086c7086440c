"""Join a process group from Slurm's task variables, without torchrun; rank 0 prints who is where.

srun starts every rank; run it through the batch script next to it:

    sbatch srun_ranks.sbatch
"""

import os
import sys

import torch.distributed as dist


def main() -> None:
    # What torchrun would set, taken from what srun sets for each task.
    os.environ["RANK"] = os.environ["SLURM_PROCID"]
    os.environ["LOCAL_RANK"] = os.environ["SLURM_LOCALID"]
    os.environ["WORLD_SIZE"] = os.environ["SLURM_NTASKS"]
    # MASTER_ADDR and MASTER_PORT come from the batch script.
    dist.init_process_group("gloo")
    mine = (dist.get_rank(), int(os.environ["LOCAL_RANK"]), int(os.environ["SLURM_NODEID"]))
    everyone = [None] * dist.get_world_size()
    dist.all_gather_object(everyone, mine)
    if dist.get_rank() == 0:
        print(f"world size {dist.get_world_size()}")
        for rank, local_rank, node in everyone:
            print(f"rank {rank}  local rank {local_rank}  node {node}")
    # Clean shutdown: see docs/distributed/ddp.md, "Shutting down cleanly".
    dist.barrier()  # every rank is done communicating
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
    sys.stdout.flush()
    os._exit(0)  # skip interpreter teardown, where gloo can abort

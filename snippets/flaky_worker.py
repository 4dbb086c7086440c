r"""A worker group that crashes on its first attempt and succeeds when torchrun restarts it.

    TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1 \
        torchrun --standalone --nproc-per-node 2 --max-restarts 1 flaky_worker.py
"""

import os
import sys

import torch.distributed as dist


def main() -> None:
    attempt = int(os.environ["TORCHELASTIC_RESTART_COUNT"])  # 0, then 1 after one restart
    dist.init_process_group("gloo")
    if attempt == 0 and dist.get_rank() == 1:
        sys.exit("rank 1: simulated crash")  # the agent stops every rank and starts them again
    dist.barrier()
    if dist.get_rank() == 0:
        print(f"attempt {attempt}: {dist.get_world_size()} ranks up")
        print(f"max restarts {os.environ['TORCHELASTIC_MAX_RESTARTS']}")
    # Clean shutdown: see docs/distributed/ddp.md, "Shutting down cleanly".
    dist.barrier()  # every rank is done communicating
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
    sys.stdout.flush()
    os._exit(0)  # skip interpreter teardown, where gloo can abort

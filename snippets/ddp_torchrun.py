# Adapted from "Build a Large Language Model From Scratch" by Sebastian Raschka
# (github.com/rasbt/LLMs-from-scratch), Appendix A, DDP-script-torchrun.py;
# Apache License 2.0, see NOTICE.
"""Train a toy classifier with DDP, one process per rank started by torchrun.

Run:  torchrun --standalone --nproc-per-node 2 snippets/ddp_torchrun.py

Changed from the book's script: rank and world size come from the environment torchrun sets;
gloo on CPU, NCCL when there is a GPU for every local rank; evaluation counts each sample once on
any number of ranks; a clean shutdown. It asserts that the model learned the toy data, so it
never exits 0 having done nothing. Run as plain `python snippets/ddp_torchrun.py` it trains
alone, as a world of one process.
"""

import os
import sys

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset, Subset
from torch.utils.data.distributed import DistributedSampler

NUM_EPOCHS = 3


class ToyDataset(Dataset):
    def __init__(self, X, y):
        self.features = X
        self.labels = y

    def __getitem__(self, index):
        return self.features[index], self.labels[index]

    def __len__(self):
        return self.labels.shape[0]


class NeuralNetwork(torch.nn.Module):
    def __init__(self, num_inputs, num_outputs):
        super().__init__()
        self.layers = torch.nn.Sequential(
            torch.nn.Linear(num_inputs, 30),
            torch.nn.ReLU(),
            torch.nn.Linear(30, 20),
            torch.nn.ReLU(),
            torch.nn.Linear(20, num_outputs),
        )

    def forward(self, x):
        return self.layers(x)


def prepare_dataset():
    X_train = torch.tensor([[-1.2, 3.1], [-0.9, 2.9], [-0.5, 2.6], [2.3, -1.1], [2.7, -1.5]])
    y_train = torch.tensor([0, 0, 0, 1, 1])
    X_test = torch.tensor([[-0.8, 2.8], [2.6, -1.6]])
    y_test = torch.tensor([0, 1])
    train_ds, test_ds = ToyDataset(X_train, y_train), ToyDataset(X_test, y_test)
    # The sampler gives each rank its own share of the data, so shuffle must be False here.
    train_loader = DataLoader(
        train_ds, batch_size=2, shuffle=False, drop_last=True, sampler=DistributedSampler(train_ds)
    )
    # Evaluation counts every sample exactly once: rank r takes samples r, r + world size, ...
    # (a DistributedSampler would pad the shares to equal length by repeating samples).
    rank, world_size = dist.get_rank(), dist.get_world_size()
    eval_loaders = [
        DataLoader(Subset(ds, range(rank, len(ds), world_size)), batch_size=2)
        for ds in (train_ds, test_ds)
    ]
    return train_loader, eval_loaders


def compute_accuracy(model, dataloader, device):
    """Accuracy over all ranks: each rank counts its own samples, all_reduce sums the counts
    (a rank with no sample adds zeros instead of dividing by zero)."""
    model.eval()
    counts = torch.zeros(2, device=device)  # correct, total
    with torch.no_grad():
        for features, labels in dataloader:
            features, labels = features.to(device), labels.to(device)
            predictions = model(features).argmax(dim=1)
            counts += torch.tensor([(predictions == labels).sum(), labels.numel()], device=device)
    dist.all_reduce(counts)
    return (counts[0] / counts[1]).item()


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


def ddp_setup():
    """Join the process group; returns (rank, world size, device)."""
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
        device_id=device if use_nccl else None,  # binds NCCL (and barrier) to this GPU
    )
    return rank, world_size, device


def main(num_epochs):
    rank, world_size, device = ddp_setup()
    train_loader, (train_eval, test_eval) = prepare_dataset()
    torch.manual_seed(123)  # the same initial weights on every rank (DDP broadcasts rank 0's)
    model = NeuralNetwork(num_inputs=2, num_outputs=2).to(device)
    model = DDP(model, device_ids=[device.index] if device.type == "cuda" else None)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)

    # The sampler pads 5 samples to a multiple of the world size (repeating some), so each rank
    # gets ceil(5 / world size): from 5 ranks on that is 1, and drop_last leaves no rank a batch.
    assert len(train_loader) > 0, f"rank {rank}: no training batch with {world_size} ranks"
    for epoch in range(num_epochs):
        train_loader.sampler.set_epoch(epoch)
        model.train()
        for features, labels in train_loader:
            features, labels = features.to(device), labels.to(device)
            loss = F.cross_entropy(model(features), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        mean_loss = loss.detach().clone()
        dist.all_reduce(mean_loss)  # sum over ranks
        if rank == 0:  # one process prints, so the output does not interleave
            print(f"epoch {epoch + 1}/{num_epochs} loss {mean_loss.item() / world_size:.2f}")

    train_acc = compute_accuracy(model, train_eval, device)
    test_acc = compute_accuracy(model, test_eval, device)
    assert train_acc == test_acc == 1.0, f"the model did not learn: {train_acc=} {test_acc=}"
    if rank == 0:
        print(f"world size {world_size}: training accuracy {train_acc}, test accuracy {test_acc}")

    # Clean shutdown: see docs/distributed/ddp.md, "Shutting down cleanly".
    dist.barrier()  # every rank is done communicating
    dist.destroy_process_group()


if __name__ == "__main__":
    main(NUM_EPOCHS)
    sys.stdout.flush()
    os._exit(0)  # skip interpreter teardown, where gloo can abort

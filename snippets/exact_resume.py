"""Exact resume: 2N steps in one process equal N steps, a checkpoint and N more in a new process.

Run:  python snippets/exact_resume.py

The training loop draws from every generator a real one can: dropout (torch), a NumPy noise
augmentation, a Python `random` flip, and a DataLoader that reshuffles every epoch. It runs 2N
steps straight, then N steps and a checkpoint, then starts itself again (`resume` mode) in a
fresh interpreter that loads the checkpoint and runs the last N steps. The fresh process resumes
once with everything restored and once with each piece left out in turn; the parent compares
the final weights with the uninterrupted run, bitwise.
"""

import itertools
import os
import random
import subprocess
import sys

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

SEED = 0
BATCH, SAMPLES = 8, 40  # 5 batches an epoch
N = 7  # the checkpoint falls in the middle of the second epoch
BATCHES_PER_EPOCH = SAMPLES // BATCH
LEFT_OUT = ["nothing", "torch RNG", "NumPy RNG", "random RNG"]
LEFT_OUT += ["optimizer", "scheduler", "sampler position", "GradScaler"]


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)  # seeds the CUDA generators too


def build():
    """Model, optimizer, scheduler and scaler, as a training script builds them at start-up."""
    model = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Dropout(0.3), nn.Linear(32, 1))
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.01)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=3, gamma=0.7)
    scaler = torch.amp.GradScaler("cpu", growth_interval=2)  # a changing scale, to save
    return model, optimizer, scheduler, scaler


def dataset():
    g = torch.Generator().manual_seed(123)
    x = torch.randn(SAMPLES, 4, generator=g)
    return TensorDataset(x, x.sum(1, keepdim=True).sin())


def train(parts, step, stop, data):
    """Steps ``step`` to ``stop``; each epoch's order depends only on (SEED, epoch)."""
    model, optimizer, scheduler, scaler = parts
    model.train()
    while step < stop:
        epoch, done_in_epoch = divmod(step, BATCHES_PER_EPOCH)
        order = torch.Generator().manual_seed(SEED + epoch)
        loader = DataLoader(data, batch_size=BATCH, shuffle=True, generator=order)
        for x, y in itertools.islice(loader, done_in_epoch, stop - step + done_in_epoch):
            x = x + torch.from_numpy(np.random.normal(0, 0.1, x.shape)).float()
            if random.random() < 0.5:
                x = -x
            loss = nn.functional.mse_loss(model(x), y)
            optimizer.zero_grad()
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            scheduler.step()
            step += 1
    return step


def save_checkpoint(path, parts, step):
    model, optimizer, scheduler, scaler = parts
    checkpoint = {
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "scheduler": scheduler.state_dict(),
        "scaler": scaler.state_dict(),
        "step": step,  # epoch and position in it follow: divmod(step, BATCHES_PER_EPOCH)
        "rng": {
            "torch": torch.get_rng_state(),
            "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else [],
            "numpy": np.random.get_state(),
            "random": random.getstate(),
        },
    }
    tmp = f"{path}.tmp"
    with open(tmp, "wb") as f:
        torch.save(checkpoint, f)
        f.flush()
        os.fsync(f.fileno())  # the data is on the disk before a name points at it
    os.replace(tmp, path)  # atomic: a crash leaves the old checkpoint, never half a new one
    directory = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    try:
        os.fsync(directory)  # the rename is on the disk too: a power loss keeps one or the other
    finally:
        os.close(directory)


def load_checkpoint(path, parts, left_out="nothing"):
    """Restore everything but ``left_out``; returns the step to resume from."""
    model, optimizer, scheduler, scaler = parts
    # weights_only=False: the NumPy state is an ndarray; trust only your own checkpoints.
    checkpoint = torch.load(path, map_location="cpu", weights_only=False)
    model.load_state_dict(checkpoint["model"])
    restore = {
        "optimizer": lambda: optimizer.load_state_dict(checkpoint["optimizer"]),
        "scheduler": lambda: scheduler.load_state_dict(checkpoint["scheduler"]),
        "GradScaler": lambda: scaler.load_state_dict(checkpoint["scaler"]),
        "torch RNG": lambda: torch.set_rng_state(checkpoint["rng"]["torch"]),
        "NumPy RNG": lambda: np.random.set_state(checkpoint["rng"]["numpy"]),
        "random RNG": lambda: random.setstate(checkpoint["rng"]["random"]),
    }
    for piece, load in restore.items():
        if piece != left_out:
            load()
    if torch.cuda.is_available() and left_out != "torch RNG":
        torch.cuda.set_rng_state_all(checkpoint["rng"]["cuda"])
    return 0 if left_out == "sampler position" else checkpoint["step"]


def resume(path, out):
    """The fresh process: for each piece left out, start up, load, run the last N steps."""
    results = {}
    for left_out in LEFT_OUT:
        seed_everything(SEED)  # what a script does at start-up, before loading
        parts = build()
        step = load_checkpoint(path, parts, left_out)
        train(parts, step, step + N, dataset())
        results[left_out] = (parts[0].state_dict(), parts[3].get_scale(), step)
    torch.save(results, out)


def main():
    data = dataset()

    seed_everything(SEED)
    straight = build()
    train(straight, 0, 2 * N, data)

    seed_everything(SEED)
    first_half = build()
    train(first_half, 0, N, data)
    save_checkpoint("checkpoint.pt", first_half, N)
    del first_half  # nothing of it reaches the second half but the file

    script = os.path.abspath(__file__)
    subprocess.run([sys.executable, script, "resume", "checkpoint.pt", "resumed.pt"], check=True)
    resumed = torch.load("resumed.pt", weights_only=True)

    want, want_scale = straight[0].state_dict(), straight[3].get_scale()
    print(f"{2 * N} steps straight vs {N} + checkpoint + {N} in a fresh process")
    for left_out, (weights, scale, step) in resumed.items():
        same = all(torch.equal(want[k], weights[k]) for k in want)
        same_scale = scale == want_scale
        epoch, batch = divmod(step, BATCHES_PER_EPOCH)
        print(
            f"  left out: {left_out:<17} from epoch {epoch} batch {batch}  "
            f"weights equal: {same!s:<5} scale equal: {same_scale}"
        )


if __name__ == "__main__":
    if sys.argv[1:2] == ["resume"]:
        resume(*sys.argv[2:4])
    else:
        main()

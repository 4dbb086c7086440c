"""GPU-host mode for the blocks run at the page's prompt (the default leg runs its CPU blocks this
way; torchrun blocks: :mod:`.gpu_host`). While an example runs, torch answers as on a machine
with one CUDA GPU wherever the answer can change what a reader sees: to the block's own code,
and to the places in torch that tell a reader no GPU was found (:data:`NO_GPU_SITES`: autocast's
and GradScaler's "CUDA is not available", the DataLoader's pin_memory warning, ``torch.load``'s
"torch.cuda.is_available() is False"). Torch's other questions get the real answer: there a GPU
only picks a faster path (streams, fused kernels) that prints the same. Whatever would then
initialise CUDA raises :class:`CudaWouldStart`. A block whose output holds only without a GPU
prints something else than its page and fails, told what it asked; a block that takes a CUDA path
where a GPU is fails too, told that a CPU run cannot follow it: one that holds on both says why
with ``% gpu-host: <reason>`` (it runs as without the mode here, and ``nox -s gpu`` runs it on
the GPU).

Why this one run proves both the page's output and the GPU host: a block that asks none of these
questions runs exactly as without the mode, and one that asks fails unless its output holds
either way. A block that shows the CPU-only behaviour on purpose declares ``needs-no-gpu``: it
runs as without the mode, and is skipped where a GPU is."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from .gpu_host import GPU_HOST_ENV

MARK = "torchsheet GPU-host check"
#: torch's modules whose question about CUDA decides a warning or an error telling a reader that
#: no GPU was found (tests/sheet/test_gpu_host_prompt.py checks each still asks, on every leg).
NO_GPU_SITES = ("cuda/amp/common.py", "utils/data/dataloader.py", "serialization.py")
STARTS = "it would initialise CUDA"


class CudaWouldStart(RuntimeError):
    """On a machine with a GPU, this step would initialise CUDA."""


@dataclass
class Asked:
    """What a page's blocks (or torch for them) asked about CUDA so far: (question, page line or
    None). A page's examples share one: a value asked in one block is shown by a later one."""

    path: str
    questions: list[tuple[str, int | None]] = field(default_factory=list)
    example_line: int = 1  # the page line of the example running (a doctest counts from 1)

    def own(self, filename: str) -> bool:
        """Whether code of ``filename`` is the page's (a block, or a function it defined)."""
        return filename == self.path or filename.startswith(f"<doctest {self.path}[")

    def note(self, question: str) -> None:
        frame = sys._getframe(2)
        while frame is not None and not self.own(frame.f_code.co_filename):
            frame = frame.f_back
        line = None
        if frame is not None:
            doctest = frame.f_code.co_filename != self.path
            line = frame.f_lineno + (self.example_line - 1 if doctest else 0)
        entry = (question, line)
        if entry not in self.questions:
            self.questions.append(entry)

    def explain(self, place) -> str:  # noqa: ANN001 (locations.place)
        """Why the block failed in the mode: what it asked, where, and what to do."""
        asked = "; ".join(
            f"{question} (at {place(self.path, line)})" if line else question
            for question, line in self.questions
        )
        if any(question == STARTS for question, _ in self.questions):
            return (
                f"{MARK}: where a CUDA GPU is, this block takes a CUDA path, which a CPU run "
                f"cannot follow ({asked}). If what it shows holds on both, say why with "
                "'% gpu-host: <reason>' on the line before it (nox -s gpu runs it on a GPU); if "
                "the page shows what happens without a GPU, declare it `needs-no-gpu`; else name "
                "the CPU device (torch.device('cpu'))."
            )
        return (
            f"{MARK}: run as on a machine with a CUDA GPU, this block prints something else "
            f"(it asked: {asked}): its output holds only where no GPU is visible. Name the "
            "device (torch.device('cpu')) instead of asking, or, where the page shows the "
            "CPU-only behaviour on purpose, declare the block `needs-no-gpu`."
        )


def mode_on() -> bool:
    return os.environ.get(GPU_HOST_ENV) == "1"


def _torch_site(filename: str) -> bool:
    parts = Path(filename).parts
    return "torch" in parts and "/".join(parts[parts.index("torch") + 1 :]) in NO_GPU_SITES


#: Each page's questions, by path (a process runs each page once).
_ASKED: dict[str, Asked] = {}


@contextmanager
def gpu_host(path: str, example_line: int) -> Iterator[Asked]:
    """Torch as on a host with one CUDA GPU, for the example of page ``path`` starting on
    ``example_line`` (see the module)."""
    import torch

    asked = _ASKED.setdefault(path, Asked(path))
    asked.example_line = example_line

    def answer(question: str, real, simulated):  # noqa: ANN001, ANN202
        def asking(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            caller = sys._getframe(1).f_code.co_filename
            if asked.own(caller) or _torch_site(caller):
                asked.note(question)
                return simulated
            return real(*args, **kwargs)

        return asking

    def would_start(*args, **kwargs) -> None:  # noqa: ANN002, ANN003, ARG001
        asked.note(STARTS)
        raise CudaWouldStart(f"{MARK}: on a machine with a GPU, CUDA would start here")

    cuda, accelerator = torch.cuda, torch.accelerator
    patches = [
        (cuda, "is_available", answer("torch.cuda.is_available()", cuda.is_available, True)),
        (cuda, "device_count", answer("torch.cuda.device_count()", cuda.device_count, 1)),
        (cuda, "_lazy_init", would_start),
        (accelerator, "is_available",
         answer("torch.accelerator.is_available()", accelerator.is_available, True)),
        (accelerator, "device_count",
         answer("torch.accelerator.device_count()", accelerator.device_count, 1)),
        (accelerator, "current_accelerator",
         answer("the current accelerator", accelerator.current_accelerator, torch.device("cuda"))),
    ]  # fmt: skip
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in patches]
    try:
        for owner, name, value in patches:
            setattr(owner, name, value)
        yield asked
    finally:
        for owner, name, value in saved:
            setattr(owner, name, value)

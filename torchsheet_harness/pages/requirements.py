"""What a code block needs to run, declared once as ``needs-*`` classes on its directive: the same
:class:`Requirement` gives the pytest markers, the skip reason and the site's badge. One class
declares what a block shows instead: ``shows-deprecation`` (:mod:`..run.deprecations`)."""

from __future__ import annotations

import re
from dataclasses import dataclass

KNOWN = "needs-cuda, needs-gpus-N, needs-no-gpu, needs-torchrun-N, needs-slurm, shows-deprecation"
SHOWS_DEPRECATION = "shows-deprecation"
_GPUS = re.compile(r"needs-gpus-([1-9][0-9]*)")
_TORCHRUN = re.compile(r"needs-torchrun-([1-9][0-9]*)")


class RequirementError(ValueError):
    """A block declares something the harness does not know."""


@dataclass(frozen=True)
class Requirement:
    """The hardware and launcher one block needs; the default needs nothing but a CPU."""

    gpus: int = 0
    torchrun: int = 0
    slurm: bool = False
    no_gpu: bool = False  # its output holds only where no CUDA GPU is visible

    def __post_init__(self) -> None:
        if self.no_gpu and (self.gpus or self.torchrun or self.slurm):
            raise RequirementError("needs-no-gpu goes on a block run at the page's prompt alone")

    @property
    def is_cpu_only(self) -> bool:
        return self == Requirement()

    @property
    def runs_at_the_prompt(self) -> bool:
        """Whether the block runs in the page's own namespace here (a CPU block, or one that needs
        no GPU), so a later block may use its names."""
        return not (self.gpus or self.torchrun or self.slurm)

    @property
    def markers(self) -> tuple[str, ...]:
        """The pytest marker names this requirement selects under ``-m``."""
        needed = {"gpu": self.gpus, "multigpu": self.gpus >= 2, "distributed": self.torchrun}
        needed |= {"slurm": self.slurm, "nogpu": self.no_gpu}
        return tuple(name for name, yes in needed.items() if yes)

    @property
    def label(self) -> str:
        """Short badge text: 'CPU', 'CUDA', '2 GPUs', 'torchrun × 2', 'Slurm'."""
        parts = []
        if self.torchrun:
            parts.append(f"torchrun × {self.torchrun}")
        if self.gpus == 1:
            parts.append("CUDA")
        elif self.gpus:
            parts.append(f"{self.gpus} GPUs")
        if self.slurm:
            parts.append("Slurm")
        if self.no_gpu:
            parts.append("no GPU")
        return " · ".join(parts) or "CPU"

    @property
    def in_words(self) -> str:
        """What the block needs, for a sentence: 'a CUDA GPU', '2 GPUs (2 processes, torchrun)'."""
        if self.slurm:
            words = "a Slurm cluster"
        elif self.no_gpu:
            words = "a machine without a CUDA GPU"
        elif self.gpus == 1:
            words = "a CUDA GPU"
        elif self.gpus:
            words = f"{self.gpus} GPUs"
        else:
            words = "only a CPU"
        if self.torchrun:
            words += f" ({self.torchrun} processes, torchrun)"
        return words

    def as_data(self) -> dict[str, int | bool]:
        """What results files record: ``Requirement(**data)`` gives it back."""
        data = {"gpus": self.gpus, "torchrun": self.torchrun, "slurm": self.slurm}
        return {**data, "no_gpu": True} if self.no_gpu else data

    @property
    def how_to_run(self) -> str:
        """One line telling a reader how this block is run and tested."""
        if self.slurm:
            return (
                "Needs a Slurm cluster; tested with `pytest -m slurm` on a private two-node "
                "cluster on one machine."
            )
        if self.torchrun:
            where = f" on {self.gpus} GPUs with NCCL" if self.gpus else " (gloo on CPU)"
            return (
                f"Run with `torchrun --standalone --nproc-per-node {self.torchrun} script.py`"
                f"{where}; tested with `pytest -m distributed`."
            )
        if self.gpus:
            return f"Needs {self.label}; tested with `pytest -m gpu` on a GPU runner."
        if self.no_gpu:
            return (
                "Shows what torch does where no CUDA GPU is visible: tested on CPU runs, "
                "skipped where a GPU is."
            )
        return "Runs on CPU; tested on every run of the suite."


def parse_classes(classes: str, where: str, runs: bool = True) -> Requirement:
    """The requirement declared by a ``:class:`` value; ``where`` is 'page:line' for errors. A
    block that does not run (an output or text block) counts its ``needs-*`` classes only."""
    gpus = torchrun = 0
    slurm = no_gpu = False
    for name in classes.split():
        if not runs and not name.startswith("needs-"):
            continue
        if name == "needs-cuda":
            gpus = max(gpus, 1)
        elif match := _GPUS.fullmatch(name):
            gpus = max(gpus, int(match[1]))
        elif match := _TORCHRUN.fullmatch(name):
            torchrun = int(match[1])
        elif name == "needs-slurm":
            slurm = True
        elif name == "needs-no-gpu":
            no_gpu = True
        elif name == SHOWS_DEPRECATION:
            continue  # not a need: what the block shows
        else:
            raise RequirementError(f"{where}: unknown requirement {name!r}; known: {KNOWN}")
    try:
        return Requirement(gpus=gpus, torchrun=torchrun, slurm=slurm, no_gpu=no_gpu)
    except RequirementError as error:
        raise RequirementError(f"{where}: {error}") from None

"""The rule that lets ``pytest -m gpu`` run a page's GPU blocks alone (it deselects the CPU blocks
they might lean on): the GPU blocks of a page, read in order, define every name they use."""

from __future__ import annotations

from ..pages.excerpts import free_names, python_source
from ..pages.model import Page


def gpu_dependencies(page: Page) -> set[str]:
    """Names the in-process GPU blocks of ``page`` use but do not define."""
    gpu = [python_source(b.code) for b in page.blocks if b.pasted and b.requirement.gpus]
    source = "\n".join(gpu)
    return free_names(source) if source.strip() else set()

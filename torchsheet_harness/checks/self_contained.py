"""The rule that lets ``pytest -m gpu`` run a page's GPU blocks alone (it deselects the CPU blocks
they might lean on): the GPU blocks of a page, read in order, define every name they use."""

from __future__ import annotations

from sybil import Document

from ..pages.excerpts import free_names, python_source
from ..pages.page import page_of


def gpu_dependencies(document: Document) -> set[str]:
    """Names the in-process GPU blocks of a page (its ``document``) use but do not define."""
    blocks = page_of(document.path, document.text).blocks
    gpu = [python_source(block.code) for block in blocks if block.pasted and block.requirement.gpus]
    source = "\n".join(gpu)
    return free_names(source) if source.strip() else set()

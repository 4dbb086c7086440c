"""The rule that lets ``pytest -m gpu`` run a page's GPU blocks alone (it deselects the CPU blocks
they might lean on): the GPU blocks of a page, read in order, define every name they use."""

from __future__ import annotations

from collections.abc import Iterable

from sybil import Document

from ..pages.excerpts import free_names
from ..pages.parser import block_of


def region_source(region) -> str:
    """The Python source of a page region: a doctest example's source or a block's text."""
    parsed = region.parsed
    return getattr(parsed, "source", None) or str(parsed or "")


def gpu_sources(document: Document) -> Iterable[tuple[int, str]]:
    """(line, source) of each in-process GPU example of ``document``, in page order."""
    for example in document.examples():
        block = block_of(example.region)
        if block is not None and block.requirement.gpus and not block.requirement.torchrun:
            yield example.line, region_source(example.region)


def gpu_dependencies(document: Document) -> set[str]:
    """Names the GPU blocks of ``document`` use but do not define themselves."""
    source = "\n".join(text for _, text in gpu_sources(document))
    return free_names(source) if source.strip() else set()

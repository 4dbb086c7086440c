"""Slow blocks: a CPU block over its time budget is named in the run's terminal summary.

The budget is what a reader waits for at a cheat sheet's block before thinking it hangs, on the
busy 2-core machines the suite runs on: ``IN_PROCESS_BUDGET_SECONDS`` (10 s) for a block run in
the page's interpreter, ``LAUNCHED_BUDGET_SECONDS`` (60 s) for one run as processes (torchrun,
Slurm, a snippet script: interpreters started and torch imported per rank). Judged is the
examples' call time: a page's setup (the first page of a process imports torch) is not the
block's. Over budget is a line to read, not a failure: the same block takes twice as long on a
loaded machine. GPU blocks are not judged (their time is the GPU runner's).
"""

from __future__ import annotations

from pathlib import Path

from ..pages.page import Block, read_page

IN_PROCESS_BUDGET_SECONDS = 10.0
LAUNCHED_BUDGET_SECONDS = 60.0


def budget(block: Block) -> float | None:
    """The budget of a block; None: not judged (a GPU block, or one not run)."""
    requirement = block.requirement
    if requirement.gpus or block.not_run is not None:
        return None
    launched = requirement.torchrun or requirement.slurm or block.kind == "literalinclude"
    return LAUNCHED_BUDGET_SECONDS if launched else IN_PROCESS_BUDGET_SECONDS


def slow_blocks(seconds: dict[tuple[str, int], float], docs: Path) -> list[str]:
    """One line per CPU block over its budget, 'docs/page.md:42 took 12.3 s (budget 10 s ...)'.

    ``seconds``: each block's call time, by (page under ``docs``, line).
    """
    lines = []
    for (page, line), took in sorted(seconds.items(), key=lambda item: -item[1]):
        block = read_page(docs / page).block_at(line)
        limit = budget(block) if block is not None else None
        if limit is None or took <= limit:
            continue
        how = "launched" if limit == LAUNCHED_BUDGET_SECONDS else "in process"
        lines.append(
            f"torchsheet: slow block docs/{page}:{line} took {took:.1f} s "
            f"(budget {limit:.0f} s {how})"
        )
    return lines

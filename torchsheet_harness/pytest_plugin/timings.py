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

IN_PROCESS_BUDGET_SECONDS = 10.0
LAUNCHED_BUDGET_SECONDS = 60.0


def budget(block: dict) -> float | None:
    """The budget of a block (its recorded block property); None: not judged (a GPU block)."""
    if block.get("gpus"):
        return None
    return LAUNCHED_BUDGET_SECONDS if block.get("launched") else IN_PROCESS_BUDGET_SECONDS


def slow_blocks(
    seconds: dict[tuple[str, int], float], described: dict[tuple[str, int], dict]
) -> list[str]:
    """One line per CPU block over its budget, 'docs/page.md:42 took 12.3 s (budget 10 s ...)'.

    ``seconds``: each block's call time, by (page under docs/, line).
    """
    lines = []
    for (page, line), took in sorted(seconds.items(), key=lambda item: -item[1]):
        block = described.get((page, line), {})
        limit = budget(block)
        if limit is None or took <= limit or block.get("not_run") is not None:
            continue
        how = "launched" if block.get("launched") else "in process"
        lines.append(
            f"torchsheet: slow block docs/{page}:{line} took {took:.1f} s "
            f"(budget {limit:.0f} s {how})"
        )
    return lines

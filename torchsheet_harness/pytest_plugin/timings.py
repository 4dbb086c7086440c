"""Slow blocks: a CPU block whose examples' call time is over its budget (what a reader waits for
before thinking it hangs, on a busy 2-core machine) is named in the terminal summary, not failed."""

from __future__ import annotations

from pathlib import Path

from ..pages.page import read_page

IN_PROCESS_BUDGET_SECONDS = 10.0
LAUNCHED_BUDGET_SECONDS = 60.0


def slow_blocks(seconds: dict[tuple[str, int], float], docs: Path) -> list[str]:
    """'torchsheet: slow block docs/page.md:42 took 12.3 s (budget 10 s in process)' for each CPU
    block over its budget; ``seconds``: each block's call time, by (page under ``docs``, line)."""
    lines = []
    for (page, line), took in sorted(seconds.items(), key=lambda item: -item[1]):
        block = read_page(docs / page).block_at(line)
        if block is None or block.requirement.gpus or block.not_run is not None:
            continue  # not judged: a GPU block, or one not run
        requirement = block.requirement
        launched = requirement.torchrun or requirement.slurm or block.kind == "literalinclude"
        limit = LAUNCHED_BUDGET_SECONDS if launched else IN_PROCESS_BUDGET_SECONDS
        if took <= limit:
            continue
        how = "launched" if launched else "in process"
        lines.append(
            f"torchsheet: slow block docs/{page}:{line} took {took:.1f} s "
            f"(budget {limit:.0f} s {how})"
        )
    return lines

"""Which pages paste cleanly at which prompt, and how: the matrix behind docs/verification.md.

For each page and each prompt (the classic prompt; Python 3.13's REPL and IPython, each pasted
bracketed, typed, and the REPL's own way; IPython's --simple-prompt, typed), paste the page's
CPU blocks one after another as tests/harness/test_paste_repls.py does, and count per page and per
block: a SyntaxError or IndentationError, a traceback the page does not show, and whether every
output line of the page is on the screen ("all outputs") or every line such a prompt shows of
them ("shown"). Run inside the paste-repls environment (Python 3.13, IPython, torch, the test
extra)::

    python benchmarks/paste_matrix.py [docs/tensors/numpy.md ...]   # default: every page
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from built_site import DOCS, build_site  # noqa: E402
from pasted_steps import page_steps, prompt_problems  # noqa: E402
from prompt_session import TRACEBACK, ClassicPrompt  # noqa: E402
from repl_screen import IPYTHON, IPYTHON_SIMPLE, PYTHON_REPL, ReplError, ReplScreen  # noqa: E402

from torchsheet_harness.locations import page_files  # noqa: E402

PROMPTS = [("classic", None, "typed")] + [
    (repl.name, repl, how) for repl in (PYTHON_REPL, IPYTHON) for how in ("bracketed", "typed")
] + [(repl.name, repl, "own-way") for repl in (PYTHON_REPL, IPYTHON)] + [
    (IPYTHON_SIMPLE.name, IPYTHON_SIMPLE, "typed")
]  # fmt: skip


def one_page(source: Path, site: Path, repl, how: str, work: Path) -> dict:
    """Counts for one page pasted at one prompt."""
    steps = page_steps(source, site)
    one_input = repl is not None and how != "typed"  # typed: each statement its own input
    counts = {"blocks": len(steps), "errors": 0, "all outputs": 0, "shown": 0}
    session = ClassicPrompt(work, 120) if repl is None else ReplScreen(repl, work, 120)
    try:
        for step in steps:
            shown = session.paste(step["copied"]) if repl is None else session.paste(
                step["copied"], how
            )  # fmt: skip
            traceback = TRACEBACK if repl is None else repl.traceback
            every = prompt_problems(step, shown, traceback)
            some = prompt_problems(step, shown, traceback, one_input=one_input)
            counts["errors"] += any(not p.startswith("the terminal did not") for p in every)
            counts["all outputs"] += not every
            counts["shown"] += not some
    except ReplError as error:
        counts["stopped"] = str(error)[:200]
    finally:
        session.close()
    return counts


def main(argv: list[str]) -> None:
    sources = [Path(a).resolve() for a in argv] or page_files(DOCS)
    with tempfile.TemporaryDirectory() as scratch:
        site = build_site(Path(scratch))
        rows = []
        for source in sources:
            for name, repl, how in PROMPTS:
                work = Path(tempfile.mkdtemp(dir=scratch))
                start = time.perf_counter()
                try:
                    counts = one_page(source, site, repl, how, work)
                except BaseException as error:  # noqa: BLE001 - a page without CPU blocks
                    if type(error).__name__ != "Skipped":
                        raise
                    continue
                counts.update(prompt=f"{name} {how}", page=str(source.relative_to(DOCS)))
                counts["seconds"] = round(time.perf_counter() - start, 1)
                rows.append(counts)
                print(json.dumps(counts), flush=True)
    for prompt in dict.fromkeys(row["prompt"] for row in rows):
        mine = [row for row in rows if row["prompt"] == prompt]
        clean = sum(row["all outputs"] == row["blocks"] for row in mine)
        shown = sum(row["shown"] == row["blocks"] for row in mine)
        blocks = sum(row["blocks"] for row in mine)
        errors = sum(row["errors"] for row in mine)
        print(
            f"{prompt}: {len(mine)} pages, {blocks} blocks; every output shown: {clean} pages; "
            f"what the prompt shows, shown: {shown} pages; blocks with an error: {errors}"
        )


if __name__ == "__main__":
    main(sys.argv[1:])

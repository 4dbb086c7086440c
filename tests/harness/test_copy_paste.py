"""What a reader copies from the built site runs at a fresh ``python`` prompt, block after block.

For every page: take each CPU Python block from the built HTML, in page order, apply what the
copy button does (sphinx-copybutton's formatCopyText with the settings in the built
copybutton.js, then torchsheet's pasteReady; ported in
:mod:`torchsheet_harness.sphinx_ext.copy_text`, and the browser test checks the port against
the real JavaScript), and

- check without running it that the copied text is exactly the block's statements
  (tests/support/pasted_steps.py, ``copy_problem``): a ``>>>`` block's non-empty lines are its
  examples' source lines, and the text parses (``ast.dump``) to the same statements as their
  sources; a plain block's parses as its code does;
- paste the lot into one fresh interpreter: the real classic prompt on a pseudo-terminal
  (tests/support/prompt_session.py: ``python -I -q`` in an empty directory, the interpreter the
  suite runs), no harness setup, no seeding, no names the page does not define; each block pasted,
  then Enter, as a reader does. No SyntaxError or IndentationError, no traceback the page does
  not show, each ``>>>`` example shows exactly its output on the page (an exception: its
  exception line(s)), and a plain block prints its output block
  (tests/support/prompt_outputs.py says exactly how, and compares as the page tests do: ``...``,
  runs of whitespace).

Left out, with reason: blocks that need CUDA, GPUs, torchrun or Slurm (they cannot run here and
are self-contained, so later blocks cannot depend on them), blocks marked not-run, and
literal-included scripts (run as ``python script.py`` by the page tests).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from built_site import DOCS, build_site
from pasted_steps import page_steps
from prompt_outputs import pasted_problems
from prompt_session import ClassicPrompt

from torchsheet_harness.locations import page_files

#: The longest a pasted line may run at the prompt before the test gives up on the page.
LINE_TIMEOUT_SECONDS = 120
SOURCES = page_files(DOCS)


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_site(tmp_path_factory.getbasetemp())


def page_pastes(source: Path, site: Path, cwd: Path, docs: Path = DOCS) -> list[str]:
    """The problems of pasting ``source``'s built page into a fresh prompt started in ``cwd``
    (an empty directory); fails first when a block does not copy to exactly its statements."""
    steps = page_steps(source, site, docs)
    prompt = ClassicPrompt(cwd, timeout=LINE_TIMEOUT_SECONDS)
    try:
        return pasted_problems(steps, prompt)
    finally:
        prompt.close()


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: str(p.relative_to(DOCS)))
def test_page_pastes_into_a_fresh_prompt(source: Path, site: Path, tmp_path: Path) -> None:
    problems = page_pastes(source, site, tmp_path)
    assert not problems, "\n\n".join(problems)

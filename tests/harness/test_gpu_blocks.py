"""GPU blocks define every name they use, so `pytest -m gpu` can run them without the CPU blocks."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from sybil import Document

from torchsheet_harness.checks.self_contained import free_names, gpu_dependencies
from torchsheet_harness.locations import page_files
from torchsheet_harness.pages.collect import page_sybil

REPO = Path(__file__).resolve().parents[2]
PAGES = page_files(REPO / "docs")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_gpu_blocks_are_self_contained(page: Path) -> None:
    document = page_sybil(REPO / "docs").parse(page)
    missing = gpu_dependencies(document)
    assert not missing, (
        f"{page.relative_to(REPO)}: GPU blocks use {sorted(missing)} defined only by CPU blocks; "
        "`pytest -m gpu` would deselect those. Import/define them in the GPU block."
    )


def test_a_dependent_gpu_block_is_caught(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        textwrap.dedent("""\
            ```python
            import torch
            x = torch.ones(2)
            ```

            ```{code-block} python
            :class: needs-cuda
            >>> y = x.cuda()
            >>> import math
            >>> math.pi > 3
            True
            ```
            """)
    )
    document = page_sybil(tmp_path).parse(page)
    assert isinstance(document, Document)
    assert gpu_dependencies(document) == {"x"}


def test_free_names() -> None:
    source = "import torch\ndef f(a):\n    return a + g() + y\ndef g():\n    return 1\nf(1)\n"
    assert free_names(source) == {"y"}
    assert free_names("for i in range(2):\n    print(i)\nwith open('f') as h:\n    h\n") == set()

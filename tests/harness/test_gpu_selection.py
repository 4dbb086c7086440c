"""A block's pytest markers follow its declaration, so `pytest -m gpu` selects exactly the GPU
blocks (that they are skipped without CUDA, never passed: test_results_file.py's ``-m gpu`` run);
a requirement reads back from its recorded data and in words."""

from __future__ import annotations

import pytest
from planted import PAGE, write_project

from torchsheet_harness.pages.requirements import Requirement

#: planted's page and a block that needs two GPUs and torchrun (line 28).
MIXED = (
    PAGE + "\n```{code-block} python\n:class: needs-torchrun-2 needs-gpus-2\nimport torch\n```\n"
)


def test_markers_follow_the_declaration(pytester: pytest.Pytester) -> None:
    write_project(pytester.path, {"mixed.md": MIXED})
    items, _ = pytester.inline_genitems("docs")
    kinds = {"gpu", "multigpu", "distributed"}
    marked = [{marker.name for marker in item.iter_markers()} & kinds for item in items]
    assert marked == [set(), set(), {"gpu"}, {"gpu"}, set(), kinds]
    selected = pytester.runpytest_inprocess("--co", "-q", "-m", "multigpu and distributed", "docs")
    selected.stdout.fnmatch_lines(
        ["docs/mixed.md::line:28,*", "1/6 tests collected (5 deselected)*"]
    )


def test_a_requirement_reads_back_from_its_recorded_data_and_in_words() -> None:
    cases = {
        Requirement(gpus=1): "a CUDA GPU",
        Requirement(gpus=2): "2 GPUs",
        Requirement(torchrun=2, gpus=2): "2 GPUs (2 processes, torchrun)",
        Requirement(torchrun=4): "only a CPU (4 processes, torchrun)",
        Requirement(slurm=True): "a Slurm cluster",
    }
    for requirement, words in cases.items():
        assert Requirement(**requirement.as_data()) == requirement
        assert requirement.in_words == words

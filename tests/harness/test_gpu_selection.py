"""A block's pytest markers follow its declaration, so `pytest -m gpu` selects exactly the GPU
blocks (that they are skipped without CUDA, never passed: test_results_file.py's ``-m gpu`` run);
a requirement reads back from its recorded data and in words."""

from __future__ import annotations

import pytest
from planted import write_project

from torchsheet_harness.pages.requirements import Requirement

PAGE = """# Mixed page

```python
cpu_only_name = 1
```

```{code-block} python
:class: needs-cuda
>>> import torch
>>> torch.ones(1, device="cuda").device
device(type='cuda', index=0)
```

```{code-block} python
:class: needs-torchrun-2 needs-gpus-2
import torch
assert torch.cuda.device_count() >= 2
```
"""


def test_markers_follow_the_declaration(pytester: pytest.Pytester) -> None:
    write_project(pytester.path, {"mixed.md": PAGE})
    items, _ = pytester.inline_genitems("docs")
    kinds = {"gpu", "multigpu", "distributed"}
    marked = [{marker.name for marker in item.iter_markers()} & kinds for item in items]
    assert marked == [set(), {"gpu"}, {"gpu"}, kinds]
    selected = pytester.runpytest_inprocess("--co", "-q", "-m", "multigpu and distributed", "docs")
    selected.stdout.fnmatch_lines(
        ["docs/mixed.md::line:14,*", "1/4 tests collected (3 deselected)*"]
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

"""`pytest -m gpu` selects exactly the GPU blocks; without CUDA they are SKIPPED, never passed."""

from __future__ import annotations

from pathlib import Path

import pytest
from planted import run_pytest, write_project

import torchsheet_harness.pages.requirements as requirements

PAGE = """
    # Mixed page

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


@pytest.mark.skipif(requirements.cuda_device_count() > 0, reason="checks the CPU-only behaviour")
def test_gpu_selection_on_a_cpu_machine(tmp_path: Path) -> None:
    write_project(tmp_path, {"mixed.md": PAGE})
    result = run_pytest(tmp_path, "-m", "gpu")
    out = result.stdout
    assert result.returncode == 0, out
    assert "1 deselected" in out  # the CPU block
    assert "needs CUDA, found 0 CUDA GPUs" in out
    assert "needs 2 CUDA GPUs, found 0" in out
    assert "3 skipped" in out and "passed" not in out.splitlines()[-1]


def test_markers_follow_the_declaration(tmp_path: Path) -> None:
    write_project(tmp_path, {"mixed.md": PAGE})
    result = run_pytest(tmp_path, "--collect-only", "-q", "-m", "multigpu and distributed")
    assert "docs/mixed.md::line:14," in result.stdout, result.stdout  # the torchrun block
    assert "1/4 tests collected (3 deselected)" in result.stdout


def test_a_requirement_reads_back_from_its_recorded_data_and_in_words() -> None:
    from torchsheet_harness.pages.requirements import Requirement

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

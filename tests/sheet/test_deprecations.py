"""A block that uses a deprecated API fails, naming page, line and the warning; one that shows a
deprecation on purpose declares it and passes; a deprecation raised inside torch is listed.

One pytest run over planted pages (in-process blocks), one over a torchrun page (two launches).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import torch
from planted import run_pytest, write_project

pytestmark = pytest.mark.torchsheet_inputs()  # what its verdict reads (reuse key)

GRADSCALER = "`torch.cuda.amp.GradScaler(args...)` is deprecated"

PAGES = {
    "plain.md": """
        # A plain block on CPU

        ```python
        import torch

        scaler = torch.cuda.amp.GradScaler(enabled=False)
        ```
        """,
    "prompt.md": """
        # A >>> block

        ```python
        >>> import torch
        >>> x = 1
        >>> with torch.cpu.amp.autocast(enabled=False):
        ...     y = torch.ones(2) * x
        >>> y
        tensor([1., 1.])
        ```
        """,
    "wrapped.md": """
        # A deprecated API behind torch's own wrapper

        ```python
        >>> import torch
        >>> import torch.distributed as dist
        >>> dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
        >>> out = torch.empty(2)
        >>> dist.all_gather_into_tensor(out, torch.ones(2))
        >>> dist.destroy_process_group()
        ```
        """,
    "declared.md": """
        # A deprecation shown on purpose

        ```{code-block} python
        :class: shows-deprecation
        >>> import torch
        >>> scaler = torch.cuda.amp.GradScaler(enabled=False)
        FutureWarning: `torch.cuda.amp.GradScaler(args...)` is deprecated. Please use ...
        >>> scaler = torch.amp.GradScaler("cuda", enabled=False)
        ```
        """,
    "declared_unused.md": """
        # A declaration nothing uses

        ```{code-block} python
        :class: shows-deprecation
        >>> import torch
        >>> scaler = torch.amp.GradScaler("cuda", enabled=False)
        ```
        """,
    "inside_torch.md": """
        # A deprecation torch raises in its own files

        ```python
        >>> import warnings
        >>> warnings.warn_explicit("planted internal", DeprecationWarning, "/torch/internal.py", 7)
        >>> 1 + 1
        2
        ```
        """,
}

TORCHRUN_PAGE = """
    # Deprecated API in a rank

    ```{code-block} python
    :class: needs-torchrun-2
    import torch
    import torch.distributed as dist

    dist.init_process_group("gloo")
    x = torch.ones(2)
    scaler = torch.cuda.amp.GradScaler(enabled=False)  # deprecated on every leg of the matrix
    dist.destroy_process_group()
    ```

    ```{code-block} python
    :class: needs-torchrun-2
    import warnings

    warnings.warn_explicit("planted rank internal", DeprecationWarning, "/torch/rank.py", 9)
    print("ok")
    ```

    ```{code-block} text
    :class: output
    ok
    ok
    ```
    """


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> str:
    root = tmp_path_factory.mktemp("deprecations")
    write_project(root, PAGES)
    finished = run_pytest(root, "-p", "no:randomly", "-W", "default", "docs")
    return finished.stdout + finished.stderr


def outcome(report: str, page: str, line: int) -> str:
    match = re.search(rf"^(PASSED|FAILED|ERROR) docs/{re.escape(page)}::line:{line},", report, re.M)
    return match[1] if match else "missing"


def test_a_deprecated_call_in_a_plain_block_fails_naming_page_and_line(run: str) -> None:
    assert outcome(run, "plain.md", 3) == "FAILED"
    assert f"docs/plain.md:6: deprecated API: FutureWarning: {GRADSCALER}" in run


def test_a_deprecated_call_in_a_prompt_block_fails_naming_its_line(run: str) -> None:
    assert outcome(run, "prompt.md", 6) == "FAILED"
    assert "docs/prompt.md:6: deprecated API: FutureWarning: `torch.cpu.amp.autocast" in run
    assert outcome(run, "prompt.md", 8) == "PASSED"


WRAPPED_DEPRECATION = tuple(int(part) for part in torch.__version__.split(".")[:2]) < (2, 15)


@pytest.mark.skipif(
    not WRAPPED_DEPRECATION,
    reason="torch 2.15 no longer deprecates all_gather_into_tensor, the one deprecated API known "
    "to warn through torch's own wrapper; the rule is checked on the legs that have it",
)
def test_a_deprecated_call_torch_wraps_is_still_the_blocks(run: str) -> None:
    # torch.distributed's _exception_logger takes the stacklevel: the warning points at
    # c10d_logger.py, whose caller is the block's line.
    assert outcome(run, "wrapped.md", 8) == "FAILED"
    gather = "`torch.distributed.all_gather_into_tensor` is deprecated"
    assert f"docs/wrapped.md:8: deprecated API: FutureWarning: {gather}" in run


def test_a_declared_deprecation_passes_and_is_its_output(run: str) -> None:
    assert [outcome(run, "declared.md", line) for line in (5, 6, 8)] == ["PASSED"] * 3


def test_a_declaration_without_a_deprecation_fails(run: str) -> None:
    assert outcome(run, "declared_unused.md", 6) == "FAILED"
    assert "docs/declared_unused.md:3: the block declares shows-deprecation, but" in run


def test_a_deprecation_raised_inside_torch_passes_and_is_listed(run: str) -> None:
    assert outcome(run, "inside_torch.md", 5) == "PASSED"
    assert "/torch/internal.py:7: DeprecationWarning: planted internal" in run


def test_a_deprecated_call_in_a_rank_fails_and_an_internal_one_is_listed(tmp_path: Path) -> None:
    write_project(tmp_path, {"ranks.md": TORCHRUN_PAGE})
    finished = run_pytest(tmp_path, "-W", "default", "docs")
    report = finished.stdout + finished.stderr
    assert outcome(report, "ranks.md", 3) == "FAILED"
    assert f"docs/ranks.md:10: deprecated API: FutureWarning: {GRADSCALER}" in report
    assert "(an error in rank 0; use what the warning says)" in report
    assert outcome(report, "ranks.md", 14) == "PASSED"
    assert "/torch/rank.py:9: DeprecationWarning: planted rank internal" in report

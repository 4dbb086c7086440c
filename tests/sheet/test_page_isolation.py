"""One page cannot change another's results: global torch state is restored after each page."""

from __future__ import annotations

import pytest
from planted import run_pytest, write_project

pytestmark = pytest.mark.torchsheet_inputs()  # what its verdict reads (reuse key)

# Runs first (alphabetical): changes everything a page could change.
MUTATE = """
    # Mutating page

    ```python
    import os
    import torch

    torch.set_default_dtype(torch.float64)
    torch.set_default_device("cpu")
    torch.serialization.add_safe_globals([os.PathLike])
    _ = torch.set_grad_enabled(False)  # (a prompt would echo what these return)
    torch.use_deterministic_algorithms(True)
    _ = torch.autograd.set_detect_anomaly(True)
    torch.set_warn_always(True)
    torch.set_printoptions(precision=1)
    torch.set_num_threads(1)
    torch.set_float32_matmul_precision("medium")
    torch.backends.cudnn.benchmark = True
    _ = torch.manual_seed(1234)
    os.environ["TORCHSHEET_LEAK"] = "1"
    os.chdir("/")
    ```

    ```python
    >>> torch.tensor([1.0]).dtype
    torch.float64
    ```
    """

# Runs second: sees the defaults again.
CHECK = """
    # Checking page

    ```python
    >>> import os, torch
    >>> torch.get_default_dtype(), torch.is_grad_enabled()
    (torch.float32, True)
    >>> torch.are_deterministic_algorithms_enabled(), torch.is_anomaly_enabled()
    (False, False)
    >>> torch.is_warn_always_enabled()
    False
    >>> torch.tensor([1 / 3])
    tensor([0.3333])
    >>> torch.get_float32_matmul_precision(), torch.backends.cudnn.benchmark
    ('highest', False)
    >>> from torch.overrides import _get_current_function_mode_stack
    >>> _get_current_function_mode_stack(), os.PathLike in torch.serialization.get_safe_globals()
    ([], False)
    >>> "TORCHSHEET_LEAK" in os.environ, os.getcwd() == "/"
    (False, False)
    >>> seeded = torch.Generator().manual_seed(1234)  # what the other page set
    >>> torch.equal(torch.rand(2), torch.rand(2, generator=seeded))  # fresh, as a new prompt's
    False
    ```

    ```python
    >>> import torch
    >>> torch.get_num_threads() == NUM_THREADS
    True
    ```
    """


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """One pytest run over three pages: the mutating page, the check page after it, and the
    mutations followed by the checks within one page (where nothing restores the state)."""
    import torch

    root = tmp_path_factory.mktemp("isolation")
    check = CHECK.replace("NUM_THREADS", str(torch.get_num_threads()))
    same_page = MUTATE + "\n" + check.split("\n", 2)[2]
    write_project(root, {"a_mutate.md": MUTATE, "b_check.md": check, "c_same_page.md": same_page})
    result = run_pytest(root, "-p", "no:randomly")
    return result.stdout + result.stderr, check


def test_global_state_is_restored_between_pages(run) -> None:
    out, check = run
    # Every example of the two pages passes: 2 on the mutating page, 13 on the check page.
    assert out.count("PASSED docs/a_mutate.md::") == 2, out
    assert out.count("PASSED docs/b_check.md::") == check.count(">>> ") == 13, out
    assert "FAILED docs/a_mutate.md" not in out and "FAILED docs/b_check.md" not in out, out
    assert "ERROR docs/" not in out, out  # no collection error either


def test_the_check_page_can_fail(run) -> None:
    """Without the restore the check page fails: the checks after the mutations, in one page."""
    out, _ = run
    assert "FAILED docs/c_same_page.md::" in out, out
    assert "Expected:\n    (torch.float32, True)" in out

"""One page cannot change another's results: global torch state is restored after each page."""

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


def test_global_state_is_restored_between_pages(tmp_path) -> None:
    """The check page passes after the mutating page; the same checks after the same mutations
    in one page (where nothing restores the state) fail: the check can fail."""
    import torch

    check = CHECK.replace("NUM_THREADS", str(torch.get_num_threads()))
    same_page = MUTATE + "\n" + check.split("\n", 2)[2]
    write_project(
        tmp_path, {"a_mutate.md": MUTATE, "b_check.md": check, "c_same_page.md": same_page}
    )
    result = run_pytest(tmp_path, "-p", "no:randomly", "docs/a_mutate.md", "docs/b_check.md")
    result.assert_outcomes(passed=2 + check.count(">>> "))  # every example of the two pages
    result = run_pytest(tmp_path, "-p", "no:randomly", "docs/c_same_page.md")
    result.stdout.fnmatch_lines(
        ["Expected:", "    (torch.float32, True)", "FAILED docs/c_same_page.md::*"]
    )

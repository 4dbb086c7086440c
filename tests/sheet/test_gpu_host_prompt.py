"""The places in torch that tell a reader no GPU was found, which the GPU-host mode of the blocks
run at the prompt answers as on a GPU host (torchsheet_harness/run/gpu_host_prompt.py), still ask
about the accelerator in this leg's torch: a release that moved one would leave its warning
unchecked."""

from pathlib import Path

import pytest
import torch

from torchsheet_harness.run.gpu_host_prompt import NO_GPU_SITES

pytestmark = pytest.mark.torchsheet_inputs()
TORCH = Path(torch.__file__).parent


@pytest.mark.parametrize("site", NO_GPU_SITES)
def test_each_site_still_asks_about_the_accelerator(site: str) -> None:
    source = (TORCH / site).read_text(encoding="utf-8")
    asks = ("cuda.is_available()", "accelerator.is_available()", "device_module.is_available()")
    assert any(question in source for question in asks)

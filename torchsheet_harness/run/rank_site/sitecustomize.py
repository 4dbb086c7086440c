"""Imported at start-up by each process of a launched block (this folder first on its PYTHONPATH):
the script's own deprecations become errors, and in GPU-host mode torch answers as on a GPU host.
A ``sitecustomize`` of the environment's own is shadowed by this one, so it is run next."""

import importlib.machinery
import importlib.util
import os
import sys

from torchsheet_harness.run.gpu_host import install as install_gpu_host
from torchsheet_harness.run.warning_origin import install_rank_hook

install_rank_hook()
install_gpu_host()

_here = os.path.dirname(os.path.abspath(__file__))
_rest = [path for path in sys.path if os.path.abspath(path or ".") != _here]
_spec = importlib.machinery.PathFinder.find_spec("sitecustomize", _rest)
if _spec is not None and _spec.loader is not None:
    _spec.loader.exec_module(importlib.util.module_from_spec(_spec))

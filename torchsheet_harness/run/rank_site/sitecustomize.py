"""Imported at start-up by each process of a launched block (this folder is put first on its
PYTHONPATH): the script's own deprecations become errors (:mod:`..warning_origin`)."""

from torchsheet_harness.run.warning_origin import install_rank_hook

install_rank_hook()

"""Results files' places: where a test run writes one, and what the docs build reads.

Where a run writes (:func:`output_path`): an explicit option (pytest's
``--torchsheet-results``), else ``$TORCHSHEET_RESULTS``, else ``docs/_build/results/``. A value
ending in ``.json`` is that file; any other value is a folder that receives ``<key>.json``. An
empty value means no file.

What the docs build reads (:func:`input_paths`): Sphinx's ``torchsheet_results`` (or
``torchsheet_results_file``), else ``$TORCHSHEET_RESULTS``, else both ``docs/_build/results/``
(runs on this machine and CI: not committed) and ``docs/_results/`` (committed results, from a
GPU runner for instance); several paths are separated by ``os.pathsep``; a folder means every
``*.json`` in it. A relative option is taken from the option's own base (the working directory
for pytest, the docs folder for Sphinx), a relative ``$TORCHSHEET_RESULTS`` from the working
directory.
"""

from __future__ import annotations

import os
from pathlib import Path

from .results import Environment, environment_key

RESULTS_ENV = "TORCHSHEET_RESULTS"
BUILD_DIR = Path("_build", "results")  # under the docs folder; not committed
COMMITTED_DIR = Path("_results")  # under the docs folder; committed results files


def output_path(
    option: str | None, *, docs: Path, environment: Environment, option_base: Path | None = None
) -> Path | None:
    """The file a run in ``environment`` writes (see the module docstring); None: none."""
    if option is not None:
        value: Path | None = Path(option_base or Path.cwd(), option) if option else None
    elif (env := os.environ.get(RESULTS_ENV)) is not None:
        value = Path(env).absolute() if env else None
    else:
        value = docs / BUILD_DIR
    if value is None or value.suffix == ".json":
        return value
    return value / f"{environment_key(environment)}.json"


def input_paths(option: str | None, *, docs: Path, option_base: Path | None = None) -> list[Path]:
    """The files and folders the docs build reads (see the module docstring)."""
    if option is not None:
        base = option_base or Path.cwd()
        return [Path(base, part) for part in option.split(os.pathsep) if part]
    env = os.environ.get(RESULTS_ENV)
    if env is not None:
        return [Path(part).absolute() for part in env.split(os.pathsep) if part]
    return [docs / BUILD_DIR, docs / COMMITTED_DIR]

"""Where a test run writes its results file and which ones the docs build reads (the rules:
MAINTAINING.md, "Results files")."""

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
    """The file a run in ``environment`` writes; None: none."""
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
    """The files and folders the docs build reads."""
    if option is not None:
        base = option_base or Path.cwd()
        return [Path(base, part) for part in option.split(os.pathsep) if part]
    env = os.environ.get(RESULTS_ENV)
    if env is not None:
        return [Path(part).absolute() for part in env.split(os.pathsep) if part]
    return [docs / BUILD_DIR, docs / COMMITTED_DIR]

"""The torch versions the sheet is tested on, ``noxfile.TORCH_VERSIONS``, read from the file's
source: the docs build needs them and runs without nox."""

from __future__ import annotations

import ast
from pathlib import Path

NOXFILE = Path(__file__).resolve().parent.parent / "noxfile.py"


def torch_versions(noxfile: Path = NOXFILE) -> tuple[str, ...]:
    """``TORCH_VERSIONS`` as the noxfile assigns it (a literal tuple of version strings)."""
    for node in ast.parse(noxfile.read_text(encoding="utf-8")).body:
        targets = getattr(node, "targets", [])
        names = [target.id for target in targets if isinstance(target, ast.Name)]
        if isinstance(node, ast.Assign) and "TORCH_VERSIONS" in names:
            return tuple(ast.literal_eval(node.value))
    raise ValueError(f"{noxfile}: no TORCH_VERSIONS = (...) assignment")


def release(version: str) -> str:
    """The release a build belongs to: '2.15.0+cu132' -> '2.15.0'."""
    return version.split("+", 1)[0]


def version_key(version: str) -> tuple[int, ...]:
    """Sortable: '2.14.1' -> (2, 14, 1); non-numeric parts count as 0."""
    return tuple(int(part) if part.isdigit() else 0 for part in release(version).split("."))

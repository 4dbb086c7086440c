"""The checks side imports nothing from the site side: no module of torchsheet_harness/checks
imports torchsheet_harness.sphinx_ext, directly or through another module of the harness (read
from the source, ``ast`` over the imports: nothing is imported to find out)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "torchsheet_harness"
SITE = "torchsheet_harness.sphinx_ext"


def module_file(name: str) -> Path | None:
    """The source of the harness module ``name``, None for a module from elsewhere."""
    path = PACKAGE.parent.joinpath(*name.split("."))
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def imported_names(path: Path) -> set[str]:
    """Every module ``path`` imports, as an absolute name (``from . import x``: the package,
    and ``package.x`` when that is a module of the harness)."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    package = parts[:-1]
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = list(package[: len(package) - node.level + 1]) if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            names.add(module)
            names.update(
                f"{module}.{alias.name}"
                for alias in node.names
                if module_file(f"{module}.{alias.name}") is not None
            )
    return names


def test_no_checks_module_imports_the_sphinx_extension() -> None:
    found = []
    for start in sorted((PACKAGE / "checks").glob("*.py")):
        seen, todo = set(), [start]
        while todo:
            path = todo.pop()
            for name in imported_names(path):
                if name == SITE or name.startswith(SITE + "."):
                    found.append(f"{start.name} imports {name} (in {path.name})")
                elif (file := module_file(name)) is not None and file not in seen:
                    seen.add(file)
                    todo.append(file)
    assert not found, "\n".join(sorted(set(found)))

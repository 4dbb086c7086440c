"""The API facts a run records (the site derives "new in", "signature changed in" and "deprecated
in" from every leg's): the torch names each block's code uses (:func:`block_names`), and what the
installed torch has for each (:func:`facts`): its call signature, its deprecation, or that it is
missing. Read, not run (:mod:`.torch_names`)."""

from __future__ import annotations

import ast

from ..pages.excerpts import source_parts
from ..pages.model import Block
from .torch_names import Missing, chains, deprecated, signature


def block_names(block: Block) -> list[str]:
    """The dotted torch names ``block``'s Python uses, each once, in order; none for a block
    that is not Python run here (a batch script, a shell block)."""
    if not block.executed or block.requirement.slurm:
        return []
    if block.included is not None and block.included.suffix != ".py":
        return []
    nodes: list[ast.AST] = []
    for source, _ in source_parts(block.code):
        try:
            nodes += list(ast.walk(ast.parse(source)))
        except SyntaxError:
            continue
    return list(dict.fromkeys(dotted for _, dotted in chains(nodes)))


def facts(names: list[str]) -> dict[str, dict[str, str | bool]]:
    """What this torch has for each name: ``signature`` and ``deprecated`` where there is one,
    ``missing`` where it names nothing, ``unresolved`` where looking it up raised."""
    found: dict[str, dict[str, str | bool]] = {}
    for dotted in sorted(set(names)):
        fact: dict[str, str | bool] = {}
        try:
            if (text := signature(dotted)) is not None:
                fact["signature"] = text
            if (message := deprecated(dotted)) is not None:
                fact["deprecated"] = message
        except Missing:
            fact = {"missing": True}
        except Exception:  # an import or a property that raised: nothing to compare
            fact = {"unresolved": True}
        found[dotted] = fact
    return found

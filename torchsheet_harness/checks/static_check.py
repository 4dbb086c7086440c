"""Reads code this machine cannot run, without running it, against the installed torch:
:func:`findings` reports, at its page line, a ``SyntaxError``, a name missing from this torch
(with the closest one), a call that does not bind to the callee's ``inspect.signature``, and a
deprecated API (:func:`.torch_names.deprecation`) unless the block shows it on purpose. Left
unresolved, with why: a lookup that raises, and on a CPU build a name torch's C stubs declare for
other builds (``torch.distributed.ProcessGroupNCCL``)."""

from __future__ import annotations

import ast
import difflib
import inspect
import pkgutil
import textwrap
from dataclasses import dataclass, field
from functools import lru_cache

import torch

from ..locations import place
from ..pages.excerpts import source_parts
from .torch_names import NOTHING, Missing, chains, deprecated, resolve, stub_names


@dataclass
class Findings:
    """``problems`` fail; ``unresolved`` were left unchecked, with why: each (line, 'path:line:
    message'). ``names``: chains resolved; ``calls``: calls of a resolved callee; ``bound``: those
    bound to a signature."""

    problems: list[tuple[int, str]] = field(default_factory=list)
    unresolved: list[tuple[int, str]] = field(default_factory=list)
    names: int = 0
    calls: int = 0
    bound: int = 0


def check(code: str, path: str, first_line: int, shows_deprecation: bool = False) -> list[str]:
    """The messages of :func:`findings`' problems, each starting with 'path:line'."""
    return [message for _, message in findings(code, path, first_line, shows_deprecation).problems]


@lru_cache(maxsize=512)
def findings(code: str, path: str, first_line: int, shows_deprecation: bool = False) -> Findings:
    """Check ``code``, whose first line is line ``first_line`` of ``path`` (see the module)."""
    found, version, callees = Findings(), torch.__version__, {}
    try:
        nodes = list(ast.walk(_parse(code, first_line)))
    except SyntaxError as error:
        nodes, found.problems = [], [(error.lineno or first_line, f"SyntaxError: {error.msg}")]
    for node, dotted in chains(nodes):
        try:
            callees[id(node)] = resolve(dotted)
            message = None if shows_deprecation else deprecated(dotted)
        except Missing as missing:
            if torch.version.cuda is None and missing.name in stub_names():
                why = "torch's stubs of its C bindings (torch/_C/*.pyi) declare it for other builds"
                note = f"`{dotted}` left unresolved: no `{missing.name}` in this CPU build; {why}"
                found.unresolved.append((node.lineno, note))
            else:
                submodules = pkgutil.iter_modules(getattr(missing.obj, "__path__", None) or [])
                names = [*dir(missing.obj), *(module.name for module in submodules)]
                close = difflib.get_close_matches(missing.name, names, n=1)
                hint = f"; did you mean `{close[0]}`?" if close else ""
                problem = f"`{missing.args[0]}` does not exist in torch {version}{hint}"
                found.problems.append((node.lineno, problem))
            continue
        except Exception as error:  # an import, or a property, that raised
            found.unresolved.append((node.lineno, f"`{dotted}` left unresolved: {error!r}"))
            continue
        found.names += 1
        if message:
            shown = ast.unparse(node) if isinstance(node, ast.expr) else dotted
            found.problems.append(
                (node.lineno, f"`{shown}` is deprecated in torch {version}: {message}")
            )
    for call in nodes:
        if isinstance(call, ast.Call) and id(call.func) in callees:
            found.calls += 1
            if problem := _bind(call, callees[id(call.func)], found):
                found.problems.append(
                    (call.lineno, f"`{textwrap.shorten(ast.unparse(call), 99)}`: {problem}")
                )
    for items in (found.problems, found.unresolved):
        items[:] = sorted((line, f"{place(path, line)}: {text}") for line, text in items)
    return found


def _parse(code: str, first_line: int) -> ast.Module:
    """The code's statements, numbered by the page's lines (a >>> block: its examples')."""
    body = []
    for source, offset in source_parts(code):
        try:
            body += ast.increment_lineno(ast.parse(source), first_line + offset - 1).body
        except SyntaxError as error:
            error.lineno = first_line + offset + (error.lineno or 1) - 1
            raise
    return ast.Module(body=body, type_ignores=[])


def _bind(call: ast.Call, callee: object, found: Findings) -> str | None:
    """Why ``call``'s arguments do not bind to ``callee``'s signature; None when they do or when
    that cannot be checked (``*``/``**`` arguments, no signature). Counts a bound call."""
    if not callable(callee):
        return f"{type(callee).__name__} object is not callable"
    if any(isinstance(a, ast.Starred) for a in call.args) or None in [k.arg for k in call.keywords]:
        return None
    try:
        signature = inspect.signature(callee)
    except Exception:  # no signature: a C++ function, mostly
        return None
    found.bound += 1
    try:
        signature.bind(*map(_value, call.args), **{k.arg: _value(k.value) for k in call.keywords})
    except TypeError as error:
        return str(error)
    return None


def _value(node: ast.expr) -> object:
    """A literal argument as it is; any other expression as a stand-in."""
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return NOTHING

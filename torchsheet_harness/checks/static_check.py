"""Reads code this machine cannot run, without running it, against the installed torch:
:func:`findings` reports, at its page line, a ``SyntaxError``, a name missing from this torch
(with the closest one), a call that does not bind to the callee's ``inspect.signature``, and a
deprecated API (:func:`deprecation`) unless the block shows it on purpose. Left unresolved,
with why: a lookup that raises, and on a CPU build a name torch's C stubs declare for other builds
(``torch.distributed.ProcessGroupNCCL``)."""

from __future__ import annotations

import ast
import difflib
import importlib
import inspect
import pkgutil
import re
import textwrap
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path
from types import CodeType, ModuleType

import torch

from ..locations import place
from ..pages.excerpts import source_parts

_TORCH = re.compile(r"torch(\.|$)")
_BINDERS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.ExceptHandler, ast.MatchAs)
_NOTHING = object()  # an attribute that is missing; an argument known only at run time
_CATEGORIES = {"DeprecationWarning", "FutureWarning"}


class _Missing(AttributeError):
    """The dotted path (``args[0]``) names nothing: ``obj`` has no ``name``."""


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
    for node, dotted in _chains(nodes):
        try:
            callees[id(node)] = _resolve(dotted)
            message = None if shows_deprecation else _deprecated(dotted)
        except _Missing as missing:
            if torch.version.cuda is None and missing.name in _stub_names():
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


def _bindings(node: ast.AST) -> list[tuple[str | None, str | None, str | None]]:
    """(name, the dotted path it is bound to, what is imported) for each name ``node`` binds; the
    last two None for a binding other than an import."""
    if isinstance(node, ast.Import):
        bound = [(a.asname or a.name.split(".")[0], a) for a in node.names]
        return [(name, a.name if a.asname else name, a.name) for name, a in bound]
    if isinstance(node, ast.ImportFrom):
        module = "." * node.level + (node.module or "")
        return [
            (a.asname or a.name, f"{module}.{a.name}", f"{module}.{a.name}") for a in node.names
        ]
    if isinstance(node, ast.Name):
        return [] if isinstance(node.ctx, ast.Load) else [(node.id, None, None)]
    name = node.arg if isinstance(node, ast.arg) else getattr(node, "name", None)
    return [(name, None, None)] if isinstance(node, (ast.arg, *_BINDERS)) else []


def _chains(nodes: list[ast.AST]) -> list[tuple[ast.AST, str]]:
    """Each torch import's target, then each longest chain rooted at a name only torch imports
    bind, with the dotted path it means (``dist.ReduceOp``: ``torch.distributed.ReduceOp``)."""
    origins: dict[str | None, set[str | None]] = {}
    found: list[tuple[ast.AST, str]] = []
    for node in nodes:
        for name, origin, imported in _bindings(node):
            origins.setdefault(name, set()).add(origin)
            if imported and _TORCH.match(imported) and not imported.endswith("*"):
                found.append((node, imported))
    roots = {name: o for name, (o, *more) in origins.items() if not more and _TORCH.match(o or "")}
    inner = {id(node.value) for node in nodes if isinstance(node, ast.Attribute)}
    for node in nodes:
        if isinstance(node, ast.Attribute | ast.Name) and id(node) not in inner:
            attributes, base = [], node
            while isinstance(base, ast.Attribute):
                attributes, base = [base.attr, *attributes], base.value
            if isinstance(base, ast.Name) and base.id in roots:
                found.append((node, ".".join([roots[base.id], *attributes])))
    return found


@cache
def _resolve(dotted: str) -> object:
    """The object ``dotted`` names in the installed torch, importing submodules as needed."""
    parent_path, _, name = dotted.rpartition(".")
    if not parent_path:
        return importlib.import_module(name)
    parent = _resolve(parent_path)
    value = getattr(parent, name, _NOTHING)
    if value is _NOTHING and isinstance(parent, ModuleType):
        try:
            value = importlib.import_module(dotted)
        except ModuleNotFoundError as error:
            if error.name != dotted:
                raise
    if value is _NOTHING:
        raise _Missing(dotted, name=name, obj=parent)
    return value


@cache
def _stub_names() -> frozenset[str]:
    """Every identifier in torch's stubs of its C bindings, whatever this build compiled in."""
    stubs = (Path(torch.__file__).parent / "_C").rglob("*.pyi")
    return frozenset(re.findall(r"\w+", "\n".join(p.read_text(encoding="utf-8") for p in stubs)))


@cache
def _deprecated(dotted: str) -> str | None:
    """The message of the first deprecated object along the (resolved) chain ``dotted``."""
    parent = dotted.rpartition(".")[0]
    return (_deprecated(parent) if parent else None) or deprecation(_resolve(dotted))


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
        return _NOTHING


def deprecation(value: object) -> str | None:
    """Why ``value`` is deprecated, read without calling anything: its ``__deprecated__`` mark, or
    what its Python code warns at its top level (not under a condition, from C++ or at import)."""
    function, marks = value, [getattr(value, "__deprecated__", None)]
    if isinstance(value, type):
        function, marks = value.__init__, [vars(value).get("__deprecated__")]
        own_new = [value.__new__] if "__new__" in vars(value) else []
        marks += [getattr(f, "__deprecated__", None) for f in (value.__init__, *own_new)]
    code = getattr(getattr(function, "__func__", function), "__code__", None)
    marked = next((mark for mark in marks if isinstance(mark, str)), None)
    return marked or (_warns_always(code) if isinstance(code, CodeType) else None)


@cache
def _warns_always(code: CodeType) -> str | None:
    """The DeprecationWarning or FutureWarning a function's body warns at its top level, if any."""
    try:
        function = ast.parse(textwrap.dedent(inspect.getsource(code))).body[0]
    except (OSError, TypeError, SyntaxError, IndexError):
        return None
    for statement in getattr(function, "body", []):
        call = statement.value if isinstance(statement, ast.Expr) else None
        if isinstance(call, ast.Call) and call.args and ast.unparse(call.func).endswith("warn"):
            categories = call.args[1:2] + [k.value for k in call.keywords if k.arg == "category"]
            if {ast.unparse(category) for category in categories} & _CATEGORIES:
                text = call.args[0]
                return text.value if isinstance(text, ast.Constant) else ast.unparse(text)
    return None

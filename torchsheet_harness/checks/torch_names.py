"""What torch names a block's code uses, and what each is in the installed torch: :func:`chains`
finds them (each longest attribute chain rooted at a name only torch imports bind, and each torch
import), :func:`resolve` finds the object (importing submodules as needed; :class:`Missing` when
there is none), :func:`deprecated` and :func:`deprecation` read whether torch marks it deprecated
(without calling anything), and :func:`signature` its call signature. Read by the static check
(:mod:`.static_check`) and by the API facts a run records (:mod:`.api_facts`)."""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import textwrap
from functools import cache
from pathlib import Path
from types import CodeType, ModuleType

import torch

TORCH = re.compile(r"torch(\.|$)")
_BINDERS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.ExceptHandler, ast.MatchAs)
NOTHING = object()  # an attribute that is missing; an argument known only at run time
_CATEGORIES = {"DeprecationWarning", "FutureWarning"}


class Missing(AttributeError):
    """The dotted path (``args[0]``) names nothing: ``obj`` has no ``name``."""


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


def chains(nodes: list[ast.AST]) -> list[tuple[ast.AST, str]]:
    """Each torch import's target, then each longest chain rooted at a name only torch imports
    bind, with the dotted path it means (``dist.ReduceOp``: ``torch.distributed.ReduceOp``)."""
    origins: dict[str | None, set[str | None]] = {}
    found: list[tuple[ast.AST, str]] = []
    for node in nodes:
        for name, origin, imported in _bindings(node):
            origins.setdefault(name, set()).add(origin)
            if imported and TORCH.match(imported) and not imported.endswith("*"):
                found.append((node, imported))
    roots = {name: o for name, (o, *more) in origins.items() if not more and TORCH.match(o or "")}
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
def resolve(dotted: str) -> object:
    """The object ``dotted`` names in the installed torch, importing submodules as needed."""
    parent_path, _, name = dotted.rpartition(".")
    if not parent_path:
        return importlib.import_module(name)
    parent = resolve(parent_path)
    value = getattr(parent, name, NOTHING)
    if value is NOTHING and isinstance(parent, ModuleType):
        try:
            value = importlib.import_module(dotted)
        except ModuleNotFoundError as error:
            if error.name != dotted:
                raise
    if value is NOTHING:
        raise Missing(dotted, name=name, obj=parent)
    return value


@cache
def stub_names() -> frozenset[str]:
    """Every identifier in torch's stubs of its C bindings, whatever this build compiled in."""
    stubs = (Path(torch.__file__).parent / "_C").rglob("*.pyi")
    return frozenset(re.findall(r"\w+", "\n".join(p.read_text(encoding="utf-8") for p in stubs)))


@cache
def deprecated(dotted: str) -> str | None:
    """The message of the first deprecated object along the (resolved) chain ``dotted``."""
    parent = dotted.rpartition(".")[0]
    return (deprecated(parent) if parent else None) or deprecation(resolve(dotted))


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


@cache
def signature(dotted: str) -> str | None:
    """The call signature of what ``dotted`` names, as text; None when it has none to read."""
    value = resolve(dotted)
    if not callable(value) or isinstance(value, ModuleType):
        return None
    try:
        return str(inspect.signature(value))
    except (TypeError, ValueError):  # a C++ function, mostly
        return None

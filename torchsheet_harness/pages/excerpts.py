"""A quick-reference excerpt: the lines of a block a ``% quickref:`` marker takes, and
:func:`excerpt_problem`: whether they compile as shown and every name they use is a builtin, bound
by the excerpt, or bound on the page before it by an assignment, an import, a ``def`` or a
``class`` (a name only a ``for``, ``with`` or ``except`` header binds belongs to the lines under
it). Scopes are read loosely: the check can miss a fault but does not invent one. Pure."""

from __future__ import annotations

import ast
import builtins
import doctest
import re
import symtable
from collections.abc import Iterable

#: A one-line output up to this long is shown after its statement as ``# → output``.
SHORT_OUTPUT = 44
_IMPORT = re.compile(r"^(import|from)\s+\S+")
#: Names every module has, besides the builtins.
_MODULE_NAMES = {"__file__", "__doc__", "__name__", "__spec__"}


class ExcerptError(ValueError):
    """A lines spec the block cannot honour (the message says why, without a place)."""


def prompt_examples(code: str) -> list[doctest.Example] | None:
    """A ``>>>`` block's examples, as doctest reads them; None for a plain block."""
    return doctest.DocTestParser().get_examples(code) if code.lstrip().startswith(">>>") else None


def source_parts(code: str) -> list[tuple[str, int]]:
    """(source, first line's index in ``code``) of each ``>>>`` example, or of the code whole."""
    examples = prompt_examples(code)
    return [(code, 0)] if examples is None else [(e.source, e.lineno) for e in examples]


def python_source(code: str) -> str:
    """The Python a block runs: its ``>>>`` statements, or the code itself."""
    return "".join(source for source, _ in source_parts(code))


def statements(code: str) -> list[tuple[int, list[str]]]:
    """(first line, lines) of each statement of a block, numbered from 1, prompts removed."""
    if (examples := prompt_examples(code)) is None:
        return [(n, [line]) for n, line in enumerate(code.splitlines(), 1) if line.strip()]
    found = []
    for example in examples:
        lines = example.source.rstrip("\n").splitlines()
        want = example.want.rstrip("\n")
        if len(lines) == 1 and want and "\n" not in want and len(want) <= SHORT_OUTPUT:
            lines = [f"{lines[0]}  # → {want}"]
        found.append((example.lineno + 1, lines))
    return found


def excerpt_lines(code: str, spec: str | None) -> tuple[str, ...]:
    """The lines ``spec`` ('2, 4-5') names in ``code``, or every statement but the imports;
    ExcerptError when the spec is malformed or names a line no statement starts on."""
    found = statements(code)
    if not spec:
        return tuple(line for _, lines in found if not _IMPORT.match(lines[0]) for line in lines)
    by_line = dict(found)
    chosen: list[str] = []
    for part in spec.split(","):
        bounds = part.split("-")
        if not all(b.strip().isdigit() for b in bounds) or len(bounds) > 2:
            raise ExcerptError(f"quickref lines {spec!r}: write them as '2, 4-5'")
        first, last = int(bounds[0]), int(bounds[-1])
        for number in range(first, last + 1):
            if number in by_line:
                chosen += by_line[number]
            elif first == last:
                raise ExcerptError(
                    f"line {number} of the block is not the start of a statement; "
                    f"statements start on lines {', '.join(map(str, by_line)) or 'none'}"
                )
    if not chosen:
        raise ExcerptError(f"quickref lines {spec!r} name no statement of the block")
    return tuple(chosen)


def _targets(node: ast.AST) -> set[str]:
    """The names an assignment target binds (``a``, ``a, (b, *c)``; not ``a.b`` or ``a[0]``)."""
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, ast.Starred):
        return _targets(node.value)
    if isinstance(node, ast.Tuple | ast.List):
        return {name for element in node.elts for name in _targets(element)}
    return set()


def module_bindings(source: str) -> tuple[set[str], dict[str, str]]:
    """(names bound at module level by a plain statement, names bound there only by a header →
    that header's line) of ``source``; nothing for code that does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set(), {}
    lines = source.splitlines()
    plain: set[str] = set()
    headers: dict[str, str] = {}
    pending = list(tree.body)
    while pending:
        statement = pending.pop(0)
        header_names: set[str] = set()
        if isinstance(statement, ast.Assign):
            plain |= {name for target in statement.targets for name in _targets(target)}
        elif isinstance(statement, ast.AugAssign | ast.AnnAssign):
            plain |= _targets(statement.target)
        elif isinstance(statement, ast.Import | ast.ImportFrom):
            plain |= {(alias.asname or alias.name).split(".")[0] for alias in statement.names}
        elif isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            plain.add(statement.name)
            continue  # its body is another scope
        elif isinstance(statement, ast.For | ast.AsyncFor):
            header_names = _targets(statement.target)
        elif isinstance(statement, ast.With | ast.AsyncWith):
            header_names = {
                name for item in statement.items if item.optional_vars is not None
                for name in _targets(item.optional_vars)
            }  # fmt: skip
        elif isinstance(statement, ast.Try):
            header_names = {handler.name for handler in statement.handlers if handler.name}
            pending += [s for handler in statement.handlers for s in handler.body]
        plain |= {n.target.id for n in ast.walk(statement) if isinstance(n, ast.NamedExpr)}
        for name in header_names:
            headers.setdefault(name, lines[statement.lineno - 1].strip())
        for field in ("body", "orelse", "finalbody"):
            pending += getattr(statement, field, [])
    return plain, {name: line for name, line in headers.items() if name not in plain}


def free_names(source: str) -> set[str]:
    """Names ``source`` reads that it never binds (imports, assignments, defs), builtins aside."""
    top = symtable.symtable(source, "<block>", "exec")
    bound = {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported()}
    used: set[str] = set()
    tables = [top]
    while tables:
        table = tables.pop()
        tables.extend(table.get_children())
        for symbol in table.get_symbols():
            reads_global = table is top or symbol.is_global()
            if symbol.is_referenced() and reads_global:
                used.add(symbol.get_name())
    return used - bound - set(dir(builtins))


def excerpt_problem(lines: Iterable[str], context: Iterable[str]) -> str | None:
    """Why ``lines`` do not run as shown, given the Python of the page up to their block
    (``context``, in page order); None when they do."""
    lines = list(lines)
    text = "\n".join(lines) + "\n"
    try:
        compile(text, "<excerpt>", "exec", dont_inherit=True)
    except SyntaxError as error:
        number = error.lineno or 1
        shown = lines[number - 1].rstrip() if number <= len(lines) else ""
        return (
            f"the excerpt does not compile as shown (its line {number}, {shown!r}: {error.msg}); "
            "take a header with its body, or lines that stand alone"
        )
    known, headers = set(_MODULE_NAMES), {}
    for source in context:
        plain, only_in_headers = module_bindings(source)
        known |= plain
        headers.update(only_in_headers)
    missing = sorted(free_names(text) - known)
    problems = [
        f"the excerpt uses {name!r}, which only the header {headers[name]!r} binds: take that "
        "header and its body"
        for name in missing
        if name in headers
    ]
    if undefined := [name for name in missing if name not in headers]:
        problems.append(
            f"the excerpt uses {', '.join(map(repr, undefined))}, which neither the excerpt nor "
            "the page before it defines (by an assignment, an import, a def or a class)"
        )
    return "; ".join(problems) or None

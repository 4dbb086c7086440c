"""Which objects of the installed torch say they are deprecated, read without calling anything:
a ``__deprecated__`` mark (``typing_extensions.deprecated``: on a function, a class, its
``__new__`` or ``__init__``), or a Python function whose body warns a deprecation at its top
level. A warning under a condition, from C++ or at import is not seen."""

from __future__ import annotations

import ast
import inspect
import textwrap
from functools import cache
from types import CodeType

_CATEGORIES = {"DeprecationWarning", "FutureWarning"}


def deprecation(value: object) -> str | None:
    """Why ``value`` is deprecated: its ``__deprecated__``, or what its Python code always warns."""
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

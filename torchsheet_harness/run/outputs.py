"""A page's expected output against what the code printed: doctest's comparison, and the two
outputs aligned line by line (a matching line kept, a ``...`` line standing for any run of
lines), which gives :func:`first_difference` and :func:`updated_expected`. No pytest, no torch."""

from __future__ import annotations

import doctest

from sybil.evaluators.doctest import OutputChecker

#: Doctest and output-block comparison: '...' matches anything, runs of whitespace are equal.
#: Numbers are compared as text, so a float is checked to every digit the page shows.
OPTION_FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
#: Larger outputs are not aligned line by line (quadratic): a rewrite takes the printed text.
MAX_ALIGNED_PAIRS = 40_000
#: A printed line the page wrapped into up to this many lines is kept as the page wrapped it.
MAX_WRAPPED = 4
_checker = OutputChecker()


def matches(expected: str, got: str) -> bool:
    """The harness's comparison: does ``got`` match the page's ``expected``?"""
    return _checker.check_output(expected, got, OPTION_FLAGS)


class OutputMismatch(str):
    """A failure message that carries what the page expected and what the code printed, which
    ``--update-outputs`` reads back (Sybil passes the message through unchanged). ``part``: what
    ``expected`` is on the page, 'block' (an output block), 'want' (a doctest example's output) or
    'exception' (the exception line(s) of an example that shows a traceback)."""

    expected: str
    got: str
    part: str

    def __new__(cls, message: str, expected: str, got: str, part: str = "block") -> OutputMismatch:
        mismatch = super().__new__(cls, message)
        mismatch.expected, mismatch.got, mismatch.part = expected, got, part
        return mismatch


def lines_of(text: str) -> list[str]:
    """Lines without trailing whitespace, and without leading or trailing blank lines."""
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    return lines


def _align(expected: list[str], got: list[str]) -> list[tuple[str, int, int, int, int]] | None:
    """Steps turning ``expected`` into ``got``, keeping as many expected lines as possible.

    Each step is (op, i, i_end, j, j_end) over expected[i:i_end] and got[j:j_end]: 'keep' (a
    line that matches one line, or the lines the page wrapped it into), 'wild' (a '...' line
    standing for got[j:j_end], maybe none), 'replace' (an expected line whose place a different
    printed line takes), 'drop' (an expected line the code did not print), 'add' (a printed line
    the page lacks). A kept line scores 2, a replaced one 1, so a '...' does not swallow a line
    that an expected line can be replaced by. None when the outputs are too large to align.
    """
    n, m = len(expected), len(got)
    if n * m > MAX_ALIGNED_PAIRS:
        return None
    wild = [e.strip() == "..." for e in expected]
    same = [
        [not w and matches(e + "\n", g + "\n") for g in got]
        for e, w in zip(expected, wild, strict=True)
    ]
    # best[i][j]: the best score aligning expected[i:] with got[j:]; it never grows with j.
    best = [[0] * (m + 1) for _ in range(n + 1)]
    # swallow[i][j]: the largest k >= j with best[i][k] == best[i][j]: a '...' at i - 1
    # swallows got[j:k], as many lines as it can without costing the lines after it.
    swallow = [[m] * (m + 1) for _ in range(n + 1)]
    for i in range(n, -1, -1):
        for j in range(m, -1, -1):
            if i < n:
                options = [best[i + 1][j]]
                if j < m:
                    options.append(best[i][j + 1])
                    if same[i][j]:
                        options.append(2 + best[i + 1][j + 1])
                    elif not wild[i]:
                        options.append(1 + best[i + 1][j + 1])
                if wild[i]:
                    options.append(2 + best[i + 1][j])
                for k in _wrapped(expected, wild, got, i, j):
                    options.append(2 * k + best[i + k][j + 1])
                best[i][j] = max(options)
            if j < m and best[i][j + 1] == best[i][j]:
                swallow[i][j] = swallow[i][j + 1]
            else:
                swallow[i][j] = j
    steps: list[tuple[str, int, int, int, int]] = []
    i = j = 0
    while i < n or j < m:
        here = best[i][j]
        diagonal = best[i + 1][j + 1] if i < n and j < m else None
        wrapped = [
            k for k in _wrapped(expected, wild, got, i, j) if here == 2 * k + best[i + k][j + 1]
        ]
        if diagonal is not None and same[i][j] and here == 2 + diagonal:
            steps.append(("keep", i, i + 1, j, j + 1))
            i, j = i + 1, j + 1
        elif wrapped:
            k = wrapped[0]
            steps.append(("keep", i, i + k, j, j + 1))
            i, j = i + k, j + 1
        elif i < n and wild[i] and here == 2 + best[i + 1][j]:
            k = swallow[i + 1][j]
            steps.append(("wild", i, i + 1, j, k))
            i, j = i + 1, k
        elif diagonal is not None and not wild[i] and here == 1 + diagonal:
            steps.append(("replace", i, i + 1, j, j + 1))
            i, j = i + 1, j + 1
        elif i < n and here == best[i + 1][j]:
            steps.append(("drop", i, i + 1, j, j))
            i += 1
        else:
            steps.append(("add", i, i, j, j + 1))
            j += 1
    return steps


def _wrapped(expected: list[str], wild: list[bool], got: list[str], i: int, j: int) -> list[int]:
    """How many expected lines from i on (2 to :data:`MAX_WRAPPED`) the page wrapped one printed
    line got[j] into: they match it joined (runs of whitespace are equal)."""
    if j >= len(got):
        return []
    return [
        k
        for k in range(2, MAX_WRAPPED + 1)
        if i + k <= len(expected)
        and not any(wild[i : i + k])
        and matches(" ".join(expected[i : i + k]) + "\n", got[j] + "\n")
    ]


def updated_expected(expected: str, got: str) -> list[str]:
    """The lines to show instead of ``expected``: its lines that still match ``got`` (``...`` parts
    included) kept, every other line the printed one; always a text that matches ``got`` (else the
    printed text itself)."""
    got_lines = lines_of(got)
    steps = _align(lines_of(expected), got_lines)
    if steps is not None:
        expected_lines = lines_of(expected)
        lines = []
        for op, i, i_end, j, j_end in steps:
            if op in ("keep", "wild"):
                lines.extend(expected_lines[i:i_end])
            elif op in ("add", "replace"):
                lines.extend(got_lines[j:j_end])
        if matches("\n".join(lines) + "\n", got):
            return lines
    return got_lines


def first_difference(expected: str, got: str) -> str:
    """Where ``got`` first departs from ``expected``: the two lines, each with a caret under its
    first differing character."""
    expected_lines, got_lines = lines_of(expected), lines_of(got)
    steps = _align(expected_lines, got_lines) or [("drop", 0, 1, 0, 0)]
    step = next((step for step in steps if step[0] not in ("keep", "wild")), None)
    if step is None:  # each line matches, but not the whole (a '...' across lines)
        return "--- first difference: the lines match one by one but not as a whole ---"
    _, i, _, j, _ = step
    e = expected_lines[i] if i < len(expected_lines) else None
    g = got_lines[j] if j < len(got_lines) else None
    columns = _first_column(e, g) if e is not None and g is not None else None
    if e is None:
        head = f"line {i + 1} of the output: the page shows no more lines"
    elif g is None:
        head = f"line {i + 1} of the output: nothing more was printed"
    else:
        what = e[columns[0] : columns[0] + 1] or "end of line"
        printed = g[columns[1] : columns[1] + 1] or "end of line"
        head = (
            f"line {i + 1} of the output, column {columns[0] + 1}: "
            f"{what!r} expected, {printed!r} printed"
        )
    parts = [f"--- first difference: {head} ---"]
    for index, (prefix, line) in enumerate((("expected: ", e), ("got:      ", g))):
        parts.append(prefix + (line if line is not None else "(no line)"))
        if columns is not None:
            parts.append(" " * (len(prefix) + columns[index]) + "^")
    return "\n".join(parts)


def _first_column(expected: str, got: str) -> tuple[int, int]:
    """The first column where the lines differ, in each, runs of whitespace counting as equal;
    at a '...' in ``expected`` the difference is said to be there."""
    i = j = 0
    while i < len(expected) and j < len(got):
        if expected.startswith("...", i):
            return i, j
        if expected[i].isspace() and got[j].isspace():
            while i < len(expected) and expected[i].isspace():
                i += 1
            while j < len(got) and got[j].isspace():
                j += 1
            continue
        if expected[i] != got[j]:
            return i, j
        i, j = i + 1, j + 1
    return i, j

"""A reader at the classic ``python`` prompt, on a pseudo-terminal (pexpect).

Used by tests/harness/test_copy_paste.py and tests/harness/test_paste_ready.py. The interpreter is
the one the suite runs (``python -I -q``: no harness, no user site, and no readline, which ``-I``
leaves off; the prompt reads the same lines without it), started in an empty directory. On 3.13 it
is the classic prompt because ``TERM=dumb`` makes the new REPL step aside: ``-I`` ignores
``PYTHON_BASIC_REPL`` there (the new REPL and IPython: tests/harness/test_paste_repls.py).
:meth:`ClassicPrompt.paste` types a block's copied text line after line, as the terminal hands
a paste to the prompt, then presses Enter as a reader does after a paste (twice when the prompt
is left at ``...``), and returns what the terminal showed after the typed lines
(:meth:`ClassicPrompt.paste_lines`: line by line).
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pexpect

#: A prompt at the start of a line (readline may put escape sequences before it).
PROMPT = re.compile(r"(?:\r?\n|^)(?:\x1b\[[0-9;?]*[A-Za-z])*(>>>|\.\.\.) ")
#: Colours and cursor moves (3.13 colours its tracebacks even with TERM=dumb).
ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
TRACEBACK = "Traceback (most recent call last):"
SYNTAX = re.compile(r"^\s*(SyntaxError|IndentationError|TabError): .*$", re.MULTILINE)


class ClassicPrompt:
    """One interactive ``python`` on a pseudo-terminal."""

    def __init__(self, cwd: Path, timeout: float) -> None:
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(cwd),
            "TERM": "dumb",
            "LANG": "C.UTF-8",
            "PYTHON_BASIC_REPL": "1",
        }
        self.child = pexpect.spawn(
            sys.executable,
            ["-I", "-q"],
            cwd=str(cwd),
            env=env,
            encoding="utf-8",
            codec_errors="replace",
            dimensions=(50, 2000),  # wide: readline does not wrap or scroll long lines
            timeout=timeout,
        )
        self.child.delaybeforesend = None  # no sleep before each send: we wait for the prompt
        self.child.expect(PROMPT)
        self.prompt = self.child.match[1]

    def type_line(self, line: str) -> str:
        """Send one line and Enter; what the terminal showed after its echo until the next prompt.

        The echo of the typed line is left out: an expected output line ('3', 'True') must not
        be found in the code that was typed.
        """
        self.child.send(line + "\r")
        self.child.expect(PROMPT)
        self.prompt = self.child.match[1]
        _echo, _, shown = self.child.before.partition("\n")
        return ESCAPE.sub("", shown)

    def paste_lines(self, code: str) -> list[str]:
        """Paste ``code`` and press Enter (again while the prompt is ``...``): what the terminal
        showed after each typed line, the code's lines first, then the Enters'."""
        shown = [self.type_line(line) for line in code.split("\n")]
        for _ in range(2):
            if self.prompt != "...":
                break
            shown.append(self.type_line(""))
        return shown

    def paste(self, code: str) -> str:
        """Paste ``code`` and press Enter (again while the prompt is ``...``)."""
        return "\n".join(self.paste_lines(code))

    def close(self) -> None:
        self.child.close(force=True)

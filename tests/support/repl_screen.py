"""A reader at the classic ``python`` prompt, Python 3.13's REPL or IPython, on a pseudo-terminal,
read off a screen drawn by pyte (the newer REPLs redraw what is typed): :class:`ReplScreen`."""

import array
import fcntl
import os
import re
import signal
import sys
import termios
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pexpect
import pyte

#: A prompt at the start of a screen line (``%cpaste`` draws ':'s); what follows is the echo of
#: the input, or with --simple-prompt the output, drawn after the prompts of the typed lines.
PROMPT = re.compile(r"^(?::+|(?:>>>|\.\.\.|\(paste\)|In \[\d+\]:|\s*\.\.\.:)(?: |$))")
#: A source line IPython quotes in a traceback: its number, then the code.
QUOTED = re.compile(r"^\s*(?:-+>\s*)?\d+\s(?P<code>.*)$")
ROWS, COLUMNS = 500, 200  # tall: one block and its output fit on the cleared screen
QUIET_SECONDS = 0.25  # no output for this long: the REPL is waiting or computing
MAX_ENTERS = 3


@dataclass(frozen=True)
class Repl:
    """How to start one REPL and how its prompts look on the cursor's line."""

    name: str
    args: tuple[str, ...]
    ready: re.Pattern[str]  # the prompt for a new input (nothing typed after it: waiting)
    more: re.Pattern[str]  # the continuation prompt
    traceback: str  # the line that starts a traceback
    # ``own-way``: sent before the text, the cursor's line once the REPL took it, sent after
    own_way: tuple[str, str, str] = ("", "", "")
    redraws: bool = True  # clears its screen on Ctrl-L; False: reads plain lines (input())
    term: str = "xterm-256color"


TRACEBACK = "Traceback (most recent call last):"
PROMPTS = re.compile(r">>>"), re.compile(r"\.\.\.|\(paste\)")
# F3 (xterm's kf3) enters paste mode, and F3 again leaves it.
PYTHON_REPL = Repl(
    "python3.13 REPL", ("-q",), *PROMPTS, TRACEBACK, ("\x1bOR", r"\(paste\)", "\x1bOR")
)
IPYTHON = Repl(
    "IPython", ("-m", "IPython", "--no-banner"), re.compile(r"In \[\d+\]:"),
    re.compile(r" *\.\.\.:"), TRACEBACK.rstrip(":"), ("%cpaste\r", ":", "\r--\r"),
)  # fmt: skip
# -I leaves readline off; on 3.13 TERM=dumb makes the new REPL step aside for the classic one.
CLASSIC = Repl(
    "classic python prompt", ("-I", "-q"), *PROMPTS, TRACEBACK, redraws=False, term="dumb"
)


def without_code(screen: str, code: str) -> str:
    """What the screen shows besides the code: no echo of the pasted lines, nor of the code a
    traceback quotes. An expected output line must not be found in the code that was pasted."""
    code_lines = {line.strip() for line in code.splitlines() if line.strip()}
    shown = []
    for line in screen.splitlines():
        while (prompt := PROMPT.match(line)) and prompt.end():
            line = line[prompt.end() :]
        quoted = QUOTED.match(line)
        if not line.strip() or line.strip() in code_lines:
            continue
        if quoted and quoted["code"].strip() in code_lines:
            continue
        shown.append(line)
    return "\n".join(shown)


class ReplError(RuntimeError):
    """The REPL did not come back to its prompt in time, or left."""


class ReplScreen:
    """One interactive REPL of ``sys.executable`` on a pseudo-terminal, drawn by pyte."""

    def __init__(self, repl: Repl, cwd: Path, timeout: float) -> None:
        self.repl, self.timeout = repl, timeout
        self.enters = 0  # the Enters the last paste needed
        path, home = os.environ.get("PATH", "/usr/bin:/bin"), str(cwd)
        env = {"PATH": path, "HOME": home, "TERM": repl.term, "LANG": "C.UTF-8"}
        self.screen = pyte.Screen(COLUMNS, ROWS)
        self.stream = pyte.ByteStream(self.screen)
        self.child = pexpect.spawn(
            sys.executable, list(repl.args), cwd=str(cwd), env=env, dimensions=(ROWS, COLUMNS)
        )
        self.child.delaybeforesend = None
        # The REPL's terminal, to see how much typed input it has not read yet (Linux).
        stdin = f"/proc/{self.child.pid}/fd/0"
        self._stdin = os.open(stdin, os.O_RDONLY | os.O_NOCTTY | os.O_NONBLOCK)
        # The REPL asks where the cursor is (prompt_toolkit does); the emulator answers.
        self.screen.write_process_input = lambda answer: self.child.send(answer.encode())
        self._settle(enters=False, until=lambda: True)

    def paste(self, code: str, how: str) -> str:
        """Paste ``code`` ``bracketed`` (``ESC[200~`` text ``ESC[201~``), ``typed`` (keystrokes:
        CPython turns readline's bracketed paste off) or ``own-way`` (F3 at the 3.13 REPL,
        ``%cpaste`` at IPython), then Enter as needed; the screen after, less the code."""
        if self.repl.redraws:
            self.child.send(b"\x0c")  # Ctrl-L: a clear screen with the prompt at the top
            self._settle(enters=False, until=lambda: self.text().strip() == self._cursor_line())
        else:  # it only writes on: clear the emulator's screen, the prompt on the top line
            prompt = self._cursor_line()
            self.screen.reset()
            self.stream.feed(prompt.encode() + b" ")
        text = code.replace("\n", "\r")  # a terminal sends Return for each line break
        before = self.text()
        if how == "own-way":
            start, taken, end = self.repl.own_way
            self._send(start)
            self._wait_for(re.compile(taken))  # a text sent before would be lost
            self._send(text + end)
        else:
            self._send(f"\x1b[200~{text}\x1b[201~" if how == "bracketed" else text)
        # Under load the REPL may not have drawn the paste yet: the prompt it still shows is not
        # the prompt after the paste.
        self.enters = self._settle(enters=True, until=lambda: self.text() != before)
        return without_code(self.text(), code)

    def text(self) -> str:
        lines = [line.rstrip() for line in self.screen.display]
        return "\n".join(lines).rstrip()

    def close(self) -> None:
        """Kill the REPL and wait for it (pexpect's own close gives up after 0.1 s a signal)."""
        os.close(self._stdin)
        self.child.kill(signal.SIGKILL)
        self.child.wait()
        self.child.close()

    def _input_pending(self) -> bool:
        """Whether typed bytes still wait to be read: then a prompt on screen is not the last."""
        pending = array.array("i", [0])
        fcntl.ioctl(self._stdin, termios.FIONREAD, pending)
        return pending[0] > 0

    def _send(self, text: str) -> None:
        """Send in small pieces, reading what the REPL draws in between (no full pipe)."""
        data = text.encode()
        for start in range(0, len(data), 256):
            self.child.send(data[start : start + 256])
            self._read(0)

    def _read(self, timeout: float) -> bool:
        try:
            data = self.child.read_nonblocking(65536, timeout=timeout)
        except pexpect.TIMEOUT:
            return False
        except pexpect.EOF as error:
            raise ReplError(f"{self.repl.name} exited:\n{self.text()[-3000:]}") from error
        self.stream.feed(data)
        return True

    def _pump(self) -> None:
        """Read until nothing comes for QUIET_SECONDS."""
        last = time.monotonic()
        while time.monotonic() - last < QUIET_SECONDS:
            if self._read(0.05):
                last = time.monotonic()

    def _wait_for(self, prompt: re.Pattern[str]) -> None:
        """Read until the cursor's line is ``prompt``."""
        deadline = time.monotonic() + self.timeout
        while not prompt.fullmatch(self._cursor_line()):
            if time.monotonic() > deadline:
                raise ReplError(f"no {prompt.pattern!r} after {self.timeout} s:\n{self.text()}")
            self._read(0.05)

    def _cursor_line(self) -> str:
        return self.screen.display[self.screen.cursor.y].rstrip()

    def _settle(self, enters: bool, until: Callable[[], bool]) -> int:
        """Wait for the prompt of a new input on a screen for which ``until()`` holds; with
        ``enters``, press Enter, as a reader does, while the cursor waits at a prompt with the
        input unfinished. Returns the Enters pressed.

        A prompt counts once the REPL has read all that was typed, sleeps (it is not computing)
        and has redrawn since the last Enter (it may first ask the terminal where the cursor is).
        """
        deadline, pressed, line, at_enter = time.monotonic() + self.timeout, 0, "", None
        while time.monotonic() < deadline:
            self._pump()
            line = self._cursor_line()
            busy = self._input_pending() or self._state() == "R" or self.text() == at_enter
            if not until() or busy:
                continue
            if self.repl.ready.fullmatch(line):
                return pressed
            if enters and (self.repl.ready.match(line) or self.repl.more.match(line)):
                if pressed == MAX_ENTERS:
                    raise ReplError(f"still at {line!r} after {pressed} Enters:\n{self.text()}")
                self.child.send(b"\r")
                pressed, at_enter = pressed + 1, self.text()
        raise ReplError(
            f"no prompt after {self.timeout} s ({pressed} Enters; state {self._state()}; cursor at"
            f" {self.screen.cursor.y},{self.screen.cursor.x}: {line!r}):\n{self.text()[-3000:]}"
        )

    def _state(self) -> str:
        """The REPL's process state (Linux): 'R' while it computes."""
        return Path(f"/proc/{self.child.pid}/stat").read_text().rsplit(")", 1)[1].split()[0]

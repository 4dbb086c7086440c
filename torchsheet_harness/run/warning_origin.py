"""Whose code a warning is about: the frame it points at, or that frame's caller (torch wraps some
deprecated functions in a decorator of its own, so ``stacklevel`` stops one frame short). Standard
library only: the rank hook imports it in every process of a launched block."""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Callable
from types import FrameType

CATEGORIES = (DeprecationWarning, PendingDeprecationWarning, FutureWarning)
#: Set for a launched block: the script whose deprecations are errors in its processes.
SCRIPT_ENV = "TORCHSHEET_DEPRECATIONS_SCRIPT"


def blamed(filename: str, lineno: int, own: Callable[[str], bool]) -> tuple[str, int] | None:
    """(filename, line) of the own code a warning at ``filename:lineno`` is about, or None (called
    while the warning is shown: its frames are still on the stack)."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        code = frame.f_code.co_filename
        if code == filename and frame.f_lineno == lineno:
            if own(code):
                return code, lineno
            caller = frame.f_back
            if caller is not None and own(caller.f_code.co_filename):
                return caller.f_code.co_filename, caller.f_lineno
            return None
        frame = frame.f_back
    return (filename, lineno) if own(filename) else None


def install_rank_hook() -> None:
    """In a launched block's process: a deprecation its script's code raised is raised as an error
    where it is shown, so the process stops with a traceback through the script's line."""
    script = os.environ.get(SCRIPT_ENV)
    if not script:
        return
    show = warnings.showwarning

    def own(filename: str) -> bool:
        return os.path.abspath(filename) == script and os.path.abspath(sys.argv[0]) == script

    def showwarning(message, category, filename, lineno, file=None, line=None) -> None:  # noqa: ANN001
        if issubclass(category, CATEGORIES) and blamed(filename, lineno, own) is not None:
            raise category(message)
        show(message, category, filename, lineno, file, line)

    warnings.showwarning = showwarning

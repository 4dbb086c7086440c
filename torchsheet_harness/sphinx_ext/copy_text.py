"""The copy button on the site: :func:`wrap_copybutton` puts ``paste_ready.js`` around the
formatCopyText sphinx-copybutton builds, and sets the button's tooltip. What the text is and
why: :mod:`torchsheet_harness.pages.copy_text`, its Python port."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

JS_FILE = Path(__file__).with_name("paste_ready.js")
#: The copy button's tooltip (copybutton's is "Copy").
COPY_TOOLTIP = (
    "Copy (pasted into IPython, Jupyter or Python 3.13, a block shows its last value only)"
)


def wrap_copybutton(app: Any, config: Any) -> None:
    """config-inited, after copybutton's: pasteReady around its formatCopyText; the tooltip."""
    source = config.html_context.get("copybutton_format_func")
    if not source or "pasteReady" in source:
        return
    renamed = source.replace("function formatCopyText(", "function formatCopyTextOfCopybutton(")
    if renamed == source:
        raise RuntimeError("sphinx-copybutton's formatCopyText not found; cannot wrap it")
    # This source lands inside copybutton.js's addCopyButtonToCodeCells, after the buttons are
    # made: set their tooltip, and the message it returns to after "Copied!". (The browser test
    # runs these functions alone, without copybutton's messages: hence the typeof.)
    tooltip = (
        "if (typeof messages !== 'undefined') {\n"
        f"  messages[locale].copy = {json.dumps(COPY_TOOLTIP)};\n"
        "  document.querySelectorAll('button.copybtn')"
        ".forEach(button => button.setAttribute('data-tooltip', messages[locale].copy));\n"
        "}"
    )
    config.html_context["copybutton_format_func"] = "\n".join(
        [renamed, JS_FILE.read_text("utf-8"), tooltip]
    )

"""The ``%`` markers of a page: MyST comment lines directly above a block (provisional: the
grammar's checks land with the site's rewrite)."""

from __future__ import annotations

import re
from dataclasses import dataclass

KINDS = ("quickref", "pitfall", "error", "warning", "alias", "not-run", "gpu-host")
_MARKER = re.compile(rf"^(?P<kind>{'|'.join(KINDS)}):(?P<text>.*)$")


@dataclass(frozen=True)
class Marker:
    """One marker: its kind, the text after the colon (stripped), its page line."""

    kind: str
    text: str
    line: int


def parse_marker(text: str, line: int) -> Marker | None:
    """The marker a comment line holds (without its '%'), or None for another comment."""
    match = _MARKER.match(text.strip())
    return Marker(match["kind"], match["text"].strip(), line) if match else None

"""The errors evidence file (``torchsheet_errors_evidence``): a row whose ``page`` is set promises
that page a marker whose text is the row's ``marker``; a broken promise is a build warning naming
the file and row. A missing file is not an error."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.util import logging

from ..locations import display_path
from ..pages.markers import messages_of
from . import store

logger = logging.getLogger(__name__)


def marker_texts(env: Any, docname: str) -> set[str]:
    """The messages and older wordings the markers of page ``docname`` name."""
    page = store.records(env).get(docname, store.PageRecord())
    messages = [message for block in page.blocks for message in messages_of(block.markers)]
    return {text for m in messages for text in (m.text, *(wording for wording, _ in m.aliases))}


def check_evidence(app: Sphinx, env: Any) -> None:
    """env-check-consistency: each row with a page has its marker there."""
    if not app.config.torchsheet_errors_evidence:
        return
    path = Path(app.confdir, app.config.torchsheet_errors_evidence).resolve()
    if not path.is_file():
        return
    shown = display_path(path, Path(app.confdir).parent)
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        for row in reader:
            page = (row.get("page") or "").strip()
            if not page:
                continue
            docname = page.removeprefix("docs/").removesuffix(".md")  # either form names it
            if docname not in env.found_docs:
                why = f"page {page!r} is not a page of the site"
            elif (row.get("marker") or "").strip() in marker_texts(env, docname):
                continue
            else:
                why = (
                    f"no '% error:', '% warning:' or '% alias:' marker on {page} has the text "
                    f"{row.get('marker', '')!r}"
                )
            logger.warning(
                f"{shown}:{reader.line_num}: {why}", type="torchsheet", subtype="evidence"
            )

"""What the exports know of the whole site, read from the pages themselves (no Sphinx): each
page's title and purpose sentence, the labels ``{ref}`` names, the number of indexed messages,
and the reading order the toctrees give (the root, then each page below it, depth first)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..locations import page_files
from ..pages.markers import messages_of
from ..pages.page import read_page
from .prose import Site

_TITLE = re.compile(r"^# (?P<title>.+?)\s*$", re.MULTILINE)
#: A target, and the heading right after it if any (its title, what a bare ``{ref}`` shows).
_LABEL = re.compile(
    r"^\((?P<label>[\w-]+)\)=[ \t]*\n(?:\n*#+ (?P<title>.+?)[ \t]*$)?", re.MULTILINE
)
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_TOCTREE = re.compile(r"^```\{toctree\}[^\n]*\n(?P<body>.*?)^```", re.MULTILINE | re.DOTALL)


@dataclass
class SiteMap:
    """Every page of ``docs`` by docname ('tensors/creating')."""

    docs: Path
    titles: dict[str, str] = field(default_factory=dict)
    purposes: dict[str, str] = field(default_factory=dict)
    refs: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    children: dict[str, list[str]] = field(default_factory=dict)
    errors_count: int = 0

    def site(self, docname: str, url: str = "") -> Site:
        """How page ``docname``'s exports link to the site at ``url``."""
        return Site(docname, url, self.refs, self.titles, self.errors_count)

    def reading_order(self, root: str = "index") -> list[tuple[str, int]]:
        """(docname, depth) of the root and every page below its toctrees, depth first."""
        order, seen = [], set()

        def walk(docname: str, depth: int) -> None:
            if docname in seen or docname not in self.titles:
                return
            seen.add(docname)
            order.append((docname, depth))
            for child in self.children.get(docname, []):
                walk(child, depth + 1)

        walk(root, 0)
        return order + [(d, 0) for d in sorted(self.titles) if d not in seen]


def site_map(docs: Path) -> SiteMap:
    """Read every page under ``docs`` once (the page model's cache: the site and the run share
    it) into a :class:`SiteMap`."""
    found = SiteMap(docs)
    for path in page_files(docs):
        docname = path.relative_to(docs).with_suffix("").as_posix()
        page = read_page(path)
        outside = [(b.start, b.stop) for b in page.blocks]
        title = next(
            (
                m
                for m in _TITLE.finditer(page.text)
                if not any(a <= m.start() < b for a, b in outside)
            ),
            None,
        )
        found.titles[docname] = title["title"].replace("`", "") if title else docname
        if title is not None:
            after = page.text[title.end() :].lstrip("\n").split("\n\n", 1)[0]
            if after and not after.startswith(("#", "`", "%", "(")):
                # its links' text only: a link is relative to its page, not to llms.txt
                found.purposes[docname] = _LINK.sub(r"\1", " ".join(after.split()))
        for label in _LABEL.finditer(page.text):
            title = (label["title"] or "").replace("`", "")
            found.refs[label["label"]] = (docname, label["label"], title)
        base = docname.rpartition("/")[0]
        for toctree in _TOCTREE.finditer(page.text):
            entries = [e.strip() for e in toctree["body"].splitlines()]
            names = [e for e in entries if e and not e.startswith(":")]
            found.children.setdefault(docname, []).extend(
                f"{base}/{n}" if base else n for n in names
            )
        found.errors_count += sum(len(messages_of(b.markers)) for b in page.blocks)
    return found

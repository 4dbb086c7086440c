"""A page's prose as plain Markdown, for every export (notebook, Markdown twin): ``%`` marker
lines and ``(label)=`` targets left out, the roles and directives the pages use made plain, and
links to other pages made links to the site. What it cannot express raises :class:`ExportError`
naming the page line: nothing is dropped silently."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..locations import place

#: Directives the site fills from other pages or the results: an export links there.
GENERATED = frozenset(
    "page-overview quick-reference pitfalls errors run-times verified-environments "
    "what-changed".split()
)
ADMONITIONS = frozenset(
    "note tip hint important warning caution attention danger error seealso".split()
)
_DIRECTIVE = re.compile(r"^(?P<fence>`{3,}|~{3,})\{(?P<name>[\w:-]+)\}(?P<argument>.*)$")
#: Left to right: a role, a code span (kept as it is), a link.
_INLINE = re.compile(
    r"\{(?P<role>[\w:-]+)\}`(?P<role_text>[^`]*)`"
    r"|(?P<code>(?P<ticks>`+).*?(?P=ticks))"
    r"|(?P<bang>!?)\[(?P<text>[^\]]*)\]\((?P<target>[^)\s]+)\)"
)
_REF = re.compile(r"(?P<text>.*?)\s*<(?P<label>[^<>]+)>$")
_LABEL = re.compile(r"^\((?P<label>[\w-]+)\)=\s*$")


class ExportError(ValueError):
    """What an export cannot express, as 'page:line: why'."""


@dataclass(frozen=True)
class Site:
    """Where the exports of page ``docname`` link to: the site at ``url`` ('' for links relative
    to the page's HTML), its ``refs`` (label → (docname, anchor, title)), its ``titles``."""

    docname: str
    url: str = ""
    refs: Mapping[str, tuple[str, str, str]] = field(default_factory=dict)
    titles: Mapping[str, str] = field(default_factory=dict)
    errors_count: int = 0

    def href(self, target: str, suffix: str = ".html") -> str:
        """The address of ``target`` (a docname, with '#anchor' or not, or a static file)."""
        path, _, anchor = target.partition("#")
        path = path + suffix if suffix and path else path
        if self.url:
            address = f"{self.url.rstrip('/')}/{path}"
        else:
            address = posixpath.relpath(path, posixpath.dirname(self.docname) or ".")
        return address + (f"#{anchor}" if anchor else "")

    def page_href(self, link: str) -> str | None:
        """The site address of a link a page writes ('autograd.md#x', '../_static/a.png'); None
        for an address of its own (a URL, an anchor on the page)."""
        if re.match(r"^[a-z][a-z0-9+.-]*:", link) or link.startswith("#"):
            return None
        path, _, anchor = link.partition("#")
        target = posixpath.normpath(posixpath.join(posixpath.dirname(self.docname), path))
        if target.endswith(".md"):
            return self.href(target.removesuffix(".md") + (f"#{anchor}" if anchor else ""))
        return self.href(target, suffix="")


def plain_markdown(text: str, first_line: int, path: str, site: Site) -> str:
    """``text`` (page lines from ``first_line`` of page ``path``) as plain Markdown."""
    out: list[str] = []
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        line, number = lines[index], first_line + index
        index += 1
        if line.startswith("%") or _LABEL.match(line):
            continue
        directive = _DIRECTIVE.match(line)
        if directive is None:
            out.append(_inline(line, place(path, number), site))
            continue
        body: list[str] = []
        while index < len(lines) and lines[index].strip() != directive["fence"]:
            body.append(lines[index])
            index += 1
        index += 1  # the closing fence
        out += _directive(directive["name"], directive["argument"].strip(), body, number, path,
                          site)  # fmt: skip
    return "\n".join(out)


def _directive(
    name: str, argument: str, body: list[str], line: int, path: str, site: Site
) -> list[str]:
    content = [entry for entry in body if entry.strip() and not entry.lstrip().startswith(":")]
    if name == "toctree":
        return [f"- [{site.titles.get(_doc(site, e), e.strip())}]({site.href(_doc(site, e))})"
                for e in content]  # fmt: skip
    if name in GENERATED:
        title = site.titles.get(site.docname, site.docname)
        return [f"*Built by the site from every page: [{title}]({site.href(site.docname)}).*"]
    if name in ADMONITIONS or name == "admonition":
        heading = argument or name.capitalize()
        text = plain_markdown("\n".join(content), line + 1, path, site).split("\n")
        return [f"> **{heading}**", *(f"> {entry}" for entry in text)]
    raise ExportError(f"{place(path, line)}: the exports cannot express the directive {{{name}}}")


def _doc(site: Site, entry: str) -> str:
    return posixpath.normpath(posixpath.join(posixpath.dirname(site.docname), entry.strip()))


def _inline(line: str, where: str, site: Site) -> str:
    def replace(match: re.Match[str]) -> str:
        if match["code"] is not None:
            return match[0]
        if match["role"] is not None:
            return _role(match["role"], match["role_text"], where, site)
        address = site.page_href(match["target"])
        return match[0] if address is None else f"{match['bang']}[{match['text']}]({address})"

    return _INLINE.sub(replace, line)


def _role(name: str, text: str, where: str, site: Site) -> str:
    if name == "ref":
        ref = _REF.match(text)
        label = ref["label"] if ref else text
        if label not in site.refs:
            raise ExportError(f"{where}: {{ref}} names an unknown label {label!r}")
        docname, anchor, title = site.refs[label]
        if not (ref or title):
            raise ExportError(f"{where}: {{ref}} to {label!r}, which is no heading, needs a text")
        return f"[{ref['text'] if ref else title}]({site.href(f'{docname}#{anchor}')})"
    if name == "errors-count":
        return f"{site.errors_count} {text}"
    raise ExportError(f"{where}: the exports cannot express the role {{{name}}}")

"""``llms.txt`` (an index of the Markdown twins, llmstxt.org's form: the site's title, its
summary, then a section a part of the site, each page a link with its purpose sentence) and
``llms-full.txt`` (every twin, in reading order, in one file)."""

from __future__ import annotations

from collections.abc import Mapping

from .site_map import SiteMap


def llms_index(site_map: SiteMap, url: str = "", root: str = "index") -> str:
    """The text of ``llms.txt`` for the site at ``url`` ('' for addresses relative to it)."""
    base = url.rstrip("/") + "/" if url else ""

    def item(docname: str) -> str:
        purpose = site_map.purposes.get(docname, "")
        return f"- [{site_map.titles[docname]}]({base}{docname}.md)" + (
            f": {purpose}" if purpose else ""
        )

    lines = [f"# {site_map.titles.get(root, 'torchsheet')}", ""]
    if summary := site_map.purposes.get(root):
        lines += [f"> {summary}", ""]
    lines += [
        "Each link is the Markdown twin of a page: its prose, and every code block with the "
        "output the tests verified on each torch version the page names. "
        f"All of them in one file: [llms-full.txt]({base}llms-full.txt).",
        "",
    ]
    sheet = [d for d, depth in site_map.reading_order(root) if depth == 1]
    leaves = [d for d in sheet if not site_map.children.get(d)]
    for section in [d for d in sheet if site_map.children.get(d)]:
        lines += [f"## {site_map.titles[section]}", "", item(section)]
        lines += [item(child) for child in site_map.children[section] if child in site_map.titles]
        lines.append("")
    if leaves:
        lines += ["## Reference", "", *(item(d) for d in leaves), ""]
    return "\n".join(lines)


def llms_full(site_map: SiteMap, twins: Mapping[str, str], root: str = "index") -> str:
    """Every twin in reading order, each after a line naming its page."""
    parts = [
        f"<!-- {docname}.md -->\n{twins[docname].rstrip()}\n"
        for docname, _ in site_map.reading_order(root)
        if docname in twins
    ]
    return "\n".join(parts)

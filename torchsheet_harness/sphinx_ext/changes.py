"""``{what-changed}``: the page rebuilt from every leg's results, never edited by hand. The
examples whose printed output or raised message differs between the torch versions (what each
printed, a column per version: a new leg adds one), and what changed between the versions in the
torch names the sheet's blocks use (new, removed, signature changed, deprecated)."""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx

from ..pages.excerpts import prompt_examples
from ..pages.page import read_page
from ..results import describe_device, describe_torch
from . import store, versions
from .rendering import cell, link, placeholder, table
from .status import changed_anchor


def _example_source(docname: str, app: Sphinx, line: int, example: int) -> tuple[str, str]:
    """(code, language) of the example of block ``line`` starting on page line ``example``."""
    block = read_page(app.env.doc2path(docname)).block_at(line)
    if block is None:
        return "", "text"
    for parsed in prompt_examples(block.code) or []:
        if block.first_code_line + parsed.lineno == example:
            return parsed.source.rstrip("\n"), "python"
    script = block.included is not None and block.included.suffix != ".py"
    return block.code.rstrip("\n"), "bash" if script else "python"


def _changed_block(app: Sphinx, docname: str, here: str, line: int, diffs) -> nodes.section:  # noqa: ANN001
    view = store.view(app, docname)
    block = read_page(app.env.doc2path(docname)).block_at(line)
    heading = f"{store.title(app, docname)} › {block.section if block else ''} (line {line})"
    section = nodes.section("", ids=[changed_anchor(docname, line)], classes=["ts-changed"])
    section += nodes.title("", "", link(app, here, docname, block.slug if block else "",
                                        [nodes.Text(heading)]))  # fmt: skip
    for example, texts in diffs.items():
        code, language = _example_source(docname, app, line, int(example))
        section += nodes.literal_block(code, code, language=language)
        header = [f"torch {describe_torch(view.environments[k])} on "
                  f"{describe_device(view.environments[k])}" for k in texts]  # fmt: skip
        row = nodes.row(
            "", *(cell(nodes.literal_block(t, t or "(nothing)")) for t in texts.values())
        )
        section += table(header, [row], ["ts-changed-outputs"])
    return section


class what_changed(placeholder):  # noqa: N801 (docutils node names)
    """The outputs and the API that changed between the recorded torch versions."""

    def render(self, app: Sphinx, docname: str) -> list[nodes.Node]:
        changed, examples, uses = [], 0, {}
        for page, record in store.in_reading_order(app):
            if not record.has_code:
                continue
            view = store.view(app, page)
            for line in view.lines:
                for entry in view.blocks[line].values():
                    for name in entry.get("uses", []):
                        uses.setdefault(name, set()).add(page)
                if diffs := versions.differences(view, line):
                    changed.append(_changed_block(app, page, docname, line, diffs))
                    examples += len(diffs)
        changes = versions.api_changes(store.found_results(app), uses)
        summary = (
            f"{len(changed)} blocks print differently between the torch versions the tests ran "
            f"({examples} examples); {len(changes)} changes in the {len(uses)} torch names the "
            "blocks use."
        )
        content = [nodes.paragraph("", summary, classes=["ts-qr-summary"])]
        content.append(nodes.section("", nodes.title("", "Outputs"), *changed,
                                     ids=["changed-outputs"]))  # fmt: skip
        rows = [
            nodes.row("", cell(nodes.literal(c.name, c.name)), cell(nodes.Text(c.what)),
                      cell(nodes.Text(c.version)), cell(nodes.Text(c.detail)),
                      cell(*_pages(app, docname, uses.get(c.name, set()))))
            for c in changes
        ]  # fmt: skip
        header = ("Name", "What changed", "In torch", "Detail", "Used on")
        api = nodes.section("", nodes.title("", "The API the blocks use"),
                            table(header, rows, ["ts-changed-api"]),
                            ids=["changed-api"])  # fmt: skip
        return [nodes.container("", *content, api, classes=["no-search"])]


def _pages(app: Sphinx, here: str, pages: set[str]) -> list[nodes.Node]:
    found: list[nodes.Node] = []
    for page in sorted(pages):
        if found:
            found.append(nodes.Text(", "))
        found.append(link(app, here, page, "", [nodes.Text(store.title(app, page))]))
    return found

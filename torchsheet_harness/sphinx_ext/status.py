"""What the verdicts say, on the page: the status line under each page's purpose sentence (worded
by :mod:`.status_text`; a page without code sums its section), the badge above each block (what
it needs from the :class:`~torchsheet_harness.pages.requirements.Requirement` that gates its
test, or that it is not run; where the recorded runs disagree, where), and ``{page-overview}``:
every page in reading order with its purpose sentence."""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx

from ..pages.model import Block
from ..pages.requirements import Requirement
from . import store, versions
from .rendering import code_text, link, placeholder
from .status_text import Status, section_status, status_of
from .verdicts import block_verdict, describe_keys

CPU_HOW = Requirement().how_to_run


class page_status(placeholder):  # noqa: N801 (docutils node names)
    """The page's status line, rendered from the results when the page is written."""

    def render(self, app: Sphinx, docname: str) -> list[nodes.Node]:
        status = status_for(app, docname)
        text: nodes.Node = nodes.Text(status.text)
        if status.detail:
            text = nodes.abbreviation(status.text, status.text, explanation=status.detail)
        classes = ["ts-status", f"ts-status-{status.state}", "no-search"]
        return [nodes.paragraph("", "", text, classes=classes)]


def purpose_of(document: nodes.document) -> str | None:
    """The page's one-line purpose: the first paragraph directly under its title."""
    section = next(iter(document.findall(nodes.section)), None)
    if section is None or len(section.children) < 2:
        return None
    first = section.children[1]
    return first.astext().replace("\n", " ") if isinstance(first, nodes.paragraph) else None


def place_status(document: nodes.document) -> None:
    """The status placeholder after the title and the purpose sentence."""
    section = next(iter(document.findall(nodes.section)), None)
    if section is None:
        return
    children = list(section.children)
    position = 2 if len(children) > 1 and isinstance(children[1], nodes.paragraph) else 1
    section.insert(position, page_status())


def status_for(app: Sphinx, docname: str) -> Status:
    """A page with code: its own result. A page without (an index): the sum over its section."""
    records = store.records(app.env)
    if records.get(docname, store.PageRecord()).has_code:
        return status_of([store.view(app, docname)])
    prefix = docname.rsplit("/", 1)[0] + "/" if "/" in docname else ""
    below = [d for d in sorted(app.env.found_docs) if d.startswith(prefix)]
    views = [store.view(app, d) for d in below if d in records and records[d].has_code]
    return section_status(views) or Status("none", "No code on this page.")


class page_overview(placeholder):  # noqa: N801 (docutils node names)
    """Every page in reading order, with its purpose sentence."""

    def render(self, app: Sphinx, docname: str) -> list[nodes.Node]:
        records = store.records(app.env)
        items = nodes.bullet_list(classes=["ts-overview", "no-search"])
        for page, depth in store.reading_order(app):
            title = nodes.Text(store.title(app, page))
            line = nodes.paragraph("", "", link(app, docname, page, "", [title]))
            if purpose := records.get(page, store.PageRecord()).purpose:
                line += nodes.Text(" ")
                line += nodes.inline("", f"— {purpose}", classes=["ts-purpose"])
            items += nodes.list_item("", line, classes=[f"ts-overview-depth-{depth}"])
        return [items]


class block_badge(placeholder):  # noqa: N801 (docutils node names)
    """Before a block: ``label`` ('' for a CPU block), ``how`` it is run, ``kinds`` (CSS classes),
    its ``line``; rendered with the recorded verdict, wrapping the block."""

    def render(self, app: Sphinx, docname: str) -> list[nodes.Node]:
        view = store.view(app, docname)
        state, result = block_verdict(view, self["line"]) or ("", "")
        label, how, kinds = self["label"], self["how"], self["kinds"].split()
        history = block_history(app, docname, view, self["line"])
        if not label:  # a CPU block: a badge only for a verdict worth a line
            if state in ("", "unverified"):
                return history
            label, how = ("failing" if state == "failed" else "partly verified"), CPU_HOW
        if state:
            kinds.append(f"ts-result-{state}")
        tooltip = " ".join(filter(None, [how.replace("`", ""), result]))
        badge = nodes.container("", classes=["ts-requirement", *kinds, "no-search"])
        badge += nodes.abbreviation(label, label, explanation=tooltip, classes=["ts-badge"])
        badge += nodes.inline("", "", *code_text(how), classes=["ts-how"])
        if result:
            badge += nodes.inline(result, result, classes=["ts-result"])
        block = self.next_node(descend=False, siblings=True)
        block.parent.remove(block)
        return [nodes.container("", badge, *history, block, classes=["ts-gated"])]


def block_history(app: Sphinx, docname: str, view, line: int) -> list[nodes.Node]:  # noqa: ANN001
    """The line above a block: the torch versions (and devices) it passed on, where it was
    skipped, the versions it printed differently on (linked to the what-changed page), and what
    changed in the torch names it uses; none where no run recorded it."""
    ran = versions.ran_on(view, line)
    if not ran:
        return []
    line_nodes: list[nodes.Node] = [nodes.Text(f"Ran with {ran}")]
    if differs := versions.differences(view, line):
        first = versions.ordered(view.environments)
        oldest = next(key for key in first if key in next(iter(differs.values())))
        other = sorted({
            key for texts in differs.values() for key, text in texts.items()
            if versions.comparable(text) != versions.comparable(texts[oldest])
        }, key=first.index)  # fmt: skip
        where = describe_keys(view.environments, other)
        than = describe_keys(view.environments, [oldest])
        line_nodes.append(nodes.Text(f"; prints differently with {where} than with {than}: "))
        anchor = changed_anchor(docname, line)
        line_nodes.append(link(app, docname, CHANGES_PAGE, anchor, [nodes.Text("what changed")]))
    uses = {name for entry in view.blocks.get(line, {}).values() for name in entry.get("uses", [])}
    if notes := versions.in_words(versions.api_changes(store.found_results(app), uses)):
        line_nodes += [nodes.Text(". "), *code_text(notes.removesuffix("."))]
    line_nodes.append(nodes.Text("."))
    return [nodes.paragraph("", "", *line_nodes, classes=["ts-versions", "no-search"])]


#: The generated page of what changed between the torch versions (docs/changes.md).
CHANGES_PAGE = "changes"


def changed_anchor(docname: str, line: int) -> str:
    """The what-changed page's anchor of block ``line`` of ``docname``."""
    return f"changed-{docname.replace('/', '-')}-{line}"


def place_badge(node: nodes.literal_block, wrapper: nodes.Element, block: Block) -> None:
    """doctree-read (from :mod:`.reading`): the badge placeholder before a block that runs or
    declares a need, from the page model's block."""
    if block.included is not None:
        node["classes"].append("ts-script")  # run as a script, not pasted
    if block.not_run is not None:
        node["classes"].append("ts-not-run")
        how = f"Shown, not run by the tests: {block.not_run}."
        badge = block_badge(label="not run", how=how, kinds="ts-not-run", line=block.line)
    else:
        requirement = block.requirement
        if not block.is_python and requirement.is_cpu_only:
            return  # a block that neither runs nor declares a need
        label = "" if requirement.is_cpu_only else requirement.label  # '': a CPU block
        kinds = " ".join(f"ts-needs-{marker}" for marker in requirement.markers)
        badge = block_badge(label=label, how=requirement.how_to_run, kinds=kinds, line=block.line)
    wrapper.parent.insert(wrapper.parent.index(wrapper), badge)

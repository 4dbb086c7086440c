"""Badges above code blocks: what a block needs, or that it is shown but not run, from the
:class:`~torchsheet_harness.pages.requirements.Requirement` that gates its test (an unknown
``needs-*`` class warns until fixed); where the recorded runs disagree, the badge says where."""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx

from ..locations import place
from ..pages.markers import Marker
from ..pages.requirements import Requirement, RequirementError, parse_classes
from . import store
from .rendering import code_text, placeholder
from .verdicts import block_verdict

CPU_HOW = Requirement().how_to_run


class block_badge(placeholder):  # noqa: N801 (docutils node names)
    """Before a block: ``label`` ('' for a CPU block), ``how`` it is run, ``kinds`` (CSS classes),
    its ``line``; rendered with the recorded verdict, wrapping the block."""

    def render(self, app: Sphinx, docname: str) -> list[nodes.Node]:
        view = store.view(app, docname)
        state, result = block_verdict(view, self["line"]) or ("", "")
        label, how, kinds = self["label"], self["how"], self["kinds"].split()
        if not label:  # a CPU block: a badge only for a verdict worth a line
            if state in ("", "unverified"):
                return []
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
        return [nodes.container("", badge, block, classes=["ts-gated"])]


def place_badge(
    app: Sphinx, node: nodes.literal_block, block: nodes.Element, markers: tuple[Marker, ...]
) -> None:
    """doctree-read (from :mod:`.reading`): the badge placeholder before a block that runs or
    declares a need; a warning for a need the harness does not know."""
    included = bool(node.get("source")) and node["source"] != node.source
    runs = included or node.get("language") == "python"
    classes = " ".join(node["classes"])
    if included:
        node["classes"].append("ts-script")  # run as a script, not pasted
    not_run = next((marker.text for marker in markers if marker.kind == "not-run"), None)
    if not_run is not None:
        node["classes"].append("ts-not-run")
        how = f"Shown, not run by the tests: {not_run}."
        badge = block_badge(label="not run", how=how, kinds="ts-not-run", line=node.line)
    else:
        try:
            where = place(node.source or node.document["source"], node.line or 0)
            requirement = parse_classes(classes, where, runs)
        except RequirementError as error:
            store.warn_until_fixed(app, str(error), "requirement")
            return
        if not runs and requirement.is_cpu_only:
            return  # a block that neither runs nor declares a need
        label = "" if requirement.is_cpu_only else requirement.label  # '': a CPU block
        kinds = " ".join(f"ts-needs-{marker}" for marker in requirement.markers)
        badge = block_badge(label=label, how=requirement.how_to_run, kinds=kinds, line=node.line)
    block.parent.insert(block.parent.index(block), badge)

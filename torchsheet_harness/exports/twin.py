"""A page's Markdown twin, written from the page model for readers who hand it to an assistant:
the prose as plain Markdown, every block as on the page with its output as verified (a block that
needs hardware, is not run or is launched says so), the older wordings of its messages, and the
line saying what verified the page."""

from __future__ import annotations

from ..pages.markers import messages_of
from ..pages.model import Block, Page, Prose
from .prose import Site, plain_markdown


def _fence(language: str, text: str) -> str:
    ticks = "````" if "```" in text else "```"
    return f"{ticks}{language}\n{text.rstrip()}\n{ticks}"


def block_markdown(block: Block) -> str:
    """``block`` as the twin shows it."""
    requirement, notes = block.requirement, []
    if block.not_run is not None:
        notes.append(f"Shown, not run by the tests: {block.not_run}.")
    elif not requirement.is_cpu_only:
        notes.append(requirement.how_to_run)
    elif block.included is not None and block.executed:
        notes.append(f"`{block.included.name}`, run as `python {block.included.name}`.")
    language = "python" if block.is_python else block.argument
    parts = [f"*{note}*" for note in notes] + [_fence(language, block.code)]
    if block.output is not None:
        parts.append("Output:\n\n" + _fence("text", block.output))
    aliases = [alias for message in messages_of(block.markers) for alias in message.aliases]
    if aliases:
        words = "; ".join(f"`{wording}` ({where})" for wording, where in aliases)
        parts.append(f"Also printed as: {words}.")
    return "\n\n".join(parts)


def twin_of(page: Page, site: Site, verified: str) -> str:
    """The Markdown twin of ``page``; ``verified``: the status line's words."""
    chunks: list[str] = []
    for part in page.parts():
        if isinstance(part, Prose):
            text = plain_markdown(part.text, part.line, page.path, site).strip()
            if text:
                chunks.append(text)
        elif not part.is_output:
            chunks.append(block_markdown(part))
    if chunks:
        title, _, rest = chunks[0].partition("\n\n")
        purpose, _, more = rest.partition("\n\n")
        lead = [title, purpose, f"*{verified}*", more] if purpose else [title, f"*{verified}*"]
        chunks[0] = "\n\n".join(text for text in lead if text)
    return "\n\n".join(chunks) + "\n"

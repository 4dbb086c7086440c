"""Every page where readers work: next to each page's HTML the build writes its notebook
(``page.ipynb``) and its Markdown twin (``page.md``), both from the page model
(:mod:`..exports`); at the end, ``llms.txt``, ``llms-full.txt`` and ``notebooks.zip``. Under each
page's status line, the bar that offers them: download the notebook, open it in Colab or Kaggle
(only where ``torchsheet_notebooks_repo`` names the public repository the notebooks are published
in), read the twin, copy it. What an export cannot express is a build warning at its page line."""

from __future__ import annotations

import json
import zipfile
from html import escape
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging

from ..exports.llms import llms_full, llms_index
from ..exports.notebook import Verification, notebook_of
from ..exports.prose import ExportError
from ..exports.site_map import SiteMap, site_map
from ..exports.twin import twin_of
from ..pages.page import read_page
from ..results import describe_torch
from . import store
from .rendering import placeholder
from .status import status_for

logger = logging.getLogger(__name__)
SCRIPT = Path(__file__).with_name("page_actions.js")
STATIC_NAME = "torchsheet-actions.js"
ARCHIVE = "notebooks.zip"
#: How to open a downloaded notebook where the site names no repository to open it from.
OPEN_DOWNLOADED = (
    "To run it in Colab: File › Upload notebook there, then pick the file; Jupyter opens it as "
    "it is."
)


def site_url(app: Sphinx) -> str:
    return app.config.torchsheet_site_url or app.config.html_baseurl or ""


def _site(app: Sphinx) -> SiteMap:
    build = vars(app).setdefault("torchsheet_build", {})
    if "site_map" not in build:
        build["site_map"] = site_map(Path(app.srcdir))
    return build["site_map"]


def hosted(app: Sphinx, docname: str) -> dict[str, str]:
    """The Colab and Kaggle addresses of the notebook, where the site names its repository."""
    repo = app.config.torchsheet_notebooks_repo
    if not repo:
        return {}
    path = "/".join(p for p in (app.config.torchsheet_notebooks_path.strip("/"), docname) if p)
    github = f"github.com/{repo}/blob/{app.config.torchsheet_notebooks_branch}/{path}.ipynb"
    return {
        "Open in Colab": f"https://colab.research.google.com/{github.replace('.com', '', 1)}",
        "Open in Kaggle": f"https://kaggle.com/kernels/welcome?src=https://{github}",
    }


class page_actions(placeholder):  # noqa: N801 (docutils node names)
    """The bar under the status line: the notebook and the twin of the page."""

    def render(self, app: Sphinx, docname: str) -> list[nodes.Node]:
        name = escape(Path(docname).name)
        links = [f'<a class="ts-action" href="{name}.ipynb" download>Download notebook</a>']
        links += [
            f'<a class="ts-action ts-hosted" href="{escape(url)}">{label}</a>'
            for label, url in hosted(app, docname).items()
        ]
        links += [
            f'<a class="ts-action" href="{name}.md">Markdown</a>',
            f'<button class="ts-action ts-copy-page" type="button" data-src="{name}.md">'
            "Copy page</button>",
        ]
        note = (
            "" if hosted(app, docname) else f'<span class="ts-open-note">{OPEN_DOWNLOADED}</span>'
        )
        html = f'<div class="ts-page-actions no-search">{" ".join(links)}{note}</div>'
        return [nodes.raw("", html, format="html")]


def place_actions(section: nodes.Element) -> None:
    """doctree-read (from :mod:`.reading`): the bar right after the status line."""
    from .status import page_status

    status = next(iter(section.findall(page_status)), None)
    if status is not None:
        status.parent.insert(status.parent.index(status) + 1, page_actions())


def verification(app: Sphinx, docname: str) -> Verification:
    """What verified ``docname``, from the results this build read."""
    view = store.view(app, docname)
    torch = sorted({describe_torch(env).split("+")[0] for env in view.environments.values()})
    blocks = {
        line: {k: e.get("outcome", "") for k, e in v.items()} for line, v in view.blocks.items()
    }
    return Verification(status_for(app, docname).text, tuple(torch), blocks)


def write_exports(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:  # noqa: ANN001, ARG001
    """html-page-context: the notebook and the twin of a page, next to its HTML."""
    if doctree is None or pagename not in store.records(app.env):
        return
    page = read_page(app.env.doc2path(pagename))
    site = _site(app).site(pagename, site_url(app))
    checked = verification(app, pagename)
    out = Path(app.outdir, pagename)
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        notebook = notebook_of(page, site, checked)
        twin = twin_of(page, site, checked.text)
    except ExportError as error:
        logger.warning(str(error), type="torchsheet", subtype="export")
        return
    out.with_suffix(".ipynb").write_text(json.dumps(notebook, indent=1) + "\n", "utf-8")
    out.with_suffix(".md").write_text(twin, "utf-8")


def write_indexes(app: Sphinx, exception: Exception | None) -> None:
    """build-finished: llms.txt, llms-full.txt and the archive of every notebook."""
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    site = _site(app)
    twins = {
        docname: path.read_text("utf-8")
        for docname in site.titles
        if (path := out / f"{docname}.md").is_file()
    }
    (out / "llms.txt").write_text(llms_index(site, site_url(app)), "utf-8")
    (out / "llms-full.txt").write_text(llms_full(site, twins), "utf-8")
    with zipfile.ZipFile(out / ARCHIVE, "w", zipfile.ZIP_DEFLATED) as archive:
        for docname, _ in site.reading_order():
            if (path := out / f"{docname}.ipynb").is_file():
                archive.write(path, f"torchsheet/{docname}.ipynb")


def copy_script(app: Sphinx) -> None:
    """builder-inited: the copy-page script into ``_static/``."""
    if app.builder.format == "html":
        static = Path(app.outdir) / "_static"
        static.mkdir(parents=True, exist_ok=True)
        (static / STATIC_NAME).write_text(SCRIPT.read_text("utf-8"), "utf-8")

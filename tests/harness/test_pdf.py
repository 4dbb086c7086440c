"""The quick reference prints (headless Chromium, as ``nox -s pdf``) to a few A4 pages holding
the sheet and no navigation (``pdfinfo``, ``pdftotext``; skipped without them)."""

import shutil
import subprocess
from pathlib import Path

import pytest
from pdf_print import chromium, print_to_pdf

#: About four printed A4 pages at most, the issue says; fewer than two means it lost content.
PAGES = range(2, 5)


@pytest.fixture(scope="module")
def pdf(site: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    missing = [tool for tool in ("pdfinfo", "pdftotext") if shutil.which(tool) is None]
    if chromium() is None or missing:
        pytest.skip(
            "needs Chromium and poppler-utils (Debian: apt install chromium poppler-utils); "
            f"missing: {', '.join(missing + ([] if chromium() else ['chromium']))}"
        )
    out = tmp_path_factory.mktemp("pdf") / "quickref.pdf"
    print_to_pdf(site / "quickref.html", out)
    return out


def test_the_quick_reference_prints_to_a_few_a4_pages(pdf: Path) -> None:
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True)
    fields = dict(line.split(":", 1) for line in info.stdout.splitlines() if ":" in line)
    pages = int(fields["Pages"])
    assert pages in PAGES, f"{pages} pages"
    width, height = (float(v) for v in fields["Page size"].split("pts")[0].split(" x "))
    assert (round(width), round(height)) == (595, 842), "A4 in points"


def test_the_pdf_holds_the_sheet_and_no_navigation(pdf: Path) -> None:
    text = subprocess.run(
        ["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    for line in ("Quick reference", "torch.zeros(2, 3)", "optimizer.zero_grad()", "DDP("):
        assert line in text, f"{line!r} is not in the PDF"
    for chrome in ("Search", "Previous", "Made with"):
        assert chrome not in text, f"{chrome!r}: the print stylesheet should hide it"

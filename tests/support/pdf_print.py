"""Print a built page to PDF with headless Chromium, A4, no header (the page's print stylesheet
hides the navigation): ``python tests/support/pdf_print.py PAGE.html OUT.pdf`` (``nox -s pdf``)."""

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

PRINT_TIMEOUT_SECONDS = 120
#: Headless and offline: nothing but this machine resolves (the site needs no other host).
CHROMIUM_FLAGS = (
    "--headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
    "--disable-background-networking --disable-component-update --disable-sync "
    "--disable-dev-shm-usage"
).split() + ["--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]


def chromium() -> str | None:
    """The Chromium binary, or None when none is installed."""
    return next((p for name in ("chromium", "chromium-browser") if (p := shutil.which(name))), None)


def print_to_pdf(page: Path, pdf: Path) -> None:
    """Print ``page`` (an HTML file) to ``pdf``; raises with Chromium's output when it fails."""
    binary = chromium()
    if binary is None:
        raise FileNotFoundError("Chromium not found (Debian: apt install chromium)")
    pdf.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="torchsheet-pdf-") as profile:
        command = [
            binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--no-pdf-header-footer",
            f"--print-to-pdf={pdf.resolve()}", page.resolve().as_uri(),
        ]  # fmt: skip
        finished = subprocess.run(
            command, capture_output=True, text=True, timeout=PRINT_TIMEOUT_SECONDS
        )
    if finished.returncode != 0 or not pdf.is_file():
        raise RuntimeError(f"chromium --print-to-pdf failed:\n{finished.stderr[-3000:]}")


if __name__ == "__main__":
    print_to_pdf(Path(sys.argv[1]), Path(sys.argv[2]))
    print(f"wrote {sys.argv[2]}")

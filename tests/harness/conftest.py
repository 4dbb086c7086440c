"""The site's fixtures, shared by the site's tests: the built site, served on localhost, and
headless Chromium (Debian's, driven by selenium; skipped with the reason where it is missing:
.ci/run installs the Debian packages of .ci/apt-packages.txt)."""

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from built_site import build_site, serve
from pdf_print import CHROMIUM_FLAGS, chromium


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_site(tmp_path_factory.getbasetemp())


@pytest.fixture(scope="session")
def base_url(site: Path) -> Iterator[str]:
    with serve(site) as url:
        yield url


@pytest.fixture(scope="session")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
    driver_path = shutil.which("chromedriver")
    if chromium() is None or driver_path is None:
        pytest.skip("Chromium or chromedriver not found (apt install chromium chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium()
    profile = tmp_path_factory.mktemp("chromium")
    for flag in [*CHROMIUM_FLAGS, "--window-size=1280,900", f"--user-data-dir={profile}"]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SE_OFFLINE", "true")  # Selenium Manager must never download a browser
        driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(driver_path))
    driver.set_page_load_timeout(20)
    yield driver
    driver.quit()

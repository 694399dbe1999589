"""A page opened in headless Chromium through chromedriver (selenium), for the HTML reports' tests:
the real browser users open them in. Debian's chromium and chromium-driver (.ci/run installs them);
without them the tests that use :func:`chromium_page` are skipped (``NO_BROWSER``)."""
from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

#: the flags the workplace's probe starts Chromium with (no background connections on a closed network)
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--window-size=1400,1000")
NO_BROWSER = "no chromium + chromedriver (Debian: apt-get install chromium chromium-driver)"


def browser_paths() -> tuple[str, str] | None:
    chromium = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
    driver = shutil.which("chromedriver")
    return (chromium, driver) if chromium and driver else None


@contextmanager
def chromium_page(page: Path, tmp_path: Path) -> Iterator[Any]:
    """The selenium driver with ``page`` loaded (browser log kept for the tests to read); quit after."""
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium not installed (the test extra)")
    from selenium.webdriver.chrome.service import Service

    paths = browser_paths()
    if paths is None:
        pytest.skip(NO_BROWSER)
    chromium, driver_path = paths
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tempfile.mkdtemp(dir=tmp_path)}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        driver.set_page_load_timeout(60)
        driver.get(page.resolve().as_uri())
        yield driver
    finally:
        driver.quit()

"""``--html``: one self-contained page, checked as text and rendered in headless Chromium (a real
browser from the distribution's packages, driven through chromedriver by Selenium; skipped with
the reason where either is missing, CI installs them: ``.ci/run``)."""

from __future__ import annotations

import re
import shutil
import tempfile
from html import escape
from pathlib import Path

import pytest

from pipeperf.report.html_report import SECTIONS

from report_launch import cli_args

SECTION_IDS = [sid for sid, _ in SECTIONS]
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--window-size=1400,1000")


def _browser_paths() -> tuple[str, str] | None:
    chromium = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
    driver = shutil.which("chromedriver")
    return (chromium, driver) if chromium and driver else None


def test_page_is_self_contained_with_every_section(transpose_report):
    page = transpose_report.html()
    assert page.startswith("<!DOCTYPE html>")
    for sid in SECTION_IDS:
        assert f'<section id="{sid}">' in page
    assert "<script" not in page                                  # no JavaScript at all
    assert not re.search(r'(?:src|href)\s*=\s*"(?!#)', page)      # nothing loaded: only in-page links
    assert '<figure id="occupancy-sweep"><svg' in page and '<figure id="roofline-plot"><svg' in page
    # the CUDA source beside the per-line data, with each line's share of the simulated time
    assert escape("out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];") in page
    assert "time share on " in page
    assert "bank-conflict degree 31.00" in page                  # mapper g's row on that line
    for h in transpose_report.headlines():
        assert escape(h.bound_text) in page


def test_repr_html_is_the_body(transpose_report):
    body = transpose_report._repr_html_()
    assert body.startswith('<div class="pipeperf-report">') and "<html" not in body
    assert all(f'id="{sid}"' in body for sid in SECTION_IDS)


def test_cli_writes_the_page(cli, tmp_path):
    path = tmp_path / "report.html"
    rc, out, err = cli(*cli_args("--html", str(path)))
    assert rc == 0, err
    assert f"html: {path}" in out
    page = path.read_text()
    assert all(f'<section id="{sid}">' in page for sid in SECTION_IDS)
    assert '<figure id="occupancy-sweep">' in page           # --html implies the sweep


@pytest.mark.skipif(_browser_paths() is None,
                    reason="no chromium + chromedriver (Debian: apt-get install chromium chromium-driver)")
def test_page_renders_in_headless_chromium(transpose_report, tmp_path):
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium not installed (the test extra)")
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By

    chromium, driver_path = _browser_paths()
    page = transpose_report.write_html(tmp_path / "report.html")
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
        assert driver.title.startswith("pipeperf analyze: transpose_shared")
        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert errors == []
        for sid in SECTION_IDS:
            section = driver.find_element(By.ID, sid)
            assert section.is_displayed(), sid
            assert section.size["height"] > 20, sid
        for fig in ("occupancy-sweep", "roofline-plot"):
            svg = driver.find_element(By.CSS_SELECTOR, f"#{fig} svg")
            assert svg.size["width"] > 200 and svg.size["height"] > 150, fig
        rows = driver.find_elements(By.CSS_SELECTOR, "#source table.src tr.hot")
        assert len(rows) == 2                      # the two lines with memory rows
        height = driver.execute_script("return document.body.scrollHeight")
        driver.set_window_size(1400, min(height + 100, 8000))
        shot = Path(tempfile.gettempdir()) / "pipeperf-html-report.png"
        assert driver.save_screenshot(str(shot)) and shot.stat().st_size > 50_000
    finally:
        driver.quit()

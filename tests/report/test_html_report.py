"""``--html``: one self-contained page, checked as text and rendered in headless Chromium (a real
browser from the distribution's packages, driven through chromedriver by Selenium; skipped with
the reason where either is missing, CI installs them: ``.ci/run``)."""

from __future__ import annotations

import re
import tempfile
from html import escape
from pathlib import Path

import pytest

from pipeperf.report.html_report import SECTIONS

from headless_browser import NO_BROWSER, browser_paths, chromium_page
from report_launch import cli_args

SECTION_IDS = [sid for sid, _ in SECTIONS]
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


@pytest.mark.slow
@pytest.mark.skipif(browser_paths() is None, reason=NO_BROWSER)
def test_page_renders_in_headless_chromium(transpose_report, tmp_path):
    from selenium.webdriver.common.by import By

    page = transpose_report.write_html(tmp_path / "report.html")
    with chromium_page(page, tmp_path) as driver:
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

"""`report --format html`: one self-contained page, inert on a hostile run, read in real Chromium.

The browser tests drive Debian's `chromium` headless (`.ci/run` installs it where it is
missing): `--dump-dom` gives the DOM after the page's load and its script, `--screenshot`
the page at a phone's width and a wide screen's. They skip, saying why, where no Chromium
can be found.
"""

from __future__ import annotations

import base64
import hashlib
import re
import shutil
import struct
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from ragtui.cli import main
from tests.cli.ci_sample import report_file
from tests.cli.hostile_runs import ATTACKS, COLONS_ID, IMAGE, QUESTION, write_hostile

# The page's own elements: a hostile run adds none (no script, img, iframe, a, svg …).
PAGE_TAGS = {
    "html", "head", "meta", "title", "style", "body", "main", "header", "h1", "h2", "h3", "ul", "ol", "li", "strong", "code",
    "span", "p", "section", "div", "table", "thead", "tbody", "tr", "th", "td", "label", "select", "option", "button",
    "details", "summary", "br", "footer", "script",
}
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


class _Page(HTMLParser):
    """Tags, attributes, text and the inline style and script of a page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.inline: dict[str, str] = {}
        self._open: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._open = tag if tag in ("style", "script") else None

    def handle_endtag(self, tag: str) -> None:
        self._open = None

    def handle_data(self, data: str) -> None:
        if self._open:
            self.inline[self._open] = data
        else:
            self.text.append(data)


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


@pytest.fixture(scope="module")
def sample_html(tmp_path_factory) -> Path:
    code, path = report_file(tmp_path_factory.mktemp("html"), "html", "--fail-on-regression")
    assert code == 0
    return path


@pytest.fixture(scope="module")
def hostile_html(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("hostile")
    a, b, gold = write_hostile(folder)
    code, path = report_file(folder, "html", runs=[str(a), str(b), "--gold", str(gold), "--no-cache"])
    assert code == 0
    return path


def _digest(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def test_the_page_loads_nothing_and_its_policy_allows_only_its_own_style_and_script(sample_html):
    page = _parse(sample_html)
    assert not [attrs for _, attrs in page.tags if {"src", "href", "srcdoc", "action"} & attrs.keys()]
    assert [tag for tag, _ in page.tags].count("script") == 1 and [tag for tag, _ in page.tags].count("style") == 1
    policy = next(attrs["content"] for tag, attrs in page.tags if tag == "meta" and attrs.get("http-equiv") == "Content-Security-Policy")
    assert policy is not None and policy.startswith("default-src 'none'; ")
    assert f"style-src {_digest(page.inline['style'])};" in policy
    assert f"script-src {_digest(page.inline['script'])};" in policy
    assert "base-uri 'none'" in policy and "form-action 'none'" in policy


def test_the_sample_page_holds_the_panels_the_grid_and_the_failing_questions(sample_html):
    page = _parse(sample_html)
    text = " ".join(page.text)
    assert "ragtui report: baseline → candidate" in text
    assert "87.5% → 84.4%" in text  # faithfulness 0.875 → 0.8441, as the text report and the app print it
    assert "Short factual" in text and "Known contradiction" in text
    questions = [attrs for tag, attrs in page.tags if tag == "details"]
    assert len(questions) == 52  # 26 regressed + 26 still failing
    assert sum(attrs["data-status"] == "regressed" for attrs in questions) == 26
    gold = [attrs for tag, attrs in page.tags if tag == "li" and attrs.get("class") == "gold"]
    assert gold, "the gold passages are marked"
    assert any(tag == "li" and attrs.get("class") == "unsupported" for tag, attrs in page.tags)


def test_a_hostile_run_adds_no_element_and_every_attack_is_text_on_the_page(hostile_html):
    page = _parse(hostile_html)
    assert {tag for tag, _ in page.tags} <= PAGE_TAGS
    assert [tag for tag, _ in page.tags].count("script") == 1
    text = "".join(page.text)
    for attack in ATTACKS:
        assert attack in text, attack
    assert COLONS_ID in text and QUESTION in text and IMAGE in text


def test_control_characters_from_a_file_show_as_symbols_on_the_page(tmp_path):
    a, b, gold = write_hostile(tmp_path)
    code, path = report_file(tmp_path, "html", runs=[str(a), str(b), "--gold", str(gold), "--no-cache"])
    assert code == 0
    text = path.read_text(encoding="utf-8")
    assert "\x1b" not in text and "\x07" not in text
    assert "␛]0;pwned␇" in text  # in the judge's reason of each sentence


def _browser() -> str:
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    pytest.skip("no Chromium on this machine (.ci/run installs Debian's chromium where apt-get can)")


def _chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [
        _browser(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
        f"--user-data-dir={tmp_path / 'profile'}", *args,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=180)


def _dom(tmp_path: Path, page: Path, fragment: str = "") -> str:
    result = _chromium(tmp_path, "--dump-dom", page.as_uri() + fragment)
    assert "<html" in result.stdout, result.stderr[-2000:]
    return result.stdout


def _root(dom: str) -> str:
    return re.search(r"<html[^>]*>", dom).group(0)  # type: ignore[union-attr]


@pytest.mark.slow
def test_in_chromium_the_hostile_run_stays_inert_and_its_text_shows(tmp_path, hostile_html):
    dom = _dom(tmp_path, hostile_html, "#open=all")
    root = _root(dom)
    assert 'data-filters="ready"' in root  # the page's own script ran …
    assert "pwned" not in root  # … and not one of the run's
    body = dom.split("<body>", 1)[1]
    assert not re.search(r"<(img|iframe|a|svg)[\s>]", body)
    assert body.count("<script>") == 1
    assert "&lt;script&gt;document.documentElement.dataset.pwned = 'script'&lt;/script&gt;" in body
    assert "&lt;iframe srcdoc=" in body and "&lt;a id=hostile-link href=" in body
    assert len(re.findall(r'<details [^>]*open=""', body)) == 3  # #open=all: every question shown is open, its texts visible


@pytest.mark.slow
def test_in_chromium_the_policy_stops_a_script_that_slipped_past_the_escaping(tmp_path, sample_html):
    slipped = tmp_path / "slipped.html"
    payload = (
        "<script>document.documentElement.dataset.pwned = 'inline'</script>"
        "<img src=x onerror=\"document.documentElement.dataset.pwned = 'image'\">"
        "<iframe srcdoc=\"<script>parent.document.documentElement.dataset.pwned = 'iframe'</script>\"></iframe>"
    )
    slipped.write_text(sample_html.read_text(encoding="utf-8").replace("<main>", "<main>" + payload, 1), encoding="utf-8")
    root = _root(_dom(tmp_path, slipped))
    assert 'data-filters="ready"' in root and "pwned" not in root


@pytest.mark.slow
def test_in_chromium_the_filters_show_the_category_and_status_asked_for(tmp_path, sample_html):
    dom = _dom(tmp_path, sample_html, "#status=still_failing")
    assert "26 of 52 shown" in dom
    dom = _dom(tmp_path, sample_html, "#category=procedurale&status=regressed")
    assert "6 of 52 shown" in dom  # q005, q020, q053, q099, q100, q111
    shown = re.findall(r'<details class="question" data-category="([^"]*)" data-status="([^"]*)">', dom)
    assert shown == [("procedurale", "regressed")] * 6


def _png_size(path: Path) -> tuple[int, int]:
    width, height = struct.unpack(">II", path.read_bytes()[16:24])
    return width, height


@pytest.mark.slow
@pytest.mark.parametrize(("width", "scheme"), [(390, "light"), (390, "dark"), (1280, "light"), (1280, "dark")])
def test_in_chromium_the_page_draws_at_a_phones_width_and_a_wide_screens_in_light_and_dark(tmp_path, hostile_html, width, scheme):
    shot = tmp_path / f"report-{width}-{scheme}.png"
    args = [f"--window-size={width},1600", f"--screenshot={shot}"] + (["--force-dark-mode"] if scheme == "dark" else [])
    result = _chromium(tmp_path, *args, hostile_html.as_uri() + "#open=all")
    assert shot.is_file(), result.stderr[-2000:]
    assert _png_size(shot) == (width, 1600)
    assert shot.stat().st_size > 20_000  # text was drawn, not a blank page


def test_html_needs_an_output_file_or_standard_output(tmp_path, capsys):
    a, b, gold = write_hostile(tmp_path)
    assert main(["report", str(a), str(b), "--gold", str(gold), "--format", "html"]) == 0
    assert capsys.readouterr().out.startswith("<!DOCTYPE html>")

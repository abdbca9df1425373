"""Neo4j Browser in headless Chromium, driven the way a person uses it: open a URL, type the
password into the connect form, paste into the editor, press run, and read what the result
frame drew (the SVG nodes and relationships of its graph view).

Chromium is Debian's (`/usr/bin/chromium`), driven by the PyPI `playwright` package; nothing is
downloaded. Every request that does not go to 127.0.0.1 is refused (Browser asks for web fonts,
crash reporting and usage statistics), and so is name resolution of any other host.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
]
LOCAL = ("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:")
VIEWPORT = {"width": 1400, "height": 900}


def unavailable_reason() -> str | None:
    """None when headless Chromium and playwright are here, else why not."""
    if shutil.which(CHROMIUM) is None:
        return f"no {CHROMIUM} (apt-get install chromium; `make setup` does)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install -e '.[dev]')"
    return None


@dataclass(frozen=True)
class DrawnNode:
    identity: int
    """Neo4j's internal node id, from the SVG element's aria-label `graph-node<id>`."""
    fill: str
    caption: str
    """The caption lines as drawn, joined by spaces."""


@dataclass(frozen=True)
class DrawnGraph:
    nodes: list[DrawnNode]
    relationship_fills: list[str]
    relationship_captions: list[str]
    overview: str
    """The frame's overview panel ("Displaying 13 nodes, 22 relationships.")."""


class BrowserSession:
    """One Browser tab in a fresh Chromium profile."""

    def __init__(self, page: Any, origin: str) -> None:
        self.page = page
        self.origin = origin
        self.refused: list[str] = []

    def open(self, url: str) -> None:
        self.page.goto(url)

    def connect_form(self) -> dict[str, str]:
        """What the connect form shows: the bolt address and the user name filled in."""
        page = self.page
        page.get_by_test_id("password").wait_for()
        return {
            "address": page.get_by_test_id("boltaddress").input_value(),
            "scheme": page.get_by_test_id("bolt-scheme-select").input_value(),
            "username": page.get_by_test_id("username").input_value(),
        }

    def log_in(self, password: str) -> None:
        self.page.get_by_test_id("password").fill(password)
        self.page.get_by_test_id("connect").click()
        self.page.get_by_text("You are connected as user").first.wait_for()

    def wait_connected(self) -> None:
        """After a reload Browser reconnects with the credentials it kept."""
        self.page.get_by_test_id("disconnectedBanner").wait_for(state="detached")

    def paste(self, text: str) -> None:
        """Into the editor through the clipboard, as a person pastes."""
        page = self.page
        page.evaluate("text => navigator.clipboard.writeText(text)", text)
        page.get_by_test_id("activeEditor").click()
        page.keyboard.press("Control+A")
        page.keyboard.press("Control+V")

    def run(self) -> None:
        """Press the editor's run button."""
        self.page.get_by_test_id("editor-Run").click()

    def statements_frame(self) -> Any:
        """The newest frame listing the statements of a multi-statement run."""
        frames = self.page.get_by_test_id("frame")
        frame = frames.filter(has=self.page.get_by_test_id("multi-statement-list")).first
        frame.wait_for()
        return frame

    def graph_frame(self) -> Any:
        """The newest frame that draws a graph."""
        frame = self.page.get_by_test_id("frame").filter(has=self.page.locator("svg g.node"))
        frame.first.wait_for()
        return frame.first

    def statement_statuses(self, frame: Any) -> list[tuple[str, str]]:
        """(statement, status) per line of a multi-statement frame, once none is pending or
        waiting for its turn."""
        titles = frame.get_by_test_id("multi-statement-list-title")
        titles.first.wait_for()
        deadline = time.monotonic() + 30
        while True:
            rows = titles.evaluate_all(
                """els => els.map(e => [e.querySelector('label').textContent,
                    e.querySelector('[data-testid=multi-statement-list-icon]').title])"""
            )
            busy = any(status.endswith(("pending", "waiting")) for _, status in rows)
            if not busy or time.monotonic() > deadline:
                return [(text, status.removeprefix("Status: ")) for text, status in rows]
            self.page.wait_for_timeout(100)

    def screenshot(self, frame: Any, path: Path) -> None:
        """The frame full screen, its graph zoomed to fit, as a person would look at it."""
        frame.get_by_title("Fullscreen", exact=True).click()
        frame.locator('[aria-label="zoom-to-fit"]').click()
        self.page.wait_for_timeout(800)  # the zoom is animated
        frame.screenshot(path=str(path))

    def drawn_graph(self, frame: Any, settle_s: float = 10.0) -> DrawnGraph:
        """The graph view of `frame` once its layout has come to rest."""
        frame.locator("svg g.node").first.wait_for()
        last: Any = None
        deadline = time.monotonic() + settle_s
        while time.monotonic() < deadline:
            now = frame.locator("svg g.node").evaluate_all(
                "els => els.map(e => e.getAttribute('transform'))"
            )
            if now == last:
                break
            last = now
            self.page.wait_for_timeout(400)
        nodes = frame.locator("svg g.node").evaluate_all(
            """els => els.map(e => [e.getAttribute('aria-label'),
                e.querySelector('circle.b-outline').getAttribute('fill'),
                Array.from(e.querySelectorAll('text.caption')).map(t => t.textContent)])"""
        )
        rels = frame.locator("svg g.relationship").evaluate_all(
            """els => els.map(e => [e.querySelector('path.b-outline').getAttribute('fill'),
                (e.querySelector('text') || {textContent: ''}).textContent])"""
        )
        return DrawnGraph(
            nodes=[
                DrawnNode(
                    int(label.removeprefix("graph-node")),
                    fill.upper(),
                    " ".join(" ".join(lines).split()),
                )
                for label, fill, lines in nodes
            ],
            relationship_fills=[fill.upper() for fill, _ in rels],
            relationship_captions=[text for _, text in rels],
            overview=frame.inner_text(),
        )


@contextmanager
def browser_session(origin: str, profile: Path) -> Iterator[BrowserSession]:
    """Chromium on a fresh profile folder, allowed to reach 127.0.0.1 only."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(profile),
            executable_path=CHROMIUM,
            headless=True,
            args=FLAGS,
            viewport=VIEWPORT,
        )
        try:
            context.grant_permissions(["clipboard-read", "clipboard-write"], origin=origin)
            page = context.pages[0] if context.pages else context.new_page()
            session = BrowserSession(page, origin)

            def only_local(route: Any) -> None:
                if route.request.url.startswith(LOCAL):
                    route.continue_()
                else:
                    session.refused.append(route.request.url)
                    route.abort()

            context.route("**/*", only_local)
            yield session
        finally:
            context.close()

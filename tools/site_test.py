"""Open the built course site in headless Chromium and check every page, as a reader would.

    python tools/site_test.py [--site build/site/html] [--chromium /usr/bin/chromium]

Serves the site on 127.0.0.1 (a throw-away HTTP server), then for every page: it loads,
every image loads (a decoded picture, not a broken icon), every link inside the site
resolves (to a page that exists, and an ``#anchor`` to an element of that page), and no
page shows an error output (a stored traceback). Screenshots of each page's top go to
``build/site_screenshots/``. Exit 1 on the first page with a problem, listing them all.
"""
from __future__ import annotations

import argparse
import functools
import http.server
import importlib.util
import sys
import tempfile
import threading
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("browser_test", ROOT / "tools" / "browser_test.py")
browser_test = importlib.util.module_from_spec(_spec)
sys.modules["browser_test"] = browser_test
_spec.loader.exec_module(browser_test)

JS_PAGE_FACTS = """() => {
  const imgs = Array.from(document.querySelectorAll('img'));
  const links = Array.from(document.querySelectorAll('a[href]')).map(a => a.getAttribute('href'));
  const ids = Array.from(document.querySelectorAll('[id]')).map(e => e.id);
  const errors = Array.from(document.querySelectorAll('.cell_output .output.traceback, .cell_output .output.error'))
    .map(e => e.innerText.slice(0, 200));
  const text = document.body.innerText;
  return {
    title: document.title,
    images: imgs.length,
    broken: imgs.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.getAttribute('src')),
    links: links, ids: ids, errors: errors,
    traceback: text.includes('Traceback (most recent call last)'),
  };
}"""


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(folder: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    """Serve ``folder`` on a free loopback port; return the server and its base URL."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def link_problems(site: Path, page: str, facts: dict, anchors: dict) -> list[str]:
    """Links of one page that do not resolve inside the site."""
    out = []
    for href in facts["links"]:
        parts = urllib.parse.urlsplit(href)
        if parts.scheme or parts.netloc or href.startswith("mailto:"):
            continue
        target = page if not parts.path else str((Path(page).parent / parts.path).as_posix())
        target = str(Path(target).as_posix()).lstrip("./")
        path = site / urllib.parse.unquote(target)
        if path.is_dir():
            path = path / "index.html"
        if not path.exists():
            out.append(f"link {href!r}: no file {target}")
            continue
        if parts.fragment and path.suffix == ".html":
            ids = anchors.get(path.relative_to(site).as_posix())
            if ids is not None and urllib.parse.unquote(parts.fragment) not in ids:
                out.append(f"link {href!r}: no element with id {parts.fragment!r} in {target}")
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", default=str(ROOT / "build" / "site" / "html"))
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--screenshots", default=str(ROOT / "build" / "site_screenshots"))
    args = parser.parse_args(argv)
    site = Path(args.site).resolve()
    pages = sorted(p.relative_to(site).as_posix() for p in site.glob("*.html")
                   if p.name not in ("genindex.html", "search.html", "index.html"))  # index.html redirects to lesson 00
    if not any(p.startswith("00_") for p in pages):
        print(f"ERROR: no lesson pages in {site}: run make site first")
        return 1
    shots = Path(args.screenshots)
    shots.mkdir(parents=True, exist_ok=True)
    from playwright.sync_api import sync_playwright

    server, base = serve(site)
    problems: dict[str, list[str]] = {}
    facts_by_page = {}
    with tempfile.TemporaryDirectory() as tmp:
        proc, cdp = browser_test.start_chromium(Path(args.chromium), Path(tmp) / "profile", Path(tmp))
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.connect_over_cdp(cdp, timeout=60_000)
                page = browser.contexts[0].new_page()
                page.set_viewport_size({"width": 1280, "height": 900})
                for name in pages:
                    response = page.goto(f"{base}/{name}", wait_until="load", timeout=60_000)
                    facts = page.evaluate(JS_PAGE_FACTS)
                    facts_by_page[name] = facts
                    bad = []
                    if response is None or response.status != 200:
                        bad.append(f"HTTP {None if response is None else response.status}")
                    bad += [f"image does not load: {src}" for src in facts["broken"]]
                    bad += [f"error output: {e!r}" for e in facts["errors"]]
                    if facts["traceback"]:
                        bad.append("a traceback is shown")
                    if bad:
                        problems[name] = bad
                    page.screenshot(path=str(shots / (Path(name).stem + ".png")))
                browser.close()
        finally:
            browser_test.stop_process(proc, "Chromium")
            server.shutdown()
    anchors = {name: set(f["ids"]) for name, f in facts_by_page.items()}
    for name, facts in facts_by_page.items():
        bad = link_problems(site, name, facts, anchors)
        if bad:
            problems.setdefault(name, []).extend(bad)
    images = sum(f["images"] for f in facts_by_page.values())
    for name in pages:
        status = "ok" if name not in problems else f"{len(problems[name])} problems"
        print(f"{name:45s} {facts_by_page[name]['images']:4d} images  {status}")
        for p in problems.get(name, [])[:20]:
            print(f"    {p}")
    print(f"{len(pages)} pages, {images} images, {len(problems)} pages with problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

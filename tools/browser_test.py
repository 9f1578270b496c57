"""Run every course notebook in JupyterLab in headless Chromium, as a student would.

``make browser-test`` runs this script with the project's ``.venv`` python::

    python tools/browser_test.py                       # every notebook in notebooks/
    python tools/browser_test.py 00_start_here.ipynb   # only the notebooks named
    python tools/browser_test.py --break-widgets 00_start_here.ipynb   # must FAIL

What it does
------------
1. Copies ``notebooks/`` to a temporary folder (JupyterLab saves what it opens,
   so the originals are never served) and writes a throw-away JupyterLab
   configuration there: all cells attached to the page (no windowing), no news
   or update pop-ups, no autosave.
2. Starts JupyterLab from this Python environment on 127.0.0.1, on a free port,
   with a random token, and Debian's Chromium headless with a fresh profile;
   Playwright drives Chromium over the DevTools protocol.
3. For each notebook, in a fresh browser context: opens it with ``?reset``,
   waits until the status bar shows the kernel idle, clears the stored outputs,
   runs all cells and waits for them to finish, then checks that

   - no cell has an error output, and every non-empty code cell ran;
   - every widget output rendered as a live widget (not a static fallback);
   - every Stepper (``.lessons-stepper``) changes its picture when Next (or,
     at the last step, Prev) is pressed;
   - every Explorer (``.lessons-explorer``, :mod:`lessons_lib.explorer`) answers
     real mouse events on its canvas (:func:`drive_explorer`): Cleanup on the
     starting state says what it changed (and Reset undoes it), a click outside
     the world is refused and changes nothing, a click on empty space adds a
     box and changes the picture (and the array view, where there is one; at
     300 boxes or more it is drawn over a veil that fades the rest), a
     shift-drag query's hits equal the browser's brute-force scan, Undo and
     Cleanup shrink a quadtree's node count, Reset restores the start; at
     2,000 boxes or more the median click-to-redraw time is measured;

   and saves screenshots of the whole notebook to ``build/screenshots/``
   (``NAME.png``, and ``NAME-part2.png``... for a long notebook). Uncaught
   errors thrown in the page (a widget's JavaScript, for one) are printed
   under the notebook's line.
4. Stops Chromium and JupyterLab by their own process ids, also on failure.

Besides the lessons, the Explorer's demo notebook ``tools/explorer_demo.ipynb``
is run (it is copied in beside the lessons; name it alone to run only it).

``--break-widgets`` disables the ipywidgets extension
(``@jupyter-widgets/jupyterlab-manager``) in the throw-away configuration, so
widget outputs fall back to their static PNG: the run must then fail. It shows
the widget checks are not vacuous.

Exit status: 0 when every notebook passes, 1 otherwise (each problem is
printed with its notebook and cell), 2 for a usage or environment error.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
WIDGET_EXTENSION = "@jupyter-widgets/jupyterlab-manager"
STEPPER = ".lessons-stepper"  # the class lessons_lib.widgets.Stepper puts on its widget
EXPLORER = ".lessons-explorer"  # the class lessons_lib/explorer.js puts on its root element
EXPLORER_NOTEBOOK = ROOT / "tools" / "explorer_demo.ipynb"
LATENCY_BOXES = 2000  # explorers with at least this many boxes get their click-to-redraw time measured
LATENCY_CLICKS = 21
CROWDED_BOXES = 300  # lessons_lib.explorer.CROWDED_BOXES: from here a gesture's marks are drawn over a veil
VIEWPORT = {"width": 1400, "height": 1000}
SCREENSHOT_HEIGHT = 10000  # px at most per file; a longer notebook takes several files
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-quic", "--no-first-run", "--no-default-browser-check", "--mute-audio",
    "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
]
# Settings of the throw-away JupyterLab, by plugin id.
LAB_SETTINGS = {
    # every cell in the page, no blank page after the last one (for the screenshots), and
    # the default kernel for a notebook without a kernelspec (instead of a dialog)
    "@jupyterlab/notebook-extension/tracker": {
        "windowingMode": "none", "scrollPastEnd": False, "autoStartDefaultKernel": True},
    "@jupyterlab/apputils-extension/notification": {
        "fetchNews": "false", "checkForUpdates": False, "doNotDisturbMode": True},
    "@jupyterlab/docmanager-extension/plugin": {"autosave": False},
}

# JavaScript helpers, defined in every page before JupyterLab loads.
# __btPanel(path) is the open notebook panel for that path, or undefined.
INIT_SCRIPT = """
window.__btPanel = (path) => {
  const app = window.jupyterapp;
  if (!app || !app.shell) return undefined;
  return Array.from(app.shell.widgets('main')).find(w => w.context && w.context.path === path);
};
"""
JS_NOTEBOOK_OPEN = """(path) => {
  const panel = window.__btPanel(path);
  return !!(panel && panel.context.isReady && panel.content.widgets.length > 0);
}"""
JS_STATUS_TEXT = """() => {
  const bar = document.querySelector('#jp-main-statusbar');
  return bar ? bar.innerText.replace(/\\s+/g, ' ') : '';
}"""
# The status bar says "Python 3 (ipykernel) | Idle" (more reliable than the toolbar's circle).
JS_KERNEL_IDLE = """(path) => {
  const bar = document.querySelector('#jp-main-statusbar');
  const panel = window.__btPanel(path);
  return !!(bar && /\\|\\s*Idle\\b/.test(bar.innerText) && !bar.innerText.includes('No Kernel')
            && panel && panel.sessionContext.session && panel.sessionContext.session.kernel);
}"""
JS_START_RUN_ALL = """async (path) => {
  const app = window.jupyterapp;
  app.shell.activateById(window.__btPanel(path).id);
  await app.commands.execute('notebook:clear-all-cell-outputs');
  window.__btRun = null;
  app.commands.execute('notebook:run-all-cells').then(
    ok => { window.__btRun = {ok: ok}; },
    err => { window.__btRun = {error: String(err)}; });
}"""
JS_RUN_FINISHED = "() => window.__btRun !== null && window.__btRun !== undefined"
JS_RUN_RESULT = "() => window.__btRun"
JS_CELLS = """(path) => window.__btPanel(path).content.widgets.map(cell => ({
  type: cell.model.type,
  source: cell.model.sharedModel.getSource(),
  tags: cell.model.getMetadata('tags') || [],
  count: cell.model.type === 'code' ? cell.model.executionCount : null,
  outputs: cell.model.type === 'code' ? cell.model.outputs.toJSON().map(o => ({
    type: o.output_type, ename: o.ename || '', evalue: o.evalue || '',
    mimes: Object.keys(o.data || {}),
    text: String((o.data || {})['text/plain'] || '').slice(0, 200),
  })) : [],
}))"""
# How each widget output shows on the page: 'live' (a widget view), 'loading',
# 'error' (ipywidgets' "Error displaying widget") or 'fallback: <mime>'. An ipywidgets view
# carries the class jupyter-widgets; the Explorer (an anywidget) is live once its module drew its root.
JS_WIDGET_STATES = """([path, mime]) => {
  const states = [];
  window.__btPanel(path).content.widgets.forEach((cell, i) => {
    if (cell.model.type !== 'code') return;
    cell.model.outputs.toJSON().forEach((o, k) => {
      if (!o.data || !o.data[mime]) return;
      const child = cell.outputArea.widgets[k];
      const node = child ? child.node : null;
      const text = node ? node.innerText : '';
      const shown = node ? node.querySelector('[data-mime-type]') : null;
      let state = 'loading';
      if (text.includes('Error displaying widget')) state = 'error';
      else if (node && node.querySelector('.jupyter-widgets, """ + EXPLORER + """')) state = 'live';
      else if (shown) state = 'fallback: ' + shown.getAttribute('data-mime-type');
      states.push({cell: i, output: k, state: state, text: text.slice(0, 200)});
    });
  });
  return states;
}"""
JS_NOTEBOOK_SCROLLER = """(path) => {
  const panel = window.__btPanel(path);
  return panel.content.node.querySelector('.jp-WindowedPanel-outer') || panel.content.node;
}"""
# The notebook's scrolling area: its content height, visible height, and the page height around it.
JS_NOTEBOOK_METRICS = """(path) => {
  const scroller = (""" + JS_NOTEBOOK_SCROLLER + """)(path);
  return {content: scroller.scrollHeight, visible: scroller.clientHeight,
          chrome: window.innerHeight - scroller.clientHeight};
}"""
JS_SCROLL_TO = "([path, y]) => { (" + JS_NOTEBOOK_SCROLLER + ")(path).scrollTop = y; }"
JS_CLOSE_SIDEBAR = "() => window.jupyterapp.shell.collapseLeft()"
HIDE_TOASTS_CSS = ".Toastify { display: none !important; }"
NON_EMPTY = re.compile(r"\S")


@dataclass
class Options:
    """What to run and where (see :func:`parse_args`)."""

    notebooks: Path
    screenshots: Path
    chromium: Path
    timeout: float
    break_widgets: bool
    only: list[str] = field(default_factory=list)


@dataclass
class Server:
    """A running JupyterLab: its process, base URL and token."""

    proc: subprocess.Popen
    base: str
    token: str
    log: Path


class CheckFailed(Exception):
    """A notebook failed a check; the message names the notebook and cell."""


# --------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------
def parse_args(argv: list[str] | None) -> Options:
    """Read the command line into :class:`Options`."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("only", nargs="*", metavar="NOTEBOOK",
                   help="notebook file names to run (default: every *.ipynb in --notebooks)")
    p.add_argument("--notebooks", type=Path, default=ROOT / "notebooks",
                   help="folder of notebooks (copied, never served directly)")
    p.add_argument("--screenshots", type=Path, default=None,
                   help="folder for the screenshots (default build/screenshots, "
                        "build/screenshots/broken-widgets with --break-widgets)")
    p.add_argument("--chromium", type=Path, default=Path("/usr/bin/chromium"))
    p.add_argument("--timeout", type=float, default=300.0,
                   help="seconds allowed for each notebook's cells to run (default 300)")
    p.add_argument("--break-widgets", action="store_true",
                   help=f"disable {WIDGET_EXTENSION}: the run must fail (checks the checks)")
    a = p.parse_args(argv)
    shots = a.screenshots or ROOT / "build" / "screenshots" / ("broken-widgets" if a.break_widgets else "")
    return Options(a.notebooks.resolve(), shots.resolve(), a.chromium, a.timeout,
                   a.break_widgets, a.only)


def select_notebooks(folder: Path, only: list[str]) -> list[str]:
    """File names of the notebooks to run, in reading order."""
    names = sorted(p.name for p in folder.glob("*.ipynb"))
    if EXPLORER_NOTEBOOK.exists() and EXPLORER_NOTEBOOK.name not in names:
        names.append(EXPLORER_NOTEBOOK.name)  # copied in by prepare_workspace
    only = [Path(n).name for n in only]  # notebooks/00_x.ipynb or 00_x.ipynb
    missing = [n for n in only if n not in names]
    if missing:
        raise SystemExit(f"ERROR: no such notebook in {folder}: {', '.join(missing)}")
    return [n for n in names if not only or n in only]


# --------------------------------------------------------------------------
# The throw-away workspace: notebook copies and JupyterLab configuration
# --------------------------------------------------------------------------
def prepare_workspace(tmp: Path, notebooks: Path, break_widgets: bool) -> Path:
    """Copy the notebooks into ``tmp`` and write JupyterLab's settings there; return the copy."""
    course = tmp / "course"
    shutil.copytree(notebooks, course / "notebooks",
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    if EXPLORER_NOTEBOOK.exists() and not (course / "notebooks" / EXPLORER_NOTEBOOK.name).exists():
        shutil.copy2(EXPLORER_NOTEBOOK, course / "notebooks" / EXPLORER_NOTEBOOK.name)
    if (ROOT / "data").is_dir():  # lessons may read ../data, as they do from the repository
        (course / "data").symlink_to(ROOT / "data", target_is_directory=True)
    for plugin, values in LAB_SETTINGS.items():
        package, name = plugin.rsplit("/", 1)
        write_json(tmp / "settings" / package / f"{name}.jupyterlab-settings", values)
    if break_widgets:
        write_json(tmp / "config" / "labconfig" / "page_config.json",
                   {"disabledExtensions": {WIDGET_EXTENSION: True}})
    return course / "notebooks"


def write_json(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")


def jupyter_env(tmp: Path) -> dict[str, str]:
    """The environment for JupyterLab and its kernels: private config, data and runtime folders."""
    env = dict(os.environ)
    for var, sub in [("JUPYTER_CONFIG_DIR", "config"), ("JUPYTER_DATA_DIR", "data"),
                     ("JUPYTER_RUNTIME_DIR", "runtime"), ("IPYTHONDIR", "ipython")]:
        (tmp / sub).mkdir(parents=True, exist_ok=True)
        env[var] = str(tmp / sub)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env.pop("JUPYTER_PATH", None)
    return env


# --------------------------------------------------------------------------
# Processes
# --------------------------------------------------------------------------
def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_process(cmd: list[str], log: Path, env: dict[str, str] | None = None) -> subprocess.Popen:
    """Start ``cmd`` in its own session (so it can be stopped with its children), output to ``log``."""
    with open(log, "wb") as out:
        return subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                env=env, start_new_session=True)


def stop_process(proc: subprocess.Popen | None, name: str, grace: float = 15.0) -> None:
    """Stop ``proc`` and its process group (SIGTERM, then SIGKILL after ``grace`` seconds)."""
    if proc is None or proc.poll() is not None:
        return
    for sig, wait in [(signal.SIGTERM, grace), (signal.SIGKILL, 10.0)]:
        try:
            os.killpg(proc.pid, sig)  # the group the process leads (start_new_session)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            print(f"  {name} (pid {proc.pid}) did not stop after {sig.name}")


def log_tail(log: Path, lines: int = 30) -> str:
    text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
    return "\n".join(text.splitlines()[-lines:])


def start_server(tmp: Path, root_dir: Path, logs: Path) -> Server:
    """Start JupyterLab on a free port with a random token; return once it answers."""
    port, token = free_port(), secrets.token_hex(24)
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
           "--ServerApp.port_retries=0", f"--ServerApp.root_dir={root_dir}",
           f"--IdentityProvider.token={token}", "--LabApp.expose_app_in_browser=True",
           f"--LabApp.user_settings_dir={tmp / 'settings'}",
           f"--LabApp.workspaces_dir={tmp / 'workspaces'}"]
    if os.getuid() == 0:
        cmd.append("--allow-root")  # JupyterLab refuses root otherwise (containers, CI)
    server = Server(start_process(cmd, logs / "jupyterlab.log", jupyter_env(tmp)),
                    f"http://127.0.0.1:{port}", token, logs / "jupyterlab.log")
    try:
        wait_for_server(server, timeout=120)
    except BaseException:
        stop_process(server.proc, "JupyterLab")
        raise
    return server


def api(server: Server, method: str, path: str):
    """Call JupyterLab's REST API; return the decoded JSON (None for an empty reply)."""
    req = urllib.request.Request(server.base + path, method=method,
                                 headers={"Authorization": f"token {server.token}"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        body = resp.read()
    return json.loads(body) if body else None


def wait_for_server(server: Server, timeout: float) -> None:
    """Poll ``/api/status`` until JupyterLab answers; fail if it exits or takes longer than ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.proc.poll() is not None:
            raise RuntimeError(f"JupyterLab exited with code {server.proc.returncode}:\n{log_tail(server.log)}")
        try:
            api(server, "GET", "/api/status")
            return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.5)
    raise RuntimeError(f"JupyterLab did not answer within {timeout:.0f} s:\n{log_tail(server.log)}")


def delete_sessions(server: Server) -> None:
    """Shut down every kernel session left on the server (a previous page's kernel, for one)."""
    for session in api(server, "GET", "/api/sessions") or []:
        api(server, "DELETE", f"/api/sessions/{session['id']}")


def start_chromium(chromium: Path, profile: Path, logs: Path, timeout: float = 60) -> tuple[subprocess.Popen, str]:
    """Start headless Chromium with a fresh profile; return it and its DevTools URL."""
    proc = start_process([str(chromium), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "about:blank"],
                         logs / "chromium.log")
    port_file = profile / "DevToolsActivePort"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"Chromium exited with code {proc.returncode}:\n{log_tail(logs / 'chromium.log')}")
        lines = port_file.read_text().split() if port_file.exists() else []
        if len(lines) >= 2:  # port, then the browser's path: the file is complete
            return proc, f"http://127.0.0.1:{lines[0]}"
        time.sleep(0.2)
    stop_process(proc, "Chromium")
    raise RuntimeError(f"Chromium did not open its DevTools port within {timeout:.0f} s:\n"
                       f"{log_tail(logs / 'chromium.log')}")


# --------------------------------------------------------------------------
# One notebook in the browser
# --------------------------------------------------------------------------
def open_notebook(page, server: Server, name: str, timeout_ms: float) -> None:
    """Open notebook ``name`` in ``page`` and wait until its kernel is idle."""
    url = f"{server.base}/lab/tree/{urllib.parse.quote(name)}?reset&token={server.token}"
    page.goto(url, wait_until="domcontentloaded", timeout=timeout_ms)
    page.add_style_tag(content=HIDE_TOASTS_CSS)  # a news or update pop-up must not cover outputs
    wait_for(page, JS_NOTEBOOK_OPEN, name, timeout_ms, f"{name}: the notebook did not open")
    wait_kernel_idle(page, name, timeout_ms, "after opening")


def wait_for(page, js: str, arg, timeout_ms: float, message: str) -> None:
    """Wait until ``js(arg)`` is true in the page, or raise :class:`CheckFailed` with ``message``."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(js, arg=arg, timeout=timeout_ms, polling=250)
    except PlaywrightTimeout:
        raise CheckFailed(f"{message} within {timeout_ms / 1000:.0f} s{page_state(page)}") from None


def page_state(page) -> str:
    """What the page shows, for a failure message: the status bar and any dialog."""
    try:
        status = page.evaluate(JS_STATUS_TEXT)
        dialog = page.locator(".jp-Dialog")
        shown = dialog.first.inner_text(timeout=1000) if dialog.count() else ""
    except Exception as exc:  # the page may be gone; the state is only a hint
        return f" (page state unavailable: {exc})"
    return f" (status bar: {status!r}" + (f"; dialog: {shown!r})" if shown else ")")


def wait_kernel_idle(page, name: str, timeout_ms: float, when: str) -> None:
    """Wait until the status bar shows the kernel idle."""
    wait_for(page, JS_KERNEL_IDLE, name, timeout_ms, f"{name}: the kernel was not idle {when}")


def run_all(page, name: str, timeout_ms: float) -> None:
    """Clear the stored outputs, Run All, and wait until every cell has finished."""
    page.evaluate(JS_START_RUN_ALL, name)
    wait_for(page, JS_RUN_FINISHED, None, timeout_ms, f"{name}: Run All did not finish")
    result = page.evaluate(JS_RUN_RESULT)
    if "error" in result:
        raise CheckFailed(f"{name}: Run All failed in JupyterLab: {result['error']}")
    wait_kernel_idle(page, name, timeout_ms, "after Run All")


def cell_label(name: str, cells: list[dict], i: int) -> str:
    """``"01_x.ipynb cell 12/46 (bp = make_scene(...))"``: where a problem is."""
    lines = [ln.strip() for ln in cells[i]["source"].splitlines()]
    first = next((ln for ln in lines if ln), "")
    first = first if len(first) <= 60 else first[:57] + "..."
    return f"{name} cell {i + 1}/{len(cells)} ({first})"


def may_raise(cell: dict) -> bool:
    """Cells marked to raise on purpose (the cell tag nbval and JupyterLab both honour)."""
    return "raises-exception" in cell["tags"]


def cell_problems(name: str, cells: list[dict]) -> list[str]:
    """Error outputs, and non-empty code cells that did not run."""
    problems = []
    for i, cell in enumerate(cells):
        if cell["type"] != "code" or not cell["source"].strip():
            continue
        for out in cell["outputs"]:
            if out["type"] == "error" and not may_raise(cell):
                problems.append(f"{cell_label(name, cells, i)}: {out['ename']}: {out['evalue']}")
        if cell["count"] is None:
            problems.append(f"{cell_label(name, cells, i)}: did not run")
    return problems


def widget_problems(page, name: str, cells: list[dict], timeout_ms: float) -> tuple[list[str], int]:
    """Wait until every widget output has rendered; return the ones that are not live widgets, and the count."""
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        states = page.evaluate(JS_WIDGET_STATES, [name, WIDGET_MIME])
        if all(s["state"] != "loading" for s in states) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    problems = [f"{cell_label(name, cells, s['cell'])}: widget output {s['output'] + 1} is not a live widget "
                f"({s['state']}; shows {s['text'][:80]!r})" for s in states if s["state"] != "live"]
    return problems, len(states)


def expected_steppers(cells: list[dict]) -> int:
    """Outputs that display a Stepper by itself (its text form starts with ``Stepper(``)."""
    return sum(1 for c in cells for o in c["outputs"]
               if WIDGET_MIME in o["mimes"] and o["text"].startswith("Stepper("))


def stepper_problems(page, name: str, cells: list[dict], timeout_ms: float) -> tuple[list[str], int]:
    """Press Next (Prev at the last step) on every Stepper; its picture must change."""
    steppers = page.locator(f".jp-NotebookPanel {STEPPER}")
    count, expected = steppers.count(), expected_steppers(cells)
    problems = []
    if count < expected:
        problems.append(f"{name}: {expected} Stepper outputs but only {count} Stepper widgets on the page")
    for j in range(count):
        problem = press_and_compare(steppers.nth(j), timeout_ms)
        if problem:
            problems.append(f"{name}: Stepper {j + 1} of {count}: {problem}")
    return problems, count


def press_and_compare(stepper, timeout_ms: float) -> str | None:
    """Press Next (or Prev) on one Stepper and wait for its image to change; return a problem or None."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import expect

    image = stepper.locator("img").first
    try:
        expect(image).to_have_attribute("src", NON_EMPTY, timeout=timeout_ms)
    except AssertionError:
        return "its image never got a picture"
    before = image.get_attribute("src")
    button = stepper.locator("button", has_text="Next").first
    if button.is_disabled():
        button = stepper.locator("button", has_text="Prev").first
    label = button.inner_text().strip()
    try:
        button.click(timeout=timeout_ms)
    except PlaywrightTimeout:
        return f"could not press {label}"
    try:
        expect(image).not_to_have_attribute("src", before, timeout=timeout_ms)
    except AssertionError:
        return f"pressing {label} did not change the picture within {timeout_ms / 1000:.0f} s"
    return None


# --------------------------------------------------------------------------
# Explorers: real mouse events on the canvas
# --------------------------------------------------------------------------
JS_DATASET = "el => Object.assign({}, el.dataset)"
JS_CANVAS_URL = "el => el.querySelector('canvas').toDataURL()"
JS_ARRAYS_HTML = "el => el.querySelector('.lx-arrays').innerHTML"
JS_VERSION_MOVED = "([el, v]) => el.dataset.version !== v"


def expected_explorers(cells: list[dict]) -> int:
    """Outputs that display an Explorer (its text form starts with ``Explorer(``)."""
    return sum(1 for c in cells for o in c["outputs"]
               if WIDGET_MIME in o["mimes"] and o["text"].startswith("Explorer("))


def explorer_problems(page, name: str, cells: list[dict], shots: Path, timeout_ms: float) -> tuple[list[str], int]:
    """Drive every Explorer on the page with the mouse (:func:`drive_explorer`); return problems and the count."""
    explorers = page.locator(f".jp-NotebookPanel {EXPLORER}")
    count, expected = explorers.count(), expected_explorers(cells)
    problems = []
    if count < expected:
        problems.append(f"{name}: {expected} Explorer outputs but only {count} Explorer widgets on the page")
    quadtrees = cleaned = cleaned_at_start = False
    for j in range(count):
        try:
            for line in drive_explorer(page, explorers.nth(j), shots / f"{Path(name).stem}-explorer{j + 1}",
                                       timeout_ms):
                print(f"     {name} Explorer {j + 1}: {line}", flush=True)
                quadtrees = quadtrees or "Cleanup" in line
                cleaned = cleaned or "Cleanup:" in line
                cleaned_at_start = cleaned_at_start or ("cleanup button at the start" in line and "fewer" in line)
        except CheckFailed as exc:
            problems.append(f"{name}: Explorer {j + 1} of {count}: {exc}")
            cleaned = cleaned_at_start = True  # already a problem
    if quadtrees and not cleaned:
        problems.append(f"{name}: no Quadtree Explorer had room for the Cleanup check")
    if name == EXPLORER_NOTEBOOK.name and count and not cleaned_at_start:
        problems.append(f"{name}: no Explorer's starting state gave the cleanup button something to do "
                        "(the demo needs a scene with boxes removed)")
    return problems, count


class _Mouse:
    """World <-> page coordinates of one Explorer's canvas, and gestures that wait for the redraw."""

    def __init__(self, page, explorer, timeout_ms: float):
        self.page, self.ex, self.timeout_ms = page, explorer, timeout_ms
        self.canvas = explorer.locator("canvas").first
        self.canvas.scroll_into_view_if_needed(timeout=timeout_ms)
        self.handle = explorer.element_handle()
        self.box = self.canvas.bounding_box()  # read again before every gesture (see _after)
        self.view = [float(v) for v in self.state()["view"].split(",")]
        v = self.view
        width, height = (v[2] - v[0]) / 1.06, (v[3] - v[1]) / 1.06  # explorer.js pads the world by 3%
        self.world = [v[0] + 0.03 * width, v[1] + 0.03 * height, v[2] - 0.03 * width, v[3] - 0.03 * height]

    def state(self) -> dict:
        return self.ex.evaluate(JS_DATASET)

    def px(self, x: float, y: float) -> tuple[float, float]:
        """Page pixel of world point ``(x, y)`` (y upwards in the world)."""
        v, b = self.view, self.box
        return (b["x"] + (x - v[0]) / (v[2] - v[0]) * b["width"],
                b["y"] + (v[3] - y) / (v[3] - v[1]) * b["height"])

    def at(self, fx: float, fy: float) -> tuple[float, float]:
        """World point at fractions ``(fx, fy)`` of the world's width and height."""
        w = self.world
        return w[0] + fx * (w[2] - w[0]), w[1] + fy * (w[3] - w[1])

    def _after(self, act) -> dict:
        # Where the canvas is now: a screenshot or a button press may have scrolled the notebook since
        # the last gesture (an Explorer taller than the space below it), and a stale position sends
        # the mouse to the widget's bar instead of the canvas.
        self.box = self.canvas.bounding_box()
        if self.box["y"] < 0 or self.box["y"] + self.box["height"] > self.page.viewport_size["height"]:
            self.canvas.scroll_into_view_if_needed(timeout=self.timeout_ms)
            self.box = self.canvas.bounding_box()
        before = self.state()["version"]
        act()
        from playwright.sync_api import TimeoutError as PlaywrightTimeout
        try:
            self.page.wait_for_function(JS_VERSION_MOVED, arg=[self.handle, before], timeout=self.timeout_ms,
                                        polling="raf")
        except PlaywrightTimeout:
            raise CheckFailed(f"no redraw within {self.timeout_ms / 1000:.0f} s after a gesture") from None
        return self.state()

    def click(self, x: float, y: float) -> dict:
        return self._after(lambda: self.page.mouse.click(*self.px(x, y)))

    def drag(self, a: tuple[float, float], b: tuple[float, float], *, shift: bool = False) -> dict:
        def act():
            mouse = self.page.mouse
            if shift:
                self.page.keyboard.down("Shift")
            mouse.move(*self.px(*a))
            mouse.down()
            for k in (1, 2, 3):
                pa, pb = self.px(*a), self.px(*b)
                mouse.move(pa[0] + (pb[0] - pa[0]) * k / 3, pa[1] + (pb[1] - pa[1]) * k / 3)
            mouse.up()
            if shift:
                self.page.keyboard.up("Shift")
        return self._after(act)

    def press(self, button: str) -> dict:
        return self._after(lambda: self.ex.locator(f"button.lx-{button}").click(timeout=self.timeout_ms))


def find_empty(m: _Mouse, half: float) -> tuple[float, float] | None:
    """A world point with no box within ``half`` of the world's size, found by shift-drag queries; or None."""
    for fy in (0.1, 0.3, 0.5, 0.7, 0.9, 0.2, 0.4, 0.6, 0.8):
        for fx in (0.1, 0.3, 0.5, 0.7, 0.9, 0.2, 0.4, 0.6, 0.8):
            s = m.drag(m.at(fx - half, fy - half), m.at(fx + half, fy + half), shift=True)
            if s["hits"] == "" and s["bruteHits"] == "":
                return m.at(fx, fy)
    return None


def drive_explorer(page, explorer, shot_stem: Path, timeout_ms: float) -> list[str]:
    """Real mouse events on one Explorer; raise :class:`CheckFailed` at the first wrong answer.

    Screenshots of the widget go to ``<shot_stem>-<step>.png``. Returns lines to print
    (what was checked, and the click-to-redraw times at :data:`LATENCY_BOXES` boxes or more).
    """
    m = _Mouse(page, explorer, timeout_ms)
    start = m.state()
    n0 = int(start["boxes"])
    has_arrays = explorer.locator(".lx-arrays table").count() > 0
    notes = []

    def shot(step: str) -> None:
        explorer.screenshot(path=f"{shot_stem}-{step}.png", timeout=60_000)

    # 0. the cleanup button on the starting state says what it changed (the status line, data-message):
    #    "a -> b nodes (k fewer)" with the counts shown, and a new picture; or "nothing to clean up"
    shot("start")
    picture = explorer.evaluate(JS_CANVAS_URL)
    s = m.press("cleanup")
    said, before, after = s.get("message", ""), int(start["regions"]), int(s["regions"])
    if s.get("error") or not said.startswith("cleanup: "):
        raise CheckFailed(f"the cleanup button's status line says {said!r} (error {s.get('error')!r})")
    if after != before:
        if f"{before} -> {after} " not in said or explorer.evaluate(JS_CANVAS_URL) == picture:
            raise CheckFailed(f"cleanup changed {before} regions to {after} but its status line says {said!r} "
                              "(or the picture did not change)")
        shot("cleanup-start")
        s = m.press("reset")
        if (s["boxes"], s["regions"], s["pairs"]) != (start["boxes"], start["regions"], start["pairs"]):
            raise CheckFailed(f"Reset after the cleanup gave {s['boxes']} boxes, {s['regions']} regions; "
                              f"the start had {start['boxes']}, {start['regions']}")
    elif "nothing to clean up" not in said and "rewritten" not in said and "memory" not in said:
        raise CheckFailed(f"cleanup changed no count but its status line says {said!r}")
    notes.append(f"cleanup button at the start: {said}")

    # 1. a click outside the world (in the margin around it) is refused and changes nothing
    picture = explorer.evaluate(JS_CANVAS_URL)
    w = m.world
    s = m.click(w[0] - 0.015 * (w[2] - w[0]), 0.5 * (w[1] + w[3]))
    if not s.get("error") or "outside the world" not in s["error"]:
        raise CheckFailed(f"a click outside the world was not refused (error text {s.get('error')!r})")
    if (s["boxes"], s["regions"], s["pairs"]) != (start["boxes"], start["regions"], start["pairs"]) \
            or explorer.evaluate(JS_CANVAS_URL) != picture:
        raise CheckFailed("a refused click changed the structure or the picture")
    shot("refused")

    # 2. find empty space with small shift-drag queries, then click there: one more box, a new picture
    spot = find_empty(m, 0.012)
    if spot is None:
        raise CheckFailed("found no empty spot to click on")
    picture = explorer.evaluate(JS_CANVAS_URL)
    arrays_html = explorer.evaluate(JS_ARRAYS_HTML)
    s = m.click(*spot)
    if int(s["boxes"]) != n0 + 1 or s.get("error"):
        raise CheckFailed(f"a click on empty space gave {s['boxes']} boxes (expected {n0 + 1}), error {s.get('error')!r}")
    if explorer.evaluate(JS_CANVAS_URL) == picture:
        raise CheckFailed("a click that added a box did not change the picture")
    if has_arrays and (int(s.get("changed", "0")) == 0 or explorer.evaluate(JS_ARRAYS_HTML) == arrays_html):
        raise CheckFailed("the array view did not change after an insert")
    if n0 >= CROWDED_BOXES and s.get("veiled") != "1":
        raise CheckFailed(f"at {n0} boxes the box just added is not drawn over a veil (data-veiled "
                          f"{s.get('veiled')!r})")
    shot("insert")
    notes.append(f"click added box {n0} ({s['boxes']} boxes, {s['regions']} regions"
                 + (f", {s['changed']} array entries marked changed" if has_arrays else "")
                 + (", the rest veiled)" if s.get("veiled") == "1" else ")"))

    # 3. a query drag over the middle of the world: the highlighted hits equal the browser's brute force
    s = m.drag(m.at(0.3, 0.3), m.at(0.7, 0.7), shift=True)
    if s.get("error") or s["hits"] != s["bruteHits"] or not s["hits"]:
        raise CheckFailed(f"query hits {s['hits']!r} differ from brute force {s['bruteHits']!r} "
                          f"(or none; error {s.get('error')!r})")
    shot("query")
    notes.append(f"query window hit {len(s['hits'].split(','))} boxes, equal to the browser's brute force")

    # 4. a quadtree: undo the click's box, crowd overlapping boxes on the empty spot (the leaves there
    #    split down to the deepest level), undo them, then Cleanup shrinks the node count
    #    (it collapses branches whose four children are empty leaves)
    roomy = None
    if s.get("structure") == "Quadtree":
        s = m.press("undo")  # the click's box
        roomy = find_empty(m, 0.015)
    if roomy:
        regions0 = int(s["regions"])
        unit = (m.view[2] - m.view[0]) / m.box["width"]  # world units per pixel
        for added in range(1, 17):  # more than a leaf's capacity, all within the empty spot
            a = (roomy[0] + unit * (0.2 * added - 3), roomy[1] + unit * (0.2 * added - 3))
            s = m.drag(a, (a[0] + 5 * unit, a[1] + 5 * unit))  # 5 pixels: a drag, not a click
        if int(s["regions"]) <= regions0:
            raise CheckFailed(f"{added} boxes crowded in one place did not split the quadtree")
        for _ in range(added):
            s = m.press("undo")
        grown = int(s["regions"])
        s = m.press("cleanup")
        if int(s["regions"]) >= grown or s.get("error"):
            raise CheckFailed(f"Cleanup after undoing {added} inserts left {s['regions']} nodes (had {grown})")
        shot("cleanup")
        notes.append(f"{added} crowded inserts undone, then Cleanup: {grown} -> {s['regions']} nodes")
    elif s.get("structure") == "Quadtree":
        notes.append("no empty spot roomy enough for the Cleanup check")

    # 5. click-to-redraw time with many boxes: click on and off the empty spot (add, remove, ...)
    if n0 >= LATENCY_BOXES:
        outside = []
        for _ in range(LATENCY_CLICKS):
            t = time.perf_counter()
            s = m.click(*spot)
            outside.append(1000 * (time.perf_counter() - t))
        inside = [float(v) for v in s["latencies"].split(",")][-LATENCY_CLICKS:]
        notes.append(f"click-to-redraw at {n0} boxes over {LATENCY_CLICKS} clicks: median "
                     f"{sorted(inside)[len(inside) // 2]:.1f} ms in the page (mouse-up to canvas drawn), "
                     f"{sorted(outside)[len(outside) // 2]:.1f} ms seen by the test (click to new version)")

    # 6. Reset restores the starting boxes
    s = m.press("reset")
    if (s["boxes"], s["regions"], s["pairs"]) != (start["boxes"], start["regions"], start["pairs"]):
        raise CheckFailed(f"Reset gave {s['boxes']} boxes, {s['regions']} regions, {s['pairs']} pairs; "
                          f"the start had {start['boxes']}, {start['regions']}, {start['pairs']}")
    return notes


def save_screenshots(page, name: str, folder: Path) -> Path:
    """Screenshots of the whole notebook: ``NAME.png``, then ``NAME-part2.png``... when it is long.

    The window is stretched to show as much of the notebook as fits in
    ``SCREENSHOT_HEIGHT`` pixels, then the notebook is scrolled one window at
    a time (the last window is shrunk to what is left). Returns the first file.
    """
    stem = Path(name).stem
    for old in folder.glob(f"{stem}-part*.png"):
        old.unlink()
    page.evaluate(JS_CLOSE_SIDEBAR)
    m = page.evaluate(JS_NOTEBOOK_METRICS, name)
    m = stretch_window(page, name, min(m["content"] + m["chrome"], SCREENSHOT_HEIGHT))
    step = max(m["visible"], 1)
    parts = max(1, math.ceil(m["content"] / step))
    for k in range(parts):
        if k and k == parts - 1:
            stretch_window(page, name, m["content"] - k * step + m["chrome"])
        page.evaluate(JS_SCROLL_TO, [name, k * step])
        page.wait_for_timeout(300)
        page.screenshot(path=str(folder / (f"{stem}.png" if k == 0 else f"{stem}-part{k + 1}.png")),
                        timeout=60_000)
    return folder / f"{stem}.png"


def stretch_window(page, name: str, height: int) -> dict:
    """Set the window's height (width unchanged); return the notebook's metrics after the new layout."""
    page.set_viewport_size({"width": VIEWPORT["width"], "height": max(int(height), 200)})
    page.wait_for_timeout(500)  # let JupyterLab lay out the new window
    return page.evaluate(JS_NOTEBOOK_METRICS, name)


def check_notebook(browser, server: Server, name: str, opts: Options) -> list[str]:
    """Open, run and check one notebook in a fresh browser context; return its problems (none: it passed)."""
    start = time.monotonic()
    delete_sessions(server)
    context = browser.new_context(viewport=VIEWPORT)
    page_errors: list[str] = []  # uncaught exceptions in the page (a widget's own code, for one)
    try:
        context.add_init_script(INIT_SCRIPT)
        page = context.new_page()
        page.on("pageerror", lambda exc: page_errors.append(str(exc).splitlines()[0] if str(exc) else repr(exc)))
        problems, summary = run_checks(page, server, name, opts.timeout * 1000, opts.screenshots)
        shot = screenshot_or_none(page, name, opts.screenshots)  # also after a failure: it shows why
    finally:
        close_quietly(context)
        delete_sessions(server)
    verdict = "FAIL" if problems else "ok"
    print(f"{verdict:4} {name}: {summary}; {time.monotonic() - start:.0f} s; screenshot {shot}", flush=True)
    for text in dict.fromkeys(page_errors):  # printed, not failed: JupyterLab's own may appear too
        print(f"     {name}: uncaught error in the page: {text[:300]}", flush=True)
    return problems


def run_checks(page, server: Server, name: str, limit_ms: float, shots: Path) -> tuple[list[str], str]:
    """Open the notebook, Run All, check cells, widgets and Steppers; return problems and a summary."""
    from playwright.sync_api import Error as PlaywrightError

    try:
        open_notebook(page, server, name, limit_ms)
        run_all(page, name, limit_ms)
        cells = page.evaluate(JS_CELLS, name)
        widget_issues, n_widgets = widget_problems(page, name, cells, 60_000)
        stepper_issues, n_steppers = stepper_problems(page, name, cells, 60_000)
        explorer_issues, n_explorers = explorer_problems(page, name, cells, shots, 60_000)
    except CheckFailed as exc:
        return [str(exc)], "stopped"
    except PlaywrightError as exc:  # e.g. the page crashed: report it, go on with the next notebook
        return [f"{name}: {type(exc).__name__} from the browser: {exc}"], "stopped"
    summary = f"{len(cells)} cells, {n_widgets} widget outputs, {n_steppers} Steppers, {n_explorers} Explorers"
    return cell_problems(name, cells) + widget_issues + stepper_issues + explorer_issues, summary


def close_quietly(context) -> None:
    """Close a browser context; a browser that is already gone is not a new problem."""
    try:
        context.close()
    except Exception as exc:
        print(f"     (closing the browser context failed: {exc})")


def screenshot_or_none(page, name: str, folder: Path):
    """A screenshot if the page is there (also after a failure, to show what went wrong)."""
    if page is None:
        return None
    try:
        return save_screenshots(page, name, folder)
    except Exception as exc:  # a missing screenshot must not hide the real result
        print(f"     {name}: no screenshot: {exc}")
        return None


# --------------------------------------------------------------------------
# The whole run
# --------------------------------------------------------------------------
def run(opts: Options, names: list[str], tmp: Path) -> list[str]:
    """Start JupyterLab and Chromium, check every notebook, stop both; return all problems."""
    from playwright.sync_api import sync_playwright

    logs = ROOT / "build" / "browser-test"
    logs.mkdir(parents=True, exist_ok=True)
    opts.screenshots.mkdir(parents=True, exist_ok=True)
    root_dir = prepare_workspace(tmp, opts.notebooks, opts.break_widgets)
    server = chromium = None
    problems: list[str] = []
    try:
        server = start_server(tmp, root_dir, logs)
        chromium, cdp_url = start_chromium(opts.chromium, tmp / "profile", logs)
        print(f"JupyterLab pid {server.proc.pid} at {server.base}, Chromium pid {chromium.pid}; logs in {logs}")
        with sync_playwright() as pw:
            browser = pw.chromium.connect_over_cdp(cdp_url, timeout=60_000)
            for name in names:
                problems += check_notebook(browser, server, name, opts)
            browser.close()
    finally:
        stop_process(chromium, "Chromium")
        stop_process(server.proc if server else None, "JupyterLab")
    return problems


def main(argv: list[str] | None = None) -> int:
    """Check the notebooks; print one line per notebook and every problem; return the exit status."""
    opts = parse_args(argv)
    if not os.access(opts.chromium, os.X_OK):
        print(f"ERROR: no Chromium at {opts.chromium} (make browser-test installs Debian's chromium package)")
        return 2
    names = select_notebooks(opts.notebooks, opts.only)
    if not names:
        print(f"ERROR: no notebooks in {opts.notebooks}")
        return 2
    mode = " with the widget extension DISABLED (this run must fail)" if opts.break_widgets else ""
    print(f"Browser test of {len(names)} notebooks from {opts.notebooks}{mode}", flush=True)
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="browser-test-", ignore_cleanup_errors=True) as tmp:
        problems = run(opts, names, Path(tmp))
    elapsed = time.monotonic() - start
    if problems:
        print(f"\nFAILED: {len(problems)} problems in {elapsed:.0f} s:")
        print("\n".join(f"  - {p}" for p in problems))
        return 1
    print(f"\nPASSED: {len(names)} notebooks in {elapsed:.0f} s; screenshots in {opts.screenshots}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

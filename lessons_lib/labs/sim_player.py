"""``SimulationPlayer``: live playback of a :class:`~lessons_lib.labs.sim.Simulation` in JupyterLab.

::

    from lessons_lib.labs.sim_player import SimulationPlayer

    player = SimulationPlayer(5000, structure="uniform_grid")
    player            # Play/Pause, Step, agents, structure, regions; frame, fps, pairs, memory

How it works
------------
Each frame is one :meth:`Simulation.step` and one :meth:`Simulation.render`
into a reused RGB array, encoded as a PNG (Pillow, which matplotlib depends on; fastest compression) and
sent to an ``ipywidgets.Image``: no matplotlib in the loop. While playing, a
background thread runs frames (at most ``max_fps`` per second, so the browser
is not flooded) until Pause; this is the threading pattern of ipywidgets'
"Asynchronous widgets" documentation, and it keeps the kernel free for other
cells. A lock serialises frames with the buttons and choosers.

The *measured fps* is the rate of whole displayed frames (step + draw +
encode) over the last 20 frames; the *step* time is the simulation alone.

ipywidgets and Pillow are imported only when the widget is built, so the
class can be created (and stepped with :meth:`step`) without a display; the
tests do exactly that.

Without a kernel (a saved notebook on the web, a PDF) the widget cannot play;
its output then shows :meth:`SimulationPlayer.still`: the current frame as a
labelled figure, with axes in world units, a title and a legend.
"""
from __future__ import annotations

import collections
import io
import threading
import time
from types import SimpleNamespace

import numpy as np

from ..base import STRUCTURES, resolve_structure
from .sim import Simulation

__all__ = ["SimulationPlayer", "DEFAULT_STRUCTURES", "png_bytes"]

#: Structures offered by the chooser when they are registered (fast incremental updates first).
DEFAULT_STRUCTURES = ("uniform_grid", "point_grid", "loose_tight_grid", "quadtree", "loose_quadtree", "spatial_hash",
                      "hierarchical_grid", "sweep_and_prune", "brute_force")
#: Agent counts offered by the chooser.
DEFAULT_COUNTS = (200, 1000, 5000, 20_000, 100_000)


def png_bytes(img: np.ndarray) -> bytes:
    """Encode an ``(h, w, 3)`` uint8 image as PNG (Pillow, compression level 1: fast)."""
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(img).save(buf, format="PNG", compress_level=1)
    return buf.getvalue()


class SimulationPlayer:
    """Play a simulation live: Play/Pause, Step, agent count, structure, region overlay, stats.

    Parameters
    ----------
    n : int
        Agents at start (the chooser offers ``counts`` plus this).
    structure : str
        Structure at start; the chooser offers ``structures`` that are registered.
    seed : int
        Seed of every simulation the player makes (changing ``n`` restarts from it).
    width : int
        Picture width in pixels.
    regions : bool
        Overlay the structure's cells or nodes (only drawn up to 5,000 regions).
    max_fps : float
        Upper bound on frames per second while playing (> 0).
    structures, counts : sequence, optional
        Choices of the two choosers.
    **sim_options
        Passed to :class:`~lessons_lib.labs.sim.Simulation` (``radius``, ``speed``, ``fill``, ...).

    Raises
    ------
    ValueError
        Bad parameters (as :class:`Simulation`), ``max_fps <= 0``, or a
        structure that is not registered.
    """

    def __init__(self, n=2000, *, structure="uniform_grid", seed=0, width=480, regions=False, max_fps=30.0,
                 structures=None, counts=None, **sim_options):
        resolve_structure(structure)
        if not max_fps > 0:
            raise ValueError(f"max_fps must be > 0, got {max_fps!r}")
        wanted = DEFAULT_STRUCTURES if structures is None else tuple(structures)
        self.structures = tuple(dict.fromkeys([structure] + [s for s in wanted if s in STRUCTURES]))
        self.counts = tuple(sorted(set(DEFAULT_COUNTS if counts is None else counts) | {int(n)}))
        self.seed, self.width, self.regions, self.max_fps = seed, int(width), bool(regions), float(max_fps)
        self.sim_options = dict(sim_options)
        self.sim = Simulation(n, structure=structure, seed=seed, **self.sim_options)
        self._img = np.empty((*self.sim.image_shape(self.width), 3), dtype=np.uint8)
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._ticks: collections.deque = collections.deque(maxlen=20)
        self._ui: SimpleNamespace | None = None
        self.last_error: BaseException | None = None

    # -- state ------------------------------------------------------------
    @property
    def playing(self) -> bool:
        """True while the background thread runs frames."""
        return self._thread is not None and self._thread.is_alive()

    @property
    def fps(self) -> float:
        """Displayed frames per second over the last (up to) 20 frames; 0 before two frames."""
        if len(self._ticks) < 2 or self._ticks[-1] == self._ticks[0]:
            return 0.0
        return (len(self._ticks) - 1) / (self._ticks[-1] - self._ticks[0])

    def status(self) -> str:
        """The stats line under the picture."""
        sim = self.sim
        h = sim.history(last=1)
        step = f"{h['step_ms'][0]:.1f} ms" if len(h["step_ms"]) else "-"
        return (f"frame {sim.frame} | {sim.n:,} agents | {sim.cls.name} | {self.fps:.1f} fps measured "
                f"(step {step}) | {len(sim.candidates()):,} candidate pairs, {len(sim.contacts()):,} contacts | "
                f"memory_bytes() {sim.bp.memory_bytes() / 1e6:.2f} MB")

    # -- frames -----------------------------------------------------------
    def render(self) -> np.ndarray:
        """The current picture, ``(h, width, 3)`` uint8 (the array is reused between frames)."""
        return self.sim.render(self.width, regions=self.regions, out=self._img)

    def step(self, frames: int = 1) -> None:
        """Run ``frames`` frames now (in the caller's thread) and refresh the widget if built."""
        for _ in range(max(1, int(frames))):
            with self._lock:
                self.sim.step()
                self._ticks.append(time.perf_counter())
        self._refresh()

    def play(self) -> None:
        """Start the background thread (no-op if already playing)."""
        if self.playing:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name="SimulationPlayer", daemon=True)
        self._thread.start()
        self._sync_button()

    def pause(self, timeout: float = 5.0) -> None:
        """Stop the background thread and wait for its current frame to finish."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
        self._thread = None
        self._sync_button()

    def _loop(self) -> None:
        period = 1.0 / self.max_fps
        try:
            while not self._stop.is_set():
                t0 = time.perf_counter()
                self.step()
                rest = period - (time.perf_counter() - t0)
                if rest > 0:
                    self._stop.wait(rest)
        except BaseException as exc:  # shown in the status line; never kill the kernel
            self.last_error = exc
            if self._ui is not None:
                self._ui.status.value = f"stopped: {type(exc).__name__}: {exc}"
        finally:
            self._stop.set()

    def restart(self, n: int | None = None, structure: str | None = None) -> None:
        """A fresh simulation from the seed (new ``n`` and/or structure); keeps playing if it was."""
        with self._lock:
            n = self.sim.n if n is None else n
            structure = self.sim.cls.name if structure is None else structure
            self.sim = Simulation(n, structure=structure, seed=self.seed, **self.sim_options)
            self._img = np.empty((*self.sim.image_shape(self.width), 3), dtype=np.uint8)
            self._ticks.clear()
        self._refresh()

    def set_structure(self, structure: str) -> None:
        """Swap the structure, keeping the agents where they are."""
        with self._lock:
            self.sim.set_structure(structure)
            self._ticks.clear()
        self._refresh()

    def still(self, *, figsize=(6.4, 6.0)) -> bytes:
        """The current frame as a labelled figure (PNG bytes): what a notebook without a kernel shows.

        Axes in world units, a title saying what the picture is (agents, structure, frame),
        and the last frame's pairs, and a legend for the two agent colours.
        """
        import matplotlib.pyplot as plt

        from .sim import draw

        with self._lock:
            fig, ax = plt.subplots(figsize=figsize)
            draw(ax, self.sim, width=self.width, regions=self.regions,
                 title=f"SimulationPlayer: {self.sim.n:,} agents, {self.sim.cls.name}, frame {self.sim.frame}\n"
                       f"{len(self.sim.candidates()):,} candidate pairs, {len(self.sim.contacts()):,} contacts "
                       "(a still: run the cell to play)")
            buf = io.BytesIO()
            fig.savefig(buf, format="png")
            plt.close(fig)
        return buf.getvalue()

    # -- the widget -------------------------------------------------------
    def widget(self):
        """The ipywidgets view (built once): controls, the picture and a stats line."""
        if self._ui is None:
            self._ui = self._build_ui()
        self._refresh()
        return self._ui.box

    @property
    def controls(self) -> SimpleNamespace | None:
        """The widget's parts (``play, step, agents, structure, regions, image, status, box``); None before :meth:`widget`."""
        return self._ui

    def _build_ui(self) -> SimpleNamespace:
        import ipywidgets as w

        play = w.ToggleButton(value=False, description="Play", icon="play", tooltip="play / pause",
                              layout=w.Layout(width="auto"))
        step = w.Button(description="Step", icon="step-forward", tooltip="one frame", layout=w.Layout(width="auto"))
        agents = w.Dropdown(options=[(f"{c:,} agents", c) for c in self.counts], value=self.sim.n,
                            description="agents", layout=w.Layout(width="200px"))
        structure = w.Dropdown(options=list(self.structures), value=self.sim.cls.name, description="structure",
                               layout=w.Layout(width="260px"))
        regions = w.Checkbox(value=self.regions, description="cells / nodes", indent=False,
                             layout=w.Layout(width="auto"))
        image = w.Image(value=png_bytes(self.render()), format="png")
        status = w.Label(value=self.status())
        play.observe(lambda ch: self.play() if ch["new"] else self.pause(), names="value")
        step.on_click(lambda _b: self.step())
        agents.observe(lambda ch: self.restart(n=ch["new"]), names="value")
        structure.observe(lambda ch: self.set_structure(ch["new"]), names="value")
        regions.observe(lambda ch: self._set_regions(ch["new"]), names="value")
        box = w.VBox([w.HBox([play, step, agents, structure, regions]), status, image])
        box.add_class("lessons-sim-player")
        return SimpleNamespace(box=box, play=play, step=step, agents=agents, structure=structure,
                               regions=regions, image=image, status=status)

    def _set_regions(self, on: bool) -> None:
        self.regions = bool(on)
        self._refresh()

    def _sync_button(self) -> None:
        if self._ui is not None:
            playing = self.playing
            if self._ui.play.value != playing:
                self._ui.play.value = playing
            self._ui.play.description = "Pause" if playing else "Play"
            self._ui.play.icon = "pause" if playing else "play"

    def _refresh(self) -> None:
        if self._ui is None:
            return
        with self._lock:
            png = png_bytes(self.render())
            text = self.status()
        self._ui.image.value = png
        self._ui.status.value = text

    def _ipython_display_(self) -> None:
        """Display the widget, with a text and a PNG fallback for static viewers."""
        from IPython.display import display

        box = self.widget()
        display({"text/plain": repr(self), "image/png": self.still(),
                 "application/vnd.jupyter.widget-view+json": {"version_major": 2, "version_minor": 0,
                                                              "model_id": box.model_id}}, raw=True)

    def __repr__(self) -> str:
        return f"SimulationPlayer({self.sim!r}, width={self.width})"

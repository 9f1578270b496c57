"""Lesson 13's agent simulation: circles that move, find each other and bounce.

A frame of a game or a crowd simulation is the broad phase at work::

    from lessons_lib.labs.sim import Simulation

    sim = Simulation(20_000, structure="uniform_grid", seed=0)
    sim.run(100)                   # 100 frames
    sim.history()["step_ms"]       # time of each frame, milliseconds
    img = sim.render(width=640)    # (h, w, 3) uint8 picture of the agents

Data layout
-----------
Agents are circles stored as flat arrays (one row per agent, agent ``i`` is
element id ``i`` of the broad phase):

============  ==============  ==========================================
array         shape, dtype    meaning
============  ==============  ==========================================
``pos``       (n, 2) float64  centre ``x, y`` in world units
``vel``       (n, 2) float64  velocity in world units per frame
``radius``    (n,) float64    radius in world units
``mass``      (n,) float64    ``radius ** 2`` (a disc's area, up to pi)
``boxes``     (n, 4) float64  each circle's AABB, rewritten every frame
``touching``  (n,) uint8      1 if the agent touched another this frame
============  ==============  ==========================================

One frame, in five phases (each timed)
--------------------------------------
1. **move**: ``pos += vel``; an agent crossing a wall is reflected back inside
   and its velocity component flips; its AABB is written to ``boxes``.
2. **update**: the broad phase learns the new boxes: ``update_many`` (the
   incremental path; plus ``cleanup()``), or, with ``mode="rebuild"``, a new
   structure from ``from_boxes``. The lecture on spatial structures [gamedev-lecture] asks which of the two is better; lesson 13
   answers with measurements.
3. **pairs**: ``pairs()`` gives the candidate pairs, whose boxes touch.
4. **narrow**: the exact closed circle test ``|c_a - c_b| <= r_a + r_b`` on
   each candidate; touching counts, as everywhere in the library.
5. **respond**: each true contact whose agents approach gets an elastic
   impulse along the line of centres (kinetic energy is conserved), and
   overlapping agents are pushed apart by their overlap (weighted by mass),
   then kept inside the world.

Contacts are handled in the canonical order of ``pairs()`` (sorted rows), so
the whole run is deterministic for a seed and *identical for every
structure*: the structure changes the time, never the result.

Resting bodies and giants
-------------------------
``Simulation(n, moving=0.05, giants=10)`` is a physics engine's usual scene
rather than a crowd's: only a fixed random 5 % of the agents start with a
velocity, the others start at rest (velocity 0), and 10 of the resting ones
are giants, discs 50 to 100 units in radius (25 to 100 times an agent's
radius, 625 to 10,000 times its area). A resting agent is a
*sleeping* body, not a static one: it has a mass like any other (``radius **
2``, so a giant weighs thousands of agents), a moving agent that hits it
gives it an impulse and pushes it out of an overlap exactly as it would a
moving one, and from then on it keeps the velocity it got. Until something
touches it, it does not move at all, and its box stays the same bit for bit,
frame after frame. (A static body, with infinite mass, would keep the scene's
mix of moving and resting forever; engines such as Box2D put resting bodies
to sleep and wake them on contact, and the measured runs are short enough
that the mix changes little.) ``moving`` and ``giants`` mean what they mean
in :func:`lessons_lib.labs.aabb_tree.agent_frames`.

The hot loops (move, narrow, respond, rasterise) are small :func:`njit`
kernels writing into arrays allocated once; the per-frame Python work is a
handful of calls. (Growing or re-assigning numpy arrays inside a numba loop
costs tens of nanoseconds of reference counting per call, a lesson learned
elsewhere in this library; none of these kernels allocates.)

References
----------
The scene follows the quadtree answer set [SO-quadtree]:
its author's demos run 20,000 to 500,000 agents that bounce off each other,
each on one thread. Elastic collision of discs: any mechanics text, e.g. Millington,
*Game Physics Engine Development* (2nd ed., 2010), ch. 7.
"""
from __future__ import annotations

import math
import time
from dataclasses import astuple, dataclass, fields

import numpy as np

from .. import style, viz
from ..base import resolve_structure
from ..structures.curves import hilbert_keys
from ..geometry import as_box
from ..core.jit import njit

__all__ = [
    "PHASES",
    "FrameStats",
    "Simulation",
    "bounce_contacts",
    "circle_contacts",
    "draw",
    "draw_rect_outlines",
    "kinetic_energy",
    "move_agents",
    "rasterise_agents",
]

#: Phases of a frame, in order; ``FrameStats`` has ``<phase>_ms`` for each.
PHASES = ("move", "update", "pairs", "narrow", "respond")
#: Simulation modes: keep the structure and move its elements, or build a new one each frame.
MODES = ("update", "rebuild")
#: How agents are numbered at the start: along a Hilbert curve, or in the random order they were drawn.
LAYOUTS = ("hilbert", "random")


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    return tuple(int(hex_colour[k:k + 2], 16) for k in (1, 3, 5))


AGENT_RGB = _rgb(style.BOX_COLOR)            # the course's colour of a stored box
CONTACT_RGB = _rgb(style.HIGHLIGHT_COLOR)    # ... and of a box in a pair: here, an agent touching another
BACKGROUND_RGB = (255, 255, 255)


# --------------------------------------------------------------------------
# Kernels: move, narrow phase, response
# --------------------------------------------------------------------------
@njit
def move_agents(pos, vel, radius, world, boxes):
    """Advance every agent one frame, bounce it off the walls, write its AABB.

    Parameters
    ----------
    pos, vel : numpy.ndarray, shape (n, 2), float64
        Centres and velocities (world units, per frame); updated in place.
    radius : numpy.ndarray, shape (n,), float64
    world : numpy.ndarray, shape (4,), float64
        ``[xmin, ymin, xmax, ymax]``; every centre is kept in
        ``[xmin + r, xmax - r] x [ymin + r, ymax - r]``.
    boxes : numpy.ndarray, shape (n, 4), float64
        Output: ``[x - r, y - r, x + r, y + r]`` per agent.

    Notes
    -----
    O(n), no allocation. A reflection flips the sign of one velocity component,
    so speeds (and kinetic energy) are unchanged by the walls.
    """
    for i in range(pos.shape[0]):
        r = radius[i]
        for d in range(2):
            lo = world[d] + r
            hi = world[d + 2] - r
            x = pos[i, d] + vel[i, d]
            if x < lo:
                x = 2.0 * lo - x
                vel[i, d] = abs(vel[i, d])
            elif x > hi:
                x = 2.0 * hi - x
                vel[i, d] = -abs(vel[i, d])
            pos[i, d] = min(max(x, lo), hi)  # a reflection longer than the world stops at the wall
        boxes[i, 0] = pos[i, 0] - r
        boxes[i, 1] = pos[i, 1] - r
        boxes[i, 2] = pos[i, 0] + r
        boxes[i, 3] = pos[i, 1] + r


@njit
def circle_contacts(pairs, pos, radius, out, touching):
    """Narrow phase: which candidate pairs are touching circles.

    Parameters
    ----------
    pairs : numpy.ndarray, shape (k, 2), int64
        Candidate pairs of agent indices (from the broad phase).
    pos : numpy.ndarray, shape (n, 2), float64
    radius : numpy.ndarray, shape (n,), float64
    out : numpy.ndarray, shape (>= k,), int64
        Output: the row numbers of ``pairs`` that touch, in order, in ``out[:m]``.
    touching : numpy.ndarray, shape (n,), uint8
        Output: reset to 0, then 1 for every agent in a contact.

    Returns
    -------
    int
        ``m``, the number of true contacts. Closed circles: touching counts
        (``distance == r_a + r_b``). Compares squared distances (no square root).
    """
    touching[:] = 0
    m = 0
    for t in range(pairs.shape[0]):
        a = pairs[t, 0]
        b = pairs[t, 1]
        dx = pos[b, 0] - pos[a, 0]
        dy = pos[b, 1] - pos[a, 1]
        rr = radius[a] + radius[b]
        if dx * dx + dy * dy <= rr * rr:
            out[m] = t
            m += 1
            touching[a] = 1
            touching[b] = 1
    return m


@njit
def bounce_contacts(pairs, rows, m, pos, vel, radius, mass, world, separate):
    """Collision response: elastic impulses, then push overlapping agents apart.

    Parameters
    ----------
    pairs : numpy.ndarray, shape (k, 2), int64
    rows : numpy.ndarray, int64
        ``rows[:m]`` are the row numbers of ``pairs`` in contact (from
        :func:`circle_contacts`), handled in this order.
    m : int
    pos, vel : numpy.ndarray, shape (n, 2), float64
        Updated in place.
    radius, mass : numpy.ndarray, shape (n,), float64
    world : numpy.ndarray, shape (4,), float64
    separate : bool
        Also move the two agents apart along the normal by their overlap,
        each by the other's share of the mass, then clamp them inside the world.

    Notes
    -----
    With ``n`` the unit vector from ``a`` to ``b`` and ``u = (v_b - v_a) . n``,
    an approaching pair (``u < 0``) gets ``v_a += 2 m_b / (m_a + m_b) u n`` and
    ``v_b -= 2 m_a / (m_a + m_b) u n``: the 1D elastic collision along ``n``,
    which conserves momentum and kinetic energy. Separating pairs are left
    alone (they are already moving apart). Coincident centres use
    ``n = (1, 0)``. O(m), no allocation.
    """
    for c in range(m):
        t = rows[c]
        a = pairs[t, 0]
        b = pairs[t, 1]
        dx = pos[b, 0] - pos[a, 0]
        dy = pos[b, 1] - pos[a, 1]
        dist = math.sqrt(dx * dx + dy * dy)
        if dist > 0.0:
            nx = dx / dist
            ny = dy / dist
        else:
            nx = 1.0
            ny = 0.0
        ma = mass[a]
        mb = mass[b]
        total = ma + mb
        u = (vel[b, 0] - vel[a, 0]) * nx + (vel[b, 1] - vel[a, 1]) * ny
        if u < 0.0:
            ja = 2.0 * mb / total * u
            jb = 2.0 * ma / total * u
            vel[a, 0] += ja * nx
            vel[a, 1] += ja * ny
            vel[b, 0] -= jb * nx
            vel[b, 1] -= jb * ny
        if separate:
            overlap = radius[a] + radius[b] - dist
            if overlap > 0.0:
                sa = overlap * mb / total
                sb = overlap * ma / total
                pos[a, 0] -= sa * nx
                pos[a, 1] -= sa * ny
                pos[b, 0] += sb * nx
                pos[b, 1] += sb * ny
                for i in (a, b):
                    r = radius[i]
                    for d in range(2):
                        pos[i, d] = min(max(pos[i, d], world[d] + r), world[d + 2] - r)


def kinetic_energy(vel, mass) -> float:
    """Total kinetic energy ``sum(m |v|^2) / 2`` (mass units x (world units / frame)^2)."""
    return float(0.5 * np.dot(mass, (vel * vel).sum(axis=1)))


# --------------------------------------------------------------------------
# Kernels: drawing into an RGB image
# --------------------------------------------------------------------------
@njit
def rasterise_agents(img, pos, radius, touching, world, agent_rgb, contact_rgb):
    """Paint every agent as a filled disc into ``img`` (in place).

    Parameters
    ----------
    img : numpy.ndarray, shape (h, w, 3), uint8
        Row 0 is the top of the world (``y = ymax``), column 0 its left side.
    pos : numpy.ndarray, shape (n, 2), float64
    radius : numpy.ndarray, shape (n,), float64
    touching : numpy.ndarray, shape (n,), uint8
        Agents with 1 are painted ``contact_rgb``, others ``agent_rgb``.
    world : numpy.ndarray, shape (4,), float64
        The box of the world mapped onto the whole image (the world itself, or a
        part of it to zoom in); agents outside it are skipped.
    agent_rgb, contact_rgb : numpy.ndarray, shape (3,), uint8

    Notes
    -----
    A pixel is painted when its centre lies in the disc (an ellipse if the
    image's aspect differs from the world's). An agent smaller than a pixel
    still paints the pixel holding its centre, so crowds stay visible.
    O(n + painted pixels).
    """
    h = img.shape[0]
    w = img.shape[1]
    sx = w / (world[2] - world[0])
    sy = h / (world[3] - world[1])
    for i in range(pos.shape[0]):
        cx = (pos[i, 0] - world[0]) * sx
        cy = (world[3] - pos[i, 1]) * sy
        rx = radius[i] * sx
        ry = radius[i] * sy
        c0 = max(0, int(math.floor(cx - rx)))
        c1 = min(w - 1, int(math.floor(cx + rx)))
        r0 = max(0, int(math.floor(cy - ry)))
        r1 = min(h - 1, int(math.floor(cy + ry)))
        if c0 > c1 or r0 > r1:  # entirely outside the picture
            continue
        painted = False
        for row in range(r0, r1 + 1):
            fy = (row + 0.5 - cy) / ry
            for col in range(c0, c1 + 1):
                fx = (col + 0.5 - cx) / rx
                if fx * fx + fy * fy <= 1.0:
                    for ch in range(3):
                        img[row, col, ch] = contact_rgb[ch] if touching[i] else agent_rgb[ch]
                    painted = True
        if not painted:
            row = min(max(int(cy), 0), h - 1)
            col = min(max(int(cx), 0), w - 1)
            for ch in range(3):
                img[row, col, ch] = contact_rgb[ch] if touching[i] else agent_rgb[ch]


@njit
def draw_rect_outlines(img, rects, colors, world):
    """Draw 1-pixel outlines of rectangles (a structure's cells or nodes) into ``img``.

    Parameters
    ----------
    img : numpy.ndarray, shape (h, w, 3), uint8
    rects : numpy.ndarray, shape (m, 4), float64
        ``[xmin, ymin, xmax, ymax]`` in world units; parts outside the image are clipped.
    colors : numpy.ndarray, shape (m, 3), uint8
    world : numpy.ndarray, shape (4,), float64
    """
    h = img.shape[0]
    w = img.shape[1]
    sx = w / (world[2] - world[0])
    sy = h / (world[3] - world[1])
    for k in range(rects.shape[0]):
        c0 = int(math.floor((rects[k, 0] - world[0]) * sx))
        c1 = int(math.floor((rects[k, 2] - world[0]) * sx))
        r0 = int(math.floor((world[3] - rects[k, 3]) * sy))
        r1 = int(math.floor((world[3] - rects[k, 1]) * sy))
        c1 = min(c1, w - 1)
        r1 = min(r1, h - 1)
        for col in range(max(c0, 0), c1 + 1):
            for row in (r0, r1):
                if 0 <= row < h:
                    for ch in range(3):
                        img[row, col, ch] = colors[k, ch]
        for row in range(max(r0, 0), r1 + 1):
            for col in (c0, c1):
                if 0 <= col < w:
                    for ch in range(3):
                        img[row, col, ch] = colors[k, ch]


# --------------------------------------------------------------------------
# Per-frame record
# --------------------------------------------------------------------------
@dataclass(frozen=True)
class FrameStats:
    """What one frame did and cost.

    Times are wall-clock milliseconds (``time.perf_counter``); ``step_ms`` is
    their sum (the simulation step; drawing is not included). ``candidates``
    is the number of broad-phase pairs, ``contacts`` the number of touching
    circles among them, ``memory_bytes`` the structure's ``memory_bytes()``
    after the frame.
    """

    frame: int
    move_ms: float
    update_ms: float
    pairs_ms: float
    narrow_ms: float
    respond_ms: float
    step_ms: float
    candidates: int
    contacts: int
    memory_bytes: int


def _positive_int(name, v) -> int:
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < 1:
        raise ValueError(f"{name} must be a positive integer, got {v!r}")
    return int(v)


def _finite(name, v, *, low=None, strict=True) -> float:
    if isinstance(v, (bool, np.bool_)):
        raise ValueError(f"{name} must be a number, got {v!r}")
    try:
        x = float(v)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {v!r}") from None
    if not math.isfinite(x) or (low is not None and (x <= low if strict else x < low)):
        bound = "" if low is None else (f" > {low:g}" if strict else f" >= {low:g}")
        raise ValueError(f"{name} must be a finite number{bound}, got {v!r}")
    return x


def _place_giants(rng, pos, radius, giant, world, tries: int = 100) -> None:
    """Place the giants (``giant`` True) in ``world`` so that nothing starts overlapping them (in place).

    Each giant is drawn uniformly inside the world, again (up to ``tries``
    times) while it overlaps a giant placed before it; then every ordinary
    agent overlapping a giant is drawn again, up to ``tries`` rounds. What
    still overlaps after that (a world crowded with giants) is left to the
    response's separation. O(n x giants) per round; a few giants only.
    """
    lo, hi = world[:2], world[2:]
    gids = np.flatnonzero(giant)
    for k, g in enumerate(gids):
        r = radius[g]
        for _ in range(tries):
            pos[g] = lo + r + rng.uniform(0.0, 1.0, 2) * (hi - lo - 2 * r)
            before = gids[:k]
            d2 = ((pos[before] - pos[g]) ** 2).sum(axis=1)
            if not (d2 <= (radius[before] + r) ** 2).any():
                break
    small = np.flatnonzero(~giant)
    for _ in range(tries):
        hit = np.zeros(len(small), dtype=bool)
        for g in gids:
            d2 = ((pos[small] - pos[g]) ** 2).sum(axis=1)
            hit |= d2 <= (radius[small] + radius[g]) ** 2
        if not hit.any():
            break
        redo = small[hit]
        r = radius[redo][:, None]
        pos[redo] = lo + r + rng.uniform(0.0, 1.0, (len(redo), 2)) * (hi - lo - 2 * r)


# --------------------------------------------------------------------------
# The simulation
# --------------------------------------------------------------------------
class Simulation:
    """Circles bouncing in a box, with any broad phase finding their contacts.

    Parameters
    ----------
    n : int
        Number of agents (>= 1).
    structure : str or BroadPhase subclass
        A name in :data:`lessons_lib.STRUCTURES` (e.g. ``"uniform_grid"``) or a class.
    seed : int
        Seed of numpy's PCG64 generator: same seed, same run.
    radius : float or (float, float)
        Agent radius in world units, or the range ``(rmin, rmax)`` radii are
        drawn from uniformly. Positive; ``rmin <= rmax``.
    speed : float
        Largest initial speed in world units per frame (>= 0); speeds are
        uniform in ``[0, speed]`` in random directions.
    fill : float
        Fraction of the world's area the agents cover, in ``(0, 0.5]``; sets
        the world's size when ``world`` is None (the world then grows with
        ``n`` at constant density, like :func:`lessons_lib.scale_to`).
    aspect : float
        Width / height of a world made from ``fill``.
    world : array_like, shape (4,), optional
        ``[xmin, ymin, xmax, ymax]`` instead of ``fill``; must be wider and
        taller than the largest agent.
    mode : {"update", "rebuild"}
        ``"update"``: one structure, moved with ``update_many`` and
        ``cleanup()`` each frame. ``"rebuild"``: ``from_boxes`` each frame.
    separate : bool
        Push overlapping agents apart after the impulses (see :func:`bounce_contacts`).
    moving : float
        Fraction of the agents that start with a velocity, in ``[0, 1]``:
        ``round(moving * n)`` of them, chosen at random (``seed``); the others
        start at rest (see "Resting bodies and giants" in the module's
        docstring: they move once something pushes them). ``1.0``, the
        default, is the crowd of the answer set, every agent moving, the same
        run as before the parameter existed.
    giants : int
        How many of the agents at rest are giants (>= 0, at most the number
        at rest): their radius is drawn from ``giant_radius`` instead, and
        they are placed so that no agent and no other giant starts
        overlapping them (agents drawn inside a giant are drawn again). The
        world made from ``fill`` is that of ``n`` ordinary agents: giants
        add to its fill.
    giant_radius : (float, float)
        Range of the giants' radii in world units (``rmin <= rmax``, both
        positive); a radius larger than a quarter of the world's shorter side
        is cut to that.
    layout : {"hilbert", "random"}
        Numbering of the agents: ``"hilbert"`` sorts them once, at the start,
        along a Hilbert curve (lesson 10), so that agents near in space are
        near in memory and the structure's kernels miss the cache less
        (stored in ``sim_layout.csv``: a random numbering made a frame 1.1 to
        1.4 times as slow at 500,000 agents, and hardly slower at 20,000);
        ``"random"`` keeps the order they were drawn in. Agents drift slowly,
        so the order stays useful for thousands of frames.
    params : dict, optional
        Keyword parameters of the structure (e.g. ``{"cell_size": 4.0}``);
        ``world`` is always the simulation's world.

    Attributes
    ----------
    pos, vel, radius, mass, boxes, touching : numpy.ndarray
        The agents (see the module docstring); ``pos`` and ``vel`` change every frame.
    world : numpy.ndarray, shape (4,)
    bp : BroadPhase
        The structure (a new one each frame in ``"rebuild"`` mode).
    mode, layout, seed, n, params, moving, giants
        As given.
    resting : numpy.ndarray, shape (n,), bool
        The agents that started at rest (``~resting`` started moving).
    giant : numpy.ndarray, shape (n,), bool
        The giants (all of them started at rest).
    frame : int
        Frames run so far.

    Raises
    ------
    ValueError
        A bad ``n``, radius, speed, fill, aspect, world, mode, layout,
        ``moving``, ``giants`` or ``giant_radius`` (more giants than agents at
        rest), an unknown structure name, bad structure parameters; a world
        too small for the agents.
    TypeError
        ``structure`` neither a name nor a BroadPhase subclass.

    Notes
    -----
    Memory: about 100 bytes per agent here, plus the structure's. Initial
    positions are uniform, so a few agents may start overlapping; the
    response separates them within a few frames.
    """

    def __init__(self, n, *, structure="uniform_grid", seed=0, radius=(1.0, 2.0), speed=0.5, fill=0.1,
                 aspect=4 / 3, world=None, mode="update", separate=True, layout="hilbert", params=None,
                 moving=1.0, giants=0, giant_radius=(50.0, 100.0)):
        n = _positive_int("n", n)
        self.cls = resolve_structure(structure)
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        if layout not in LAYOUTS:
            raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}")
        rmin, rmax = (radius, radius) if np.ndim(radius) == 0 else tuple(radius) if len(radius) == 2 else (None, None)
        if rmin is None:
            raise ValueError(f"radius must be a number or a (rmin, rmax) pair, got {radius!r}")
        rmin, rmax = _finite("radius", rmin, low=0.0), _finite("radius", rmax, low=0.0)
        if rmin > rmax:
            raise ValueError(f"radius range ({rmin:g}, {rmax:g}) has rmin > rmax")
        speed = _finite("speed", speed, low=0.0, strict=False)
        moving = _finite("moving", moving, low=0.0, strict=False)
        if moving > 1.0:
            raise ValueError(f"moving must be a fraction in [0, 1], got {moving:g}")
        if isinstance(giants, (bool, np.bool_)) or not isinstance(giants, (int, np.integer)) or giants < 0:
            raise ValueError(f"giants must be an integer >= 0, got {giants!r}")
        movers = int(round(moving * n))
        if giants > n - movers:
            raise ValueError(f"{giants} giants need as many agents at rest, there are {n - movers} "
                             f"(n = {n}, moving = {moving:g})")
        if np.ndim(giant_radius) != 1 or len(giant_radius) != 2:
            raise ValueError(f"giant_radius must be a (rmin, rmax) pair, got {giant_radius!r}")
        gmin, gmax = (_finite("giant_radius", g, low=0.0) for g in giant_radius)
        if gmin > gmax:
            raise ValueError(f"giant_radius range ({gmin:g}, {gmax:g}) has rmin > rmax")
        self.moving, self.giants = moving, int(giants)
        self.params = dict(params or {})
        if "world" in self.params:
            raise ValueError("params must not hold 'world': the simulation's world is used")
        self.n, self.seed, self.mode, self.separate = n, seed, mode, bool(separate)
        rng = np.random.default_rng(seed)
        self.radius = rng.uniform(rmin, rmax, n) if rmax > rmin else np.full(n, rmin)
        self.mass = self.radius * self.radius
        if world is None:
            fill = _finite("fill", fill, low=0.0)
            if fill > 0.5:
                raise ValueError(f"fill must be in (0, 0.5], got {fill:g}")
            aspect = _finite("aspect", aspect, low=0.0)
            area = math.pi * float(np.sum(self.mass)) / fill
            h = math.sqrt(area / aspect)
            world = [0.0, 0.0, aspect * h, h]
        self.world = as_box(world, name="world")
        width, height = self.world[2] - self.world[0], self.world[3] - self.world[1]
        if min(width, height) <= 2 * rmax:
            raise ValueError(f"world {self.world.tolist()} is too small for agents of radius {rmax:g}: "
                             f"it must be wider and taller than {2 * rmax:g}")
        lo = self.world[:2] + self.radius[:, None]
        hi = self.world[2:] - self.radius[:, None]
        self.pos = lo + rng.uniform(0.0, 1.0, (n, 2)) * (hi - lo)
        angle = rng.uniform(0.0, 2 * math.pi, n)
        s = rng.uniform(0.0, speed, n)
        self.vel = np.column_stack([s * np.cos(angle), s * np.sin(angle)])
        # Drawn after everything above, so that moving=1.0 and giants=0 give the run of before.
        self.resting = np.zeros(n, dtype=bool)
        self.giant = np.zeros(n, dtype=bool)
        if movers < n:
            self.resting[:] = True
            self.resting[rng.choice(n, movers, replace=False)] = False
            self.vel[self.resting] = 0.0
        if giants:
            self.giant[rng.choice(np.flatnonzero(self.resting), giants, replace=False)] = True
            cap = 0.25 * min(width, height)
            self.radius[self.giant] = np.minimum(rng.uniform(gmin, gmax, giants), cap)
            _place_giants(rng, self.pos, self.radius, self.giant, self.world)
        self.layout = layout
        if layout == "hilbert":  # number the agents along a Hilbert curve: neighbours in space, near in memory
            order = np.argsort(hilbert_keys(self.pos, 16, self.world), kind="stable")
            self.pos, self.vel, self.radius = self.pos[order], self.vel[order], self.radius[order]
            self.resting, self.giant = self.resting[order], self.giant[order]
        self.mass = self.radius * self.radius
        self.boxes = np.column_stack([self.pos - self.radius[:, None], self.pos + self.radius[:, None]])
        self.touching = np.zeros(n, dtype=np.uint8)
        self.ids = np.arange(n, dtype=np.int64)
        self._rows = np.empty(max(16, n), dtype=np.int64)  # narrow-phase output, grown only when needed
        self._candidates = np.empty((0, 2), dtype=np.int64)
        self._m = 0
        self.frame = 0
        self._log: list[tuple] = []
        self.bp = self.cls.from_boxes(self.boxes, world=self.world, **self.params)

    # -- one frame --------------------------------------------------------
    def step(self) -> FrameStats:
        """Run one frame (move, update, pairs, narrow, respond) and return its :class:`FrameStats`."""
        clock = time.perf_counter
        t0 = clock()
        move_agents(self.pos, self.vel, self.radius, self.world, self.boxes)
        t1 = clock()
        if self.mode == "update":
            self.bp.update_many(self.ids, self.boxes)
            self.bp.cleanup()
        else:
            self.bp = self.cls.from_boxes(self.boxes, world=self.world, **self.params)
        t2 = clock()
        cand = self.bp.pairs()
        t3 = clock()
        if len(cand) > len(self._rows):  # rare: grow outside the kernel, by doubling
            self._rows = np.empty(max(len(cand), 2 * len(self._rows)), dtype=np.int64)
        m = circle_contacts(cand, self.pos, self.radius, self._rows, self.touching)
        t4 = clock()
        bounce_contacts(cand, self._rows, m, self.pos, self.vel, self.radius, self.mass, self.world, self.separate)
        t5 = clock()
        self._candidates, self._m = cand, int(m)
        self.frame += 1
        ms = [1e3 * (b - a) for a, b in ((t0, t1), (t1, t2), (t2, t3), (t3, t4), (t4, t5))]
        stats = FrameStats(self.frame, *ms, 1e3 * (t5 - t0), len(cand), int(m), int(self.bp.memory_bytes()))
        self._log.append(astuple(stats))
        return stats

    def run(self, frames: int) -> dict[str, np.ndarray]:
        """Run ``frames`` frames (>= 1); return :meth:`history` of the whole run so far."""
        for _ in range(_positive_int("frames", frames)):
            self.step()
        return self.history()

    # -- what happened ----------------------------------------------------
    def history(self, last: int | None = None) -> dict[str, np.ndarray]:
        """Every frame's :class:`FrameStats` as columns: ``{"frame": int64 array, "step_ms": ..., ...}``.

        ``last``: only the last so many frames.
        """
        rows = self._log if last is None else self._log[-last:] if last else []
        names = [f.name for f in fields(FrameStats)]
        cols = list(zip(*rows)) if rows else [()] * len(names)
        out = {}
        for name, col in zip(names, cols):
            dtype = np.float64 if name.endswith("_ms") else np.int64
            out[name] = np.array(col, dtype=dtype)
        return out

    def candidates(self) -> np.ndarray:
        """The last frame's broad-phase pairs: ``(k, 2)`` int64 agent indices, canonical order."""
        return self._candidates

    def contacts(self) -> np.ndarray:
        """The last frame's touching pairs (found before the response moved anyone): ``(m, 2)`` int64."""
        return self._candidates[self._rows[: self._m]]

    def kinetic_energy(self) -> float:
        """Total kinetic energy now (see :func:`kinetic_energy`)."""
        return kinetic_energy(self.vel, self.mass)

    def set_structure(self, structure, params=None) -> None:
        """Swap the broad phase, keeping every agent where it is (one line, as the lecture promises).

        Raises as the constructor for a bad ``structure``.
        """
        cls = resolve_structure(structure)
        self.params = dict(params or {})
        self.bp = cls.from_boxes(self.boxes, world=self.world, **self.params)
        self.cls = cls

    # -- drawing ----------------------------------------------------------
    def image_shape(self, width: int, view=None) -> tuple[int, int]:
        """``(height, width)`` in pixels of a picture ``width`` pixels wide with the aspect of ``view`` (default the world)."""
        width = _positive_int("width", width)
        v = self.world if view is None else view
        w, h = v[2] - v[0], v[3] - v[1]
        return max(1, int(round(width * h / w))), width

    def render(self, width: int = 480, *, regions: bool = False, max_regions: int = 5000,
               view=None, out: np.ndarray | None = None) -> np.ndarray:
        """Rasterise the agents (and optionally the structure's regions) into an RGB image.

        Parameters
        ----------
        width : int
            Image width in pixels (>= 8); the height keeps the world's aspect.
        regions : bool
            Draw the structure's cells or nodes under the agents, coloured by
            depth (the course's region colours), when it has at most ``max_regions`` of them.
        max_regions : int
        view : array_like, shape (4,), optional
            ``[xmin, ymin, xmax, ymax]``: the part of the world to draw (to zoom
            in); default the whole world.
        out : numpy.ndarray, shape (h, w, 3), uint8, optional
            Reuse this image (the widget does, to allocate nothing per frame).

        Returns
        -------
        numpy.ndarray, shape (h, w, 3), uint8
            Row 0 is the top of the world. Agents touching another are orange
            (``CONTACT_RGB``, the course's highlight colour), the others blue
            (``AGENT_RGB``).

        Raises
        ------
        ValueError
            ``width < 8``, a bad or empty ``view``, or ``out`` of the wrong shape or dtype.

        Notes
        -----
        No matplotlib artists: one kernel call paints every disc, so a frame of
        100,000 agents at 640 pixels takes a few milliseconds.
        """
        if isinstance(width, (bool, np.bool_)) or not isinstance(width, (int, np.integer)) or width < 8:
            raise ValueError(f"width must be an integer >= 8 pixels, got {width!r}")
        view = self.world if view is None else as_box(view, name="view")
        if not (view[2] > view[0] and view[3] > view[1]):
            raise ValueError(f"view must have positive width and height, got {view.tolist()}")
        shape = (*self.image_shape(int(width), view), 3)
        if out is None:
            out = np.empty(shape, dtype=np.uint8)
        elif out.shape != shape or out.dtype != np.uint8:
            raise ValueError(f"out must be a {shape} uint8 array, got {out.shape} {out.dtype}")
        out[:] = BACKGROUND_RGB
        if regions:
            rects, depths = self.bp.regions()
            if len(rects) <= max_regions:
                draw_rect_outlines(out, np.ascontiguousarray(rects, dtype=np.float64),
                                   _depth_colors(depths), view)
        rasterise_agents(out, self.pos, self.radius, self.touching, view,
                         np.array(AGENT_RGB, np.uint8), np.array(CONTACT_RGB, np.uint8))
        return out

    def summary(self) -> str:
        """One line: agents, structure, frame, last frame's pairs and the structure's memory."""
        return (f"{self.n:,} agents, {self.cls.name}, frame {self.frame}, world "
                f"{self.world[2] - self.world[0]:.0f} x {self.world[3] - self.world[1]:.0f}: "
                f"{len(self._candidates):,} candidate pairs, {self._m:,} contacts, "
                f"memory_bytes() = {self.bp.memory_bytes():,}")

    def __repr__(self) -> str:
        return (f"Simulation(n={self.n}, structure={self.cls.name!r}, mode={self.mode!r}, seed={self.seed}, "
                f"frame={self.frame})")


def draw(ax, sim: Simulation, width: int = 560, *, regions: bool = False, view=None, title: str | None = None,
         legend: bool = True):
    """Draw ``sim``'s picture (:meth:`Simulation.render`) on a matplotlib Axes, in world units.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    sim : Simulation
    width : int
        Pixels of the rasterised picture across ``view`` (the Axes scales it).
    regions : bool
        The structure's cells or nodes under the agents (coloured by depth).
    view : array_like, shape (4,), optional
        ``[xmin, ymin, xmax, ymax]`` to zoom into; default the whole world.
    title : str, optional
        Default: agents, frame and structure.
    legend : bool
        A legend for the two agent colours, under the figure (one per figure: pass
        ``False`` for the other panels).

    Returns
    -------
    matplotlib.image.AxesImage
    """
    x0, y0, x1, y1 = sim.world if view is None else view
    image = ax.imshow(sim.render(width, regions=regions, view=view), extent=(x0, x1, y0, y1),
                      interpolation="nearest")
    ax.set(xlabel="x (world units)", ylabel="y (world units)",
           title=title or f"{sim.n:,} agents, frame {sim.frame}, {sim.cls.name}")
    if legend:
        from matplotlib.lines import Line2D

        dots = [Line2D([], [], linestyle="", marker="o", color=style.BOX_COLOR, label="agent"),
                Line2D([], [], linestyle="", marker="o", color=style.HIGHLIGHT_COLOR,
                       label="agent touching another this frame")]
        ax.figure.legend(handles=dots, loc="outside lower center", ncols=2, fontsize="small", frameon=False)
    return image


def _depth_colors(depths) -> np.ndarray:
    """The course's region colours (uint8 RGB) by depth, as :func:`lessons_lib.viz.draw_regions` uses them."""
    from matplotlib import colormaps

    d = np.asarray(depths, dtype=np.int64)
    top = max(int(d.max()) if len(d) else 0, 1)
    rgba = colormaps[style.REGION_CMAP](viz.REGION_CMAP_TOP * np.minimum(d, top) / top)
    return np.ascontiguousarray((255 * rgba[:, :3]).round().astype(np.uint8)).reshape(-1, 3)

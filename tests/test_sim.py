"""Lesson 13's simulation: deterministic, contained, elastic, and its pairs equal brute force."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from lessons_lib import STRUCTURES, brute_force_pairs
from lessons_lib.labs.sim import (
    AGENT_RGB,
    BACKGROUND_RGB,
    CONTACT_RGB,
    Simulation,
    bounce_contacts,
    circle_contacts,
    kinetic_energy,
    move_agents,
)

ROOT = Path(__file__).resolve().parents[1]
#: Structures with different update paths (bulk kernels, insertion sort, one-by-one, rebuild-like).
SEVERAL = [s for s in ("uniform_grid", "spatial_hash", "quadtree", "sweep_and_prune", "rtree", "kdtree",
                       "loose_tight_grid", "loose_quadtree") if s in STRUCTURES]


def brute_contacts(pos, radius):
    """Every pair of touching closed circles, by testing all pairs."""
    d = pos[:, None, :] - pos[None, :, :]
    rr = radius[:, None] + radius[None, :]
    hit = (d ** 2).sum(axis=2) <= rr ** 2
    i, j = np.nonzero(np.triu(hit, k=1))
    return np.column_stack([i, j]).astype(np.int64)


def assert_inside(sim):
    r = sim.radius
    assert (sim.pos[:, 0] >= sim.world[0] + r).all() and (sim.pos[:, 0] <= sim.world[2] - r).all()
    assert (sim.pos[:, 1] >= sim.world[1] + r).all() and (sim.pos[:, 1] <= sim.world[3] - r).all()


# -- determinism ---------------------------------------------------------------
def test_same_seed_same_run_different_seed_different_run():
    a, b, c = (Simulation(300, seed=s, fill=0.2) for s in (7, 7, 8))
    for sim in (a, b, c):
        sim.run(40)
    assert np.array_equal(a.pos, b.pos) and np.array_equal(a.vel, b.vel)
    assert np.array_equal(a.history()["contacts"], b.history()["contacts"])
    assert not np.array_equal(a.pos, c.pos)


@pytest.mark.parametrize("name", [s for s in SEVERAL if s != "uniform_grid"] + ["brute_force"])
def test_every_structure_gives_the_same_run(name):
    """Contacts are handled in canonical pair order, so the structure changes nothing but time."""
    ref = Simulation(250, structure="uniform_grid", seed=3, fill=0.25)
    sim = Simulation(250, structure=name, seed=3, fill=0.25)
    ref.run(30)
    sim.run(30)
    assert np.array_equal(sim.pos, ref.pos) and np.array_equal(sim.vel, ref.vel)


@pytest.mark.parametrize("name", ["uniform_grid", "quadtree", "sweep_and_prune"])
def test_rebuild_mode_gives_the_same_run(name):
    up = Simulation(250, structure=name, seed=4, fill=0.25)
    re = Simulation(250, structure=name, seed=4, fill=0.25, mode="rebuild")
    up.run(25)
    re.run(25)
    assert np.array_equal(up.pos, re.pos)
    assert re.bp is not None and len(re.bp) == 250


# -- pairs against brute force on sampled frames ------------------------------------
@pytest.mark.parametrize("name", SEVERAL)
def test_candidates_and_contacts_equal_brute_force(name):
    # separate=False: the response changes only velocities, so positions after a
    # frame are the ones its narrow phase saw.
    sim = Simulation(400, structure=name, seed=11, fill=0.3, speed=1.5, separate=False)
    for frame in range(1, 41):
        sim.step()
        if frame % 8 == 0:
            assert np.array_equal(sim.candidates(), brute_force_pairs(sim.boxes)), f"frame {frame}"
            assert np.array_equal(sim.contacts(), brute_contacts(sim.pos, sim.radius)), f"frame {frame}"
            touching = np.zeros(sim.n, bool)
            touching[sim.contacts().ravel()] = True
            assert np.array_equal(sim.touching.astype(bool), touching)


def test_candidates_equal_brute_force_with_separation():
    sim = Simulation(400, structure="quadtree", seed=12, fill=0.35)
    for _ in range(20):
        sim.step()
        assert np.array_equal(sim.candidates(), brute_force_pairs(sim.boxes))
        h = sim.history(last=1)
        assert h["candidates"][0] == len(sim.candidates()) and h["contacts"][0] == len(sim.contacts())


def test_touching_circles_count_as_contacts():
    pairs = np.array([[0, 1], [1, 2]], dtype=np.int64)
    pos = np.array([[0.0, 0.0], [3.0, 0.0], [3.0, 4.0 + 1e-9]])
    radius = np.array([1.0, 2.0, 2.0])
    out, touching = np.empty(2, np.int64), np.zeros(3, np.uint8)
    m = circle_contacts(pairs, pos, radius, out, touching)
    assert m == 1 and out[0] == 0 and touching.tolist() == [1, 1, 0]


# -- containment and energy ------------------------------------------------------
def test_agents_stay_inside_the_world():
    sim = Simulation(300, seed=5, fill=0.35, speed=3.0, radius=(0.5, 3.0))
    for _ in range(60):
        sim.step()
        assert_inside(sim)


def test_kinetic_energy_is_conserved():
    sim = Simulation(500, seed=6, fill=0.3, speed=1.0)
    e0 = sim.kinetic_energy()
    h = sim.run(100)
    assert h["contacts"].sum() > 200, "the test needs collisions"
    assert abs(sim.kinetic_energy() - e0) <= 1e-9 * e0
    assert np.isfinite(sim.pos).all() and np.isfinite(sim.vel).all()


def test_walls_keep_speeds():
    pos = np.array([[0.5, 5.0], [9.8, 9.9]])
    vel = np.array([[-1.0, 0.25], [0.7, 0.3]])
    radius = np.array([0.4, 0.2])
    world = np.array([0.0, 0.0, 10.0, 10.0])
    boxes = np.empty((2, 4))
    speeds = np.hypot(*vel.T)
    move_agents(pos, vel, radius, world, boxes)
    assert np.allclose(np.hypot(*vel.T), speeds)
    assert vel[0, 0] > 0 and vel[1, 0] < 0 and vel[1, 1] < 0       # reflected
    assert np.allclose(pos[0], [0.4 + (0.4 - (0.5 - 1.0)), 5.25])   # mirrored in the wall x = r
    assert np.allclose(boxes[0], [pos[0, 0] - 0.4, pos[0, 1] - 0.4, pos[0, 0] + 0.4, pos[0, 1] + 0.4])


def test_equal_masses_head_on_exchange_velocities():
    pairs = np.array([[0, 1]], dtype=np.int64)
    pos = np.array([[0.0, 0.0], [1.9, 0.0]])
    vel = np.array([[1.0, 0.0], [-0.5, 0.0]])
    radius = np.ones(2)
    mass = radius ** 2
    e0 = kinetic_energy(vel, mass)
    bounce_contacts(pairs, np.array([0]), 1, pos, vel, radius, mass, np.array([-10.0, -10, 10, 10]), True)
    assert np.allclose(vel, [[-0.5, 0.0], [1.0, 0.0]])
    assert np.isclose(kinetic_energy(vel, mass), e0)
    assert np.isclose(pos[1, 0] - pos[0, 0], 2.0)                    # pushed apart to touching


def test_separating_pair_is_left_alone_and_heavy_agent_barely_moves():
    pairs = np.array([[0, 1]], dtype=np.int64)
    world = np.array([-10.0, -10, 10, 10])
    pos = np.array([[0.0, 0.0], [1.5, 0.0]])
    vel = np.array([[-1.0, 0.0], [1.0, 0.0]])                          # moving apart already
    bounce_contacts(pairs, np.array([0]), 1, pos, vel, np.ones(2), np.ones(2), world, False)
    assert vel.tolist() == [[-1.0, 0.0], [1.0, 0.0]]
    radius = np.array([3.0, 1.0])
    mass = radius ** 2
    pos = np.array([[0.0, 0.0], [3.5, 0.0]])
    vel = np.array([[0.0, 0.0], [-1.0, 0.0]])
    bounce_contacts(pairs, np.array([0]), 1, pos, vel, radius, mass, world, False)
    assert np.allclose(vel, [[-0.2, 0.0], [0.8, 0.0]])                 # 1D elastic, masses 9 and 1


# -- history, memory, swapping -------------------------------------------------
def test_history_columns():
    sim = Simulation(200, seed=1)
    assert len(sim.history()["frame"]) == 0
    h = sim.run(5)
    assert h["frame"].tolist() == [1, 2, 3, 4, 5]
    phases = sum(h[f"{p}_ms"] for p in ("move", "update", "pairs", "narrow", "respond"))
    assert np.allclose(phases, h["step_ms"], rtol=1e-6)
    assert (h["memory_bytes"] == sim.bp.memory_bytes()).all() or h["memory_bytes"][-1] == sim.bp.memory_bytes()
    assert len(sim.history(last=2)["frame"]) == 2
    assert "200 agents" in sim.summary() and "uniform_grid" in repr(sim)


def test_hilbert_layout_only_renumbers_agents():
    a = Simulation(500, seed=3, layout="random")
    b = Simulation(500, seed=3)
    order = np.lexsort((a.pos[:, 1], a.pos[:, 0]))
    border = np.lexsort((b.pos[:, 1], b.pos[:, 0]))
    assert np.array_equal(a.pos[order], b.pos[border]) and np.array_equal(a.radius[order], b.radius[border])
    assert not np.array_equal(a.pos, b.pos)
    step_a = np.median(np.abs(np.diff(a.pos[:, 0])))
    step_b = np.median(np.abs(np.diff(b.pos[:, 0])))
    assert step_b < step_a / 5, "consecutive agents should be near each other along the curve"


def test_set_structure_keeps_agents():
    sim = Simulation(200, seed=2, fill=0.3)
    sim.run(5)
    pos = sim.pos.copy()
    sim.set_structure("quadtree")
    assert sim.cls is STRUCTURES["quadtree"] and np.array_equal(sim.pos, pos)
    sim.step()
    assert np.array_equal(sim.candidates(), brute_force_pairs(sim.boxes))


# -- rendering -------------------------------------------------------------------
def test_render_paints_agents_and_contacts():
    sim = Simulation(300, seed=0, fill=0.3)
    sim.step()
    img = sim.render(200)
    h, w = sim.image_shape(200)
    assert img.shape == (h, w, 3) and img.dtype == np.uint8
    colours = {tuple(c) for c in img.reshape(-1, 3)}
    assert {AGENT_RGB, CONTACT_RGB, BACKGROUND_RGB} <= colours
    with_cells = sim.render(200, regions=True)
    assert (with_cells != img).any()
    out = np.zeros_like(img)
    assert sim.render(200, out=out) is out and np.array_equal(out, img)


def test_render_zooms_into_a_view():
    sim = Simulation(400, seed=0, fill=0.3)
    x0, y0, x1, y1 = sim.world
    view = [x0, y0, x0 + (x1 - x0) / 4, y0 + (y1 - y0) / 4]
    img = sim.render(120, view=view)
    assert img.shape[1] == 120
    inside = ((sim.pos[:, 0] + sim.radius >= view[0]) & (sim.pos[:, 0] - sim.radius <= view[2])
              & (sim.pos[:, 1] + sim.radius >= view[1]) & (sim.pos[:, 1] - sim.radius <= view[3]))
    painted = (img != 255).any(axis=2).mean()
    assert 0 < painted < 0.9 and inside.sum() < sim.n
    far = sim.render(40, view=[x1 + 10, y1 + 10, x1 + 20, y1 + 20])   # no agent there: nothing painted
    assert (far == 255).all()
    with pytest.raises(ValueError, match="view must have positive width"):
        sim.render(40, view=[0, 0, 0, 5])


def test_render_draws_subpixel_agents():
    sim = Simulation(50, seed=0, radius=0.01, world=[0, 0, 100, 100])
    img = sim.render(10)
    assert (img != 255).any(axis=2).sum() >= 1


# -- bad parameters ----------------------------------------------------------------
@pytest.mark.parametrize("kwargs, message", [
    ({"n": 0}, "n must be a positive integer"),
    ({"n": 2.5}, "n must be a positive integer"),
    ({"n": True}, "n must be a positive integer"),
    ({"structure": "octree"}, "unknown structure 'octree'"),
    ({"radius": -1.0}, "radius must be a finite number > 0"),
    ({"radius": (2.0, 1.0)}, "rmin > rmax"),
    ({"radius": (1.0, 2.0, 3.0)}, "radius must be a number or a"),
    ({"speed": -0.5}, "speed must be a finite number >= 0"),
    ({"speed": float("nan")}, "speed must be a finite number"),
    ({"fill": 0.8}, r"fill must be in \(0, 0.5\]"),
    ({"fill": 0.0}, "fill must be a finite number > 0"),
    ({"world": [0, 0, 3, 100]}, "too small for agents of radius 2"),
    ({"world": [0, 0, -5, 10]}, "world"),
    ({"mode": "rebuilt"}, "mode must be one of"),
    ({"layout": "morton"}, "layout must be one of"),
    ({"params": {"world": [0, 0, 1, 1]}}, "params must not hold 'world'"),
    ({"params": {"cell_size": -1.0}}, "cell_size"),
    ({"moving": 1.5}, r"moving must be a fraction in \[0, 1\]"),
    ({"moving": -0.1}, "moving must be a finite number >= 0"),
    ({"moving": "all"}, "moving must be a number"),
    ({"giants": -1}, "giants must be an integer >= 0"),
    ({"giants": 2.5}, "giants must be an integer >= 0"),
    ({"giants": True}, "giants must be an integer >= 0"),
    ({"giants": 3}, "3 giants need as many agents at rest, there are 0"),
    ({"moving": 0.98, "giants": 3}, "3 giants need as many agents at rest, there are 2"),
    ({"moving": 0.5, "giants": 1, "giant_radius": 5.0}, "giant_radius must be a"),
    ({"moving": 0.5, "giants": 1, "giant_radius": (9.0, 3.0)}, "rmin > rmax"),
    ({"moving": 0.5, "giants": 1, "giant_radius": (0.0, 3.0)}, "giant_radius must be a finite number > 0"),
])
def test_bad_parameters_raise_clear_errors(kwargs, message):
    args = {"n": 100, **kwargs}
    with pytest.raises(ValueError, match=message):
        Simulation(args.pop("n"), **args)


def test_bad_structure_type_and_render_width():
    with pytest.raises(TypeError, match="structure must be a name"):
        Simulation(10, structure=42)
    sim = Simulation(10)
    for width in (4, 100.5, True):
        with pytest.raises(ValueError, match="width must be an integer >= 8"):
            sim.render(width)
    with pytest.raises(ValueError, match="out must be"):
        sim.render(64, out=np.zeros((3, 3, 3), np.uint8))
    with pytest.raises(ValueError, match="frames must be a positive integer"):
        sim.run(0)
    with pytest.raises(ValueError, match="unknown structure"):
        sim.set_structure("nope")


# -- plain Python gives the same run ----------------------------------------------
def test_plain_python_matches_compiled():
    script = textwrap.dedent("""
        import json
        from lessons_lib.labs.sim import Simulation
        sim = Simulation(60, seed=9, fill=0.3, speed=1.0)
        sim.run(15)
        img = sim.render(40, regions=True)
        print(json.dumps({"pos": sim.pos.tolist(), "contacts": sim.contacts().tolist(), "img": int(img.sum())}))
    """)
    env = {**os.environ, "LESSONS_JIT": "0"}
    out = subprocess.run([sys.executable, "-c", script], env=env, cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout
    plain = json.loads(out)
    sim = Simulation(60, seed=9, fill=0.3, speed=1.0)
    sim.run(15)
    assert plain["contacts"] == sim.contacts().tolist()
    assert np.allclose(plain["pos"], sim.pos, rtol=0, atol=1e-9)
    assert plain["img"] == int(sim.render(40, regions=True).sum())


# -- the live player, without a browser ----------------------------------------------
def test_player_builds_and_steps():
    from lessons_lib.labs.sim_player import SimulationPlayer, png_bytes

    player = SimulationPlayer(300, structure="uniform_grid", width=160)
    player.step(3)
    assert player.sim.frame == 3 and "frame 3" in player.status() and "300 agents" in player.status()
    box = player.widget()
    ui = player.controls
    assert ui is not None and box is ui.box
    assert ui.image.value[:8] == b"\x89PNG\r\n\x1a\n"
    ui.step.click()
    assert player.sim.frame == 4 and ui.status.value.startswith("frame 4")
    ui.structure.value = "quadtree"
    assert player.sim.cls.name == "quadtree" and player.sim.frame == 4
    ui.regions.value = True
    ui.agents.value = 1000
    assert player.sim.n == 1000 and player.sim.frame == 0
    ui.play.value = True
    deadline = time.time() + 10
    while player.sim.frame < 3 and time.time() < deadline:
        time.sleep(0.05)
    ui.play.value = False
    assert not player.playing and player.last_error is None
    assert player.sim.frame >= 3 and player.fps > 0 and ui.play.description == "Play"
    assert png_bytes(np.zeros((4, 4, 3), np.uint8))[:4] == b"\x89PNG"


def test_player_bad_parameters():
    from lessons_lib.labs.sim_player import SimulationPlayer

    with pytest.raises(ValueError, match="unknown structure"):
        SimulationPlayer(100, structure="nope")
    with pytest.raises(ValueError, match="max_fps"):
        SimulationPlayer(100, max_fps=0)


def test_player_still_is_a_labelled_frame_of_readable_size():
    import struct

    import matplotlib

    matplotlib.use("Agg")
    from lessons_lib.labs.sim_player import SimulationPlayer

    player = SimulationPlayer(300, structure="uniform_grid", width=160)
    player.step(2)
    png = player.still()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    w, h = struct.unpack(">II", png[16:24])
    assert w >= 480 and h >= 240 and w <= 3 * h       # what a notebook without a kernel shows


def test_draw_labels_the_picture_in_world_units():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from lessons_lib.labs.sim import draw

    sim = Simulation(200, seed=3)
    sim.run(2)
    fig, ax = plt.subplots()
    draw(ax, sim, width=120)
    assert ax.get_xlabel() == "x (world units)" and "200 agents" in ax.get_title()
    assert ax.images[0].get_extent() == [sim.world[0], sim.world[2], sim.world[1], sim.world[3]]
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["agent", "agent touching another this frame"]
    plt.close(fig)


# -- resting bodies and giants --------------------------------------------------------
def test_resting_agents_stay_still_until_something_touches_them():
    """moving=0.05: 95 % start at rest; an agent at rest that no contact reached keeps its box bit for bit."""
    sim = Simulation(2000, seed=5, moving=0.05)
    assert sim.resting.sum() == 1900 and not sim.giant.any()
    assert np.all(sim.vel[sim.resting] == 0.0) and np.all(np.any(sim.vel[~sim.resting] != 0.0, axis=1))
    start = sim.boxes.copy()
    touched = np.zeros(sim.n, dtype=bool)
    for _ in range(12):
        sim.step()
        touched[sim.contacts().ravel()] = True
        untouched = sim.resting & ~touched
        assert np.array_equal(sim.boxes[untouched], start[untouched])
        assert np.all(sim.vel[untouched] == 0.0)
    woken = sim.resting & np.any(sim.vel != 0.0, axis=1)
    assert woken.any() and not (woken & ~touched).any()  # pushed bodies move on; only touched ones were pushed
    assert np.all(sim.vel == 0.0, axis=1).mean() > 0.85
    assert np.array_equal(sim.candidates(), brute_force_pairs(sim.boxes))


def test_every_agent_moving_is_the_default_and_draws_nothing_more():
    a, b = Simulation(300, seed=7, fill=0.2), Simulation(300, seed=7, fill=0.2, moving=1.0, giants=0)
    assert not a.resting.any() and np.array_equal(a.vel, b.vel) and np.array_equal(a.pos, b.pos)
    c = Simulation(300, seed=7, fill=0.2, moving=0.5)  # the same agents, half of them stopped
    assert np.array_equal(np.sort(c.radius), np.sort(a.radius)) and c.resting.sum() == 150


def test_giants_rest_among_the_agents_without_overlapping_them():
    sim = Simulation(2000, seed=2, moving=0.05, giants=4, giant_radius=(20.0, 30.0))
    assert sim.giant.sum() == 4 and np.all(sim.resting[sim.giant]) and np.all(sim.vel[sim.giant] == 0.0)
    assert np.all((sim.radius[sim.giant] >= 20.0) & (sim.radius[sim.giant] <= 30.0))
    assert np.all(sim.radius[~sim.giant] <= 2.0)
    assert np.array_equal(sim.mass, sim.radius ** 2)
    assert_inside(sim)
    touching = brute_contacts(sim.pos, sim.radius)
    assert not sim.giant[touching].any()  # nothing starts on a giant
    huge = Simulation(200, seed=2, moving=0.5, giants=2, giant_radius=(1e6, 2e6))  # cut to a quarter of the world
    side = min(huge.world[2] - huge.world[0], huge.world[3] - huge.world[1])
    assert np.allclose(huge.radius[huge.giant], 0.25 * side)
    assert_inside(huge)


@pytest.mark.parametrize("name", [s for s in SEVERAL if s != "uniform_grid"] + ["dynamic_aabb_tree"])
def test_every_structure_gives_the_same_run_among_resting_bodies_and_giants(name):
    kw = dict(seed=8, fill=0.25, moving=0.05, giants=3, giant_radius=(15.0, 25.0))
    ref = Simulation(600, structure="uniform_grid", **kw)
    sim = Simulation(600, structure=name, **kw)
    ref.run(15)
    sim.run(15)
    assert np.array_equal(sim.pos, ref.pos) and np.array_equal(sim.vel, ref.vel)
    assert np.array_equal(sim.candidates(), brute_force_pairs(sim.boxes))
    re = Simulation(600, structure=name, mode="rebuild", **kw)
    re.run(15)
    assert np.array_equal(re.pos, ref.pos)

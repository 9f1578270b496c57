"""The Box2D anchor suite's Python side (benchmarks/anchor_box2d.py), without the anchor folder.

The resting-bodies frames are derived from a frames file written here from the format, and
lessons_lib's tree is driven over them by the C anchor suite's driver, every frame checked
against brute force.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `python -m pytest` puts the root there; plain `pytest` may not
    sys.path.insert(0, str(ROOT))

from benchmarks import anchor_box2d, anchor_c  # noqa: E402
from lessons_lib import brute_force_pairs  # noqa: E402
from test_anchor_suite import SCALE, moving_agents, write_frames_file  # noqa: E402


def test_without_the_anchor_it_says_skipped(tmp_path, capsys):
    assert anchor_box2d.box2d_problem(tmp_path / "nowhere").startswith("skipped: Box2D anchor folder not found")
    (tmp_path / "half").mkdir()
    assert "lacks harness" in anchor_box2d.box2d_problem(tmp_path / "half")
    assert anchor_box2d.main(["--anchor", str(tmp_path / "nowhere")]) == 0
    assert capsys.readouterr().out.startswith("skipped:")


def test_resting_frames_move_only_the_chosen_fraction(tmp_path):
    blocks = moving_agents(400, 5, 64 * SCALE)
    src = write_frames_file(tmp_path / "agents.bin", blocks, 64 * SCALE)
    out = anchor_box2d.resting_frames(src, 0.25, build_dir=tmp_path)
    h, rest = anchor_c.read_frames(out)
    h0, _ = anchor_c.read_frames(src)
    assert h == h0 and rest.shape == blocks.shape
    moving = (rest[1:] != rest[0]).any(axis=(0, 2))
    assert 90 <= moving.sum() <= 100  # a quarter of the agents (a few of them may never move in the source)
    for f in range(rest.shape[0]):  # those move as in the source, the others stay where frame 0 has them
        np.testing.assert_array_equal(rest[f][moving], blocks[f][moving])
        np.testing.assert_array_equal(rest[f][~moving], blocks[0][~moving])
    assert anchor_box2d.resting_frames(src, 0.25, build_dir=tmp_path) == out  # cached


def test_the_tree_on_resting_frames_matches_brute_force(tmp_path):
    blocks = moving_agents(500, 6, 64 * SCALE)
    src = write_frames_file(tmp_path / "agents.bin", blocks, 64 * SCALE)
    h, rest = anchor_c.read_frames(anchor_box2d.resting_frames(src, 0.1, build_dir=tmp_path))
    run = anchor_c.run_structure("dynamic_aabb_tree", h, rest, params={"margin": 0.1})
    for f in range(1, rest.shape[0]):
        pairs = brute_force_pairs(anchor_c.frame_boxes(rest, f, h.scale))
        assert run.counts[f - 1] == len(pairs) and run.checksums[f - 1] == anchor_c.pair_checksum(pairs)

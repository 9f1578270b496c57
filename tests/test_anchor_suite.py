"""The C anchor suite's Python side (benchmarks/anchor_c.py), without the anchor folder.

The frames file is written here from its format (a 32-byte header of int32, then one
block of n x 4 int32 lattice boxes per frame), so the reader is checked against the
format, not against a writer of its own.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `python -m pytest` puts the root there; plain `pytest` may not
    sys.path.insert(0, str(ROOT))

from benchmarks import anchor_c  # noqa: E402
from lessons_lib import brute_force_pairs  # noqa: E402

MAGIC = 0x51414E43
SCALE = 64


def write_frames_file(path: Path, blocks: np.ndarray, world_lattice: int, *, seed: int = 7, layout: int = 1) -> Path:
    """``blocks``: (frames + 1, n, 4) lattice boxes."""
    frames, n = blocks.shape[0] - 1, blocks.shape[1]
    header = np.array([MAGIC, n, frames, SCALE, world_lattice, seed, layout, 0], dtype="<i4")
    path.write_bytes(header.tobytes() + np.ascontiguousarray(blocks, dtype="<i4").tobytes())
    return path


def moving_agents(n: int, frames: int, world_lattice: int, seed: int = 3) -> np.ndarray:
    """Agents of half-side 1..2 units moving on the lattice, clamped inside the world (some touch exactly)."""
    rng = np.random.default_rng(seed)
    r = rng.integers(1 * SCALE, 2 * SCALE + 1, n)
    c = np.column_stack([rng.integers(r, world_lattice - r + 1), rng.integers(r, world_lattice - r + 1)])
    v = rng.integers(-SCALE // 2, SCALE // 2 + 1, (n, 2))
    out = []
    for f in range(frames + 1):
        if f:
            c = np.clip(c + v, r[:, None], world_lattice - r[:, None])
        out.append(np.column_stack([c[:, 0] - r, c[:, 1] - r, c[:, 0] + r, c[:, 1] + r]))
    blocks = np.stack(out)
    # two still agents touching edge to edge in every frame: closed boxes, the pair must count
    blocks[:, 0, :] = [1000, 1000, 1128, 1128]
    blocks[:, 1, :] = [1128, 1000, 1256, 1128]
    return blocks


@pytest.fixture
def small_file(tmp_path):
    blocks = moving_agents(300, 4, 64 * SCALE)
    return write_frames_file(tmp_path / "agents.bin", blocks, 64 * SCALE), blocks


def test_read_frames_header_and_blocks(small_file):
    path, blocks = small_file
    h, mm = anchor_c.read_frames(path)
    assert (h.n, h.frames, h.scale, h.world_lattice, h.seed, h.layout) == (300, 4, SCALE, 64 * SCALE, 7, 1)
    assert h.world == 64.0 and h.layout_name == "random"
    assert mm.shape == (5, 300, 4) and np.array_equal(mm, blocks)
    b = anchor_c.frame_boxes(mm, 2, h.scale)
    assert b.dtype == np.float64 and np.array_equal(b * SCALE, blocks[2])


def test_read_frames_rejects_bad_files(tmp_path, small_file):
    path, _ = small_file
    data = path.read_bytes()
    (tmp_path / "short.bin").write_bytes(data[:-4])
    with pytest.raises(ValueError, match="bytes, expected"):
        anchor_c.read_frames(tmp_path / "short.bin")
    (tmp_path / "magic.bin").write_bytes(b"\0\0\0\0" + data[4:])
    with pytest.raises(ValueError, match="magic"):
        anchor_c.read_frames(tmp_path / "magic.bin")
    (tmp_path / "tiny.bin").write_bytes(data[:12])
    with pytest.raises(ValueError, match="too short"):
        anchor_c.read_frames(tmp_path / "tiny.bin")


def _mix_reference(i: int, j: int) -> int:
    """SplitMix64's output step on (i << 32) | j, with Python integers."""
    m = (1 << 64) - 1
    z = (((i << 32) | j) + 0x9E3779B97F4A7C15) & m
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & m
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & m
    return z ^ (z >> 31)


def test_pair_checksum_matches_integer_arithmetic_and_ignores_order():
    rng = np.random.default_rng(0)
    i = rng.integers(0, 2**31 - 2, 200)
    p = np.column_stack([i, i + rng.integers(1, 1000, 200)])
    expected = sum(_mix_reference(int(a), int(b)) for a, b in p) % (1 << 64)
    assert anchor_c.pair_checksum(p) == expected
    assert anchor_c.pair_checksum(p[::-1]) == expected
    assert anchor_c.pair_checksum(np.zeros((0, 2), np.int64)) == 0
    assert anchor_c.pair_checksum(p[1:]) != expected


@pytest.mark.parametrize("structure", ["uniform_grid", "loose_tight_grid", "sweep_and_prune"])
def test_driver_pairs_equal_brute_force(small_file, structure):
    path, blocks = small_file
    h, mm = anchor_c.read_frames(path)
    run = anchor_c.run_structure(structure, h, mm)
    assert run.status == "ok" and run.frames_done == h.frames and run.build_ms >= 0
    for f in range(1, h.frames + 1):
        ref = brute_force_pairs(blocks[f] / SCALE)
        assert run.counts[f - 1] == len(ref)
        assert run.checksums[f - 1] == anchor_c.pair_checksum(ref)
    assert all(len(run.ms[p]) == h.frames for p in anchor_c.PHASES)
    assert np.allclose(run.ms["total"], np.add(np.add(run.ms["update"], run.ms["cleanup"]), run.ms["pairs"]))
    assert min(run.counts) >= 1  # the two agents placed edge to edge


def test_check_against_marks_a_wrong_frame(small_file):
    path, _ = small_file
    h, mm = anchor_c.read_frames(path)
    ref = anchor_c.run_structure("uniform_grid", h, mm)
    ok = anchor_c.run_structure("quadtree", h, mm)
    anchor_c.check_against(ok, ref)
    assert ok.status == "ok"
    bad = anchor_c.run_structure("quadtree", h, mm)
    bad.checksums[2] += 1
    anchor_c.check_against(bad, ref)
    assert bad.status == "FAILED" and bad.note.startswith("frame 3:") and "checksum" in bad.note


def test_parse_c_output():
    text = ("frame,update_ms,cleanup_ms,pairs_ms,total_ms,pairs,checksum,cpu_update_ms,cpu_cleanup_ms,"
            "cpu_pairs_ms,cpu_total_ms\n"
            "1,1.0,0.5,2.0,3.5,10,18446744073709551615,1,0.5,2,3.4\n"
            "2,1.2,0.5,2.2,3.9,11,5,1,0.5,2,3.8\n")
    run = anchor_c.parse_c_output("C_x", text)
    assert run.kind == "C" and run.counts == [10, 11] and run.checksums == [2**64 - 1, 5]
    assert run.median("total") == pytest.approx(3.7) and run.median("cpu") == pytest.approx(3.6)
    with pytest.raises(ValueError):
        anchor_c.parse_c_output("C_x", "usage: ...\n")


def test_budget_stops_a_run(small_file):
    path, _ = small_file
    h, mm = anchor_c.read_frames(path)
    run = anchor_c.run_structure("uniform_grid", h, mm, budget_s=0.0)
    assert run.status == "over budget" and run.frames_done == 1 and "budget" in run.note


def test_skips_with_one_line_when_the_anchor_is_absent(tmp_path, capsys, monkeypatch):
    missing = tmp_path / "no_such_anchor"
    assert anchor_c.main(["--anchor", str(missing)]) == 0
    out = capsys.readouterr().out.strip()
    assert out.startswith(f"skipped: anchor folder not found at {missing}") and "\n" not in out
    monkeypatch.setenv(anchor_c.ANCHOR_ENV, str(missing))
    assert anchor_c.main([]) == 0
    assert capsys.readouterr().out.startswith(f"skipped: anchor folder not found at {missing}")


def test_default_anchor_is_beside_the_repository(monkeypatch):
    monkeypatch.delenv(anchor_c.ANCHOR_ENV, raising=False)
    d = anchor_c.default_anchor()
    assert d.name == "dragon_space_c" and d.parent.name == "anchors" and d.parent.parent.name == "shared"


def test_anchor_folder_without_its_files_is_skipped(tmp_path, capsys):
    assert anchor_c.main(["--anchor", str(tmp_path)]) == 0
    assert capsys.readouterr().out.startswith(f"skipped: anchor folder {tmp_path} lacks gen_frames.py")

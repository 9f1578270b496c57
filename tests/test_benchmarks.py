"""The course's goal files (benchmarks/, outside the package): they load, list and read stored rows."""
from __future__ import annotations

from benchmarks import GOALS, Line, load_goals
from benchmarks.__main__ import main as goals_main
from benchmarks.goals_suites import suite_lines


def test_goal_files_load_and_list(capsys):
    load_goals()
    assert len(GOALS) >= 8
    assert goals_main(["--list"]) == 0
    assert "suites" in capsys.readouterr().out


def test_suite_lines_read_the_table():
    def row(scene, structure, kind, total, status="ok"):
        return {"scene": scene, "n": 100_000, "structure": structure, "kind": kind, "total_ms": total,
                "status": status}

    rows = [row("random", "uniform_grid", "ours", 10.0), row("random", "cKDTree", "peer", 60.0),
            row("xline", "sweep_and_prune", "ours", 50.0), row("xline", "shapely.STRtree", "peer", 100.0),
            row("xline", "cKDTree", "peer", 1.0, status="skipped")]
    lines = suite_lines(rows, scenes=("random", "xline", "yline"))
    assert [ln.ok for ln in lines] == [True, False, False, True]
    assert "6.0x" in lines[0].measured and "2.0x" in lines[1].measured
    assert "not measured" in lines[2].measured
    broken = dict(row("random", "broken", "ours", 1.0, status="FAILED"), suite="scaled")
    wrong = suite_lines([broken], scenes=())[-1]
    assert isinstance(wrong, Line) and not wrong.ok and "broken" in wrong.measured


def test_speed_goal_lines_read_rows():
    from benchmarks.goals_speed import FRAME_GOALS_MS, SCENES, frame_lines, peer_lines, sparse_scene

    for scene in SCENES:
        b = sparse_scene(scene, 500)
        assert b.shape == (500, 4) and (b[:, 2] - b[:, 0] >= 2).all() and (b[:, 3] - b[:, 1] <= 8).all()
    rows = [dict(scene=s, n=100_000, pairs=10, entrant=e, kind=k, total_ms=ms, threads=2, status="ok")
            for s in SCENES for e, k, ms in (("counting_sort_grid", "ours", 4.0), ("cKDTree", "peer", 44.0))]
    lines = peer_lines(rows)
    assert [ln.ok for ln in lines] == [True] * len(SCENES) + [True] and "11.0x" in lines[0].measured
    rows[0]["status"] = "FAILED"
    assert not peer_lines(rows)[-1].ok and not peer_lines(rows)[0].ok
    frames = [dict(n=n, structure="counting_sort_grid", frames=20, threads=2, step_ms=goal_ms * 1.5, pairs_ms=1.0,
                   update_ms=1.0) for n, goal_ms in FRAME_GOALS_MS.items()]
    frames[0]["step_ms"] = 1.0
    assert [ln.ok for ln in frame_lines(frames)] == [True] + [False] * (len(FRAME_GOALS_MS) - 1)


def test_skew_goal_lines_cover_every_structure():
    from benchmarks.goals_speed import SKEW_EXEMPT, skew_lines
    from lessons_lib import STRUCTURES

    lines = skew_lines(n=400)
    assert len(lines) == len(set(STRUCTURES) - set(SKEW_EXEMPT))
    assert all(ln.measured.endswith("B)") and "x (" in ln.measured for ln in lines)

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

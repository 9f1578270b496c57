"""Stored results: what save_results writes, load_results reads back."""
import numpy as np
import pytest

from lessons_lib.data import load_results, save_results


def test_round_trip(tmp_path):
    rows = [{"scene": "random", "n": 10, "ms": 1.5}, {"scene": "xline", "n": 20, "ms": 2.25}]
    path = save_results(tmp_path / "t.csv", rows, what="a test", command="pytest")
    table = load_results(path)
    assert table.meta["what"] == "a test" and table.meta["command"] == "pytest"
    assert {"machine", "date"} <= set(table.meta)
    assert table["n"].dtype == np.int64 and table["ms"].dtype == np.float64
    assert table["scene"].tolist() == ["random", "xline"]
    assert len(table.where(scene="xline")) == 1
    assert table.where(n=[10, 20]).unique("scene") == ["random", "xline"]
    assert table.rows()[1] == {"scene": "xline", "n": 20, "ms": 2.25}


def test_bad_input_and_missing_file(tmp_path):
    with pytest.raises(ValueError, match="no rows"):
        save_results(tmp_path / "t.csv", [], what="x", command="y")
    with pytest.raises(ValueError, match="row 1 has columns"):
        save_results(tmp_path / "t.csv", [{"a": 1}, {"b": 2}], what="x", command="y")
    with pytest.raises(FileNotFoundError, match="make bench"):
        load_results(tmp_path / "nope.csv")
    with pytest.raises(KeyError, match="no column 'zz'"):
        save_results(tmp_path / "t.csv", [{"a": 1}], what="x", command="y")
        load_results(tmp_path / "t.csv")["zz"]


def test_reads_the_stored_quadtree_results():
    table = load_results("quadtree_scaling")
    assert set(table.unique("structure")) == {"Quadtree", "NaiveQuadtree"}

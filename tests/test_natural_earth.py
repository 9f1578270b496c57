"""The shipped Natural Earth extract and the city-in-country join (lessons_lib.labs.natural_earth)."""
from __future__ import annotations

import numpy as np
import pytest

from lessons_lib.labs.natural_earth import cities_in_countries, load_cities, load_countries, point_in_rings


def test_files_load():
    countries = load_countries()
    names, pts = load_cities()
    assert len(countries) == 177 and len(names) == 243 and pts.shape == (243, 2)
    assert (np.abs(pts[:, 0]) <= 180).all() and (np.abs(pts[:, 1]) <= 90).all()
    for c in countries:
        b = c["bbox"]
        allpts = np.concatenate(c["rings"])
        assert b[0] == allpts[:, 0].min() and b[3] == allpts[:, 1].max()


def test_join_matches_brute_force_and_knows_capitals():
    countries = load_countries()
    names, pts = load_cities()
    j = cities_in_countries(countries, pts)
    brute_cand = {(i, k) for i, (x, y) in enumerate(pts.tolist()) for k, c in enumerate(countries)
                  if c["bbox"][0] <= x <= c["bbox"][2] and c["bbox"][1] <= y <= c["bbox"][3]}
    assert set(map(tuple, j.candidates.tolist())) == brute_cand
    assert set(map(tuple, j.confirmed.tolist())) <= brute_cand
    found = {names[i]: countries[k]["name"] for i, k in j.confirmed.tolist()}
    assert found["Paris"] == "France" and found["Tokyo"] == "Japan" and found["Brasília"] == "Brazil"
    assert 0 < j.precision < 1 and j.node_visits > len(pts)


def test_point_in_rings_even_odd():
    square = np.array([[0, 0], [10, 0], [10, 10], [0, 10.0]])
    hole = np.array([[3, 3], [6, 3], [6, 6], [3, 6.0]])
    assert point_in_rings((1, 1), [square]) and not point_in_rings((4, 4), [square, hole])
    assert not point_in_rings((20, 20), [square])


def test_missing_files(tmp_path):
    with pytest.raises(FileNotFoundError, match="extract_natural_earth.py"):
        load_countries(tmp_path)

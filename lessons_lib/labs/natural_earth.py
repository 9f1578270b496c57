"""Real data for lesson 10: Natural Earth countries and cities, and the join "which city lies in which country".

The data (public domain, Natural Earth 1:110m, version 2.0.0) ships in
``data/natural_earth/`` of the repository, extracted from the geopandas 0.14.4
wheel by ``data/natural_earth/extract_natural_earth.py`` (see ``data/README.md``).
Coordinates are longitude and latitude in degrees, used here as plain planar
x and y (a broad phase does not care about the Earth's curvature).

The join is the textbook two-phase pattern:

1. **broad phase**: an R-tree over the countries' bounding boxes finds, for
   each city, the countries whose box contains it (cheap, a superset);
2. **narrow phase**: an exact point-in-polygon test keeps the true ones.
"""
from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..base import STRUCTURES
from ..geometry import point_in_polygon
from ..data import DATA_DIR as _DATA

__all__ = ["DATA_DIR", "load_countries", "load_cities", "point_in_rings", "SpatialJoin", "cities_in_countries"]

#: Where the extracted files live (the repository's ``data/natural_earth``).
DATA_DIR = _DATA / "natural_earth"


def _path(name: str, data_dir) -> Path:
    p = Path(data_dir or DATA_DIR) / name
    if not p.exists():
        raise FileNotFoundError(f"{p} is missing: run python data/natural_earth/extract_natural_earth.py")
    return p


def load_countries(data_dir=None) -> list[dict]:
    """The 177 countries: dicts with ``name``, ``iso_a3``, ``continent``, ``pop_est``, ``bbox`` ((4,) float64
    array, degrees) and ``rings`` (list of ``(k, 2)`` float64 arrays).

    Raises ``FileNotFoundError`` naming the missing file.
    """
    raw = json.loads(_path("countries.json", data_dir).read_text(encoding="utf-8"))
    for c in raw:
        c["bbox"] = np.array(c["bbox"], np.float64)
        c["rings"] = [np.array(r, np.float64) for r in c["rings"]]
    return raw


def load_cities(data_dir=None) -> tuple[list[str], np.ndarray]:
    """The 243 populated places: names and ``(n, 2)`` float64 ``[lon, lat]`` in degrees."""
    with open(_path("cities.csv", data_dir), encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    return [r["name"] for r in rows], np.array([[float(r["lon"]), float(r["lat"])] for r in rows]).reshape(-1, 2)


def point_in_rings(point, rings) -> bool:
    """Is ``point`` inside the region bounded by ``rings`` (even-odd rule over all rings: parts and holes)?"""
    inside = False
    for r in rings:
        if len(r) >= 3 and point_in_polygon(point, r):
            inside = not inside
    return inside


@dataclass
class SpatialJoin:
    """Result of :func:`cities_in_countries`.

    Attributes
    ----------
    candidates : numpy.ndarray, shape (c, 2), int64
        ``(city, country)`` rows whose point lies in the country's bounding box.
    confirmed : numpy.ndarray, shape (k, 2), int64
        The candidates whose point lies in the country's polygon.
    node_visits : int
        Tree nodes entered by all the point queries.
    """

    candidates: np.ndarray
    confirmed: np.ndarray
    node_visits: int

    @property
    def precision(self) -> float:
        """Share of broad-phase candidates the narrow phase confirms."""
        return len(self.confirmed) / max(1, len(self.candidates))


def cities_in_countries(countries, points, structure: str = "bulk_rtree", **params) -> SpatialJoin:
    """Which point lies in which country: broad phase by an R-tree of boxes, narrow phase by polygons.

    Parameters
    ----------
    countries : list of dict
        As :func:`load_countries` returns (``bbox`` and ``rings`` used).
    points : array_like, shape (n, 2)
        ``[lon, lat]`` in degrees.
    structure : str
        A tree in :data:`lessons_lib.STRUCTURES` with ``query_visits`` (default ``"bulk_rtree"``).
    **params
        Its parameters.

    Returns
    -------
    SpatialJoin

    Notes
    -----
    One point query per city (O(log n + hits) each) then one polygon test per
    candidate (O(vertices)). Brute force would test every city against every
    polygon.
    """
    boxes = np.array([c["bbox"] for c in countries], np.float64).reshape(-1, 4)
    tree = STRUCTURES[structure].from_boxes(boxes, **params)
    pts = np.asarray(points, np.float64).reshape(-1, 2)
    cand, conf, visits = [], [], 0
    for i, (x, y) in enumerate(pts.tolist()):
        ids, v = tree.query_visits([x, y, x, y])
        visits += v
        for j in ids.tolist():
            cand.append((i, j))
            if point_in_rings((x, y), countries[j]["rings"]):
                conf.append((i, j))
    as_arr = lambda rows: np.array(rows, np.int64).reshape(-1, 2)  # noqa: E731
    return SpatialJoin(as_arr(cand), as_arr(conf), visits)

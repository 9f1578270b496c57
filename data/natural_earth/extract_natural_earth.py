"""Extract Natural Earth countries and cities from the geopandas 0.14.4 wheel into JSON and CSV.

Natural Earth (https://www.naturalearthdata.com) is in the public domain.
geopandas releases before 1.0 bundled two of its 1:110m layers as shapefiles,
``naturalearth_lowres`` (177 countries: name, ISO A3 code, continent,
population estimate, GDP estimate, polygons) and ``naturalearth_cities``
(243 populated places: name, point), both Natural Earth version 2.0.0 as
stated by the wheel's VERSION file. geopandas itself is BSD-3-Clause.

Usage (from the repository root; needs only pip and the standard library)::

    python data/natural_earth/extract_natural_earth.py            # pip downloads the wheel
    python data/natural_earth/extract_natural_earth.py WHEEL.whl  # or use one you have

Writes, next to this script:

``countries.json``
    A list of ``{"name", "iso_a3", "continent", "pop_est", "bbox", "rings"}``:
    ``bbox`` is ``[lon_min, lat_min, lon_max, lat_max]`` in degrees and
    ``rings`` every ring of every part (outer rings and holes), each a list of
    ``[lon, lat]`` vertices; the even-odd rule over all rings gives the
    country's area.
``cities.csv``
    ``name,lon,lat`` in degrees (WGS 84), one row per populated place.

The shapefile reader below handles only what these two files use: shape
types 1 (point) and 5 (polygon) and a dBASE III table of character and
numeric fields.
"""
from __future__ import annotations

import csv
import json
import struct
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
WHEEL = "geopandas==0.14.4"
PREFIX = "geopandas/datasets/"


def read_dbf(data: bytes, encoding: str) -> list[dict]:
    """Records of a dBASE III file as dicts of stripped strings (``encoding`` from the .cpg file)."""
    n_rec, header_len, rec_len = struct.unpack("<IHH", data[4:12])
    fields, pos = [], 32
    while data[pos] != 0x0D:
        name = data[pos:pos + 11].split(b"\x00")[0].decode("ascii")
        fields.append((name, data[pos + 16]))
        pos += 32
    rows = []
    for r in range(n_rec):
        rec = data[header_len + r * rec_len: header_len + (r + 1) * rec_len]
        off, row = 1, {}
        for name, width in fields:
            row[name] = rec[off:off + width].decode(encoding).strip()
            off += width
        rows.append(row)
    return rows


def read_shp(data: bytes) -> list:
    """Shapes of a .shp file: ``(x, y)`` for points, a list of rings for polygons."""
    shapes, pos = [], 100
    while pos < len(data):
        _, words = struct.unpack(">ii", data[pos:pos + 8])
        body = data[pos + 8: pos + 8 + 2 * words]
        pos += 8 + 2 * words
        kind = struct.unpack("<i", body[:4])[0]
        if kind == 1:
            shapes.append(struct.unpack("<2d", body[4:20]))
        elif kind == 5:
            n_parts, n_points = struct.unpack("<2i", body[36:44])
            parts = list(struct.unpack(f"<{n_parts}i", body[44:44 + 4 * n_parts])) + [n_points]
            xy = struct.unpack(f"<{2 * n_points}d", body[44 + 4 * n_parts: 44 + 4 * n_parts + 16 * n_points])
            pts = [[round(xy[2 * k], 6), round(xy[2 * k + 1], 6)] for k in range(n_points)]
            shapes.append([pts[a:b] for a, b in zip(parts[:-1], parts[1:])])
        else:
            raise ValueError(f"shape type {kind} is not handled by this small reader")
    return shapes


def layer(wheel: zipfile.ZipFile, name: str):
    base = f"{PREFIX}{name}/{name}"
    encoding = wheel.read(base + ".cpg").decode("ascii").strip()
    return read_shp(wheel.read(base + ".shp")), read_dbf(wheel.read(base + ".dbf"), encoding)


def main(argv: list[str]) -> None:
    if argv:
        wheel_path = Path(argv[0])
    else:
        tmp = Path(tempfile.mkdtemp())
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", WHEEL, "-d", str(tmp)], check=True)
        wheel_path = next(tmp.glob("geopandas-*.whl"))
    with zipfile.ZipFile(wheel_path) as wheel:
        version = wheel.read(f"{PREFIX}naturalearth_cities/naturalearth_cities.VERSION.txt").decode().strip()
        shapes, rows = layer(wheel, "naturalearth_lowres")
        countries = []
        for rings, row in zip(shapes, rows):
            xs = [p[0] for r in rings for p in r]
            ys = [p[1] for r in rings for p in r]
            countries.append({
                "name": row["name"], "iso_a3": row["iso_a3"], "continent": row["continent"],
                "pop_est": float(row["pop_est"]), "bbox": [min(xs), min(ys), max(xs), max(ys)], "rings": rings,
            })
        (HERE / "countries.json").write_text(json.dumps(countries, separators=(",", ":")) + "\n", encoding="utf-8")
        points, rows = layer(wheel, "naturalearth_cities")
        with open(HERE / "cities.csv", "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["name", "lon", "lat"])
            for (x, y), row in zip(points, rows):
                w.writerow([row["name"], f"{x:.6f}", f"{y:.6f}"])
    print(f"Natural Earth {version} from {wheel_path.name}: {len(countries)} countries, {len(points)} cities")


if __name__ == "__main__":
    main(sys.argv[1:])

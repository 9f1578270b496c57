"""What one lesson draws, steps through and measures: helpers longer than a notebook cell.

One module per topic, named like :mod:`lessons_lib.checks`: ``n_squared`` and
``two_clusters`` (lesson 01), ``grids`` (02-03), ``quadtrees`` (04-05),
``loose`` (06-07), ``sweep`` (08), ``rtrees`` (09-10), ``natural_earth``
(10, 13), ``sim`` and ``sim_player`` (12), ``choosing`` (13).

Labs may use everything below them (structures, core, drawing, widgets); no
structure imports a lab. They are imported on demand, e.g.
``from lessons_lib.labs.grids import draw_grid``.
"""

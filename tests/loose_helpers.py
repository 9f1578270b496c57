"""What the tests of lessons 06-07's structures share: a long random operation driver.

Used by test_loose_quadtree.py, test_loose_tight_grid.py and test_point_grid.py.
"""
from __future__ import annotations

import numpy as np

from bp_strategies import filter_query, model_pairs
from grid_invariants import check_grid


def check_against(bp, model, queries=(), *, exact=False):
    """Invariants (``exact`` after a cleanup), then pairs and queries equal to the definition."""
    if not hasattr(bp, "check_invariants"):  # the grids: their invariants live in grid_invariants.py
        check_grid(bp, exact)
    elif exact:
        bp.check_invariants(exact=True)
    else:
        bp.check_invariants()
    np.testing.assert_array_equal(bp.pairs(), model_pairs(model))
    ids = np.array(sorted(model), dtype=np.int64)
    boxes = np.array([model[i] for i in sorted(model)], dtype=np.float64).reshape(-1, 4)
    for q in queries:
        np.testing.assert_array_equal(bp.query(q), filter_query(ids, boxes, q), err_msg=f"query {q}")


def random_box(rng, span=100.0, *, max_size=12, giants=True):
    """Integer-valued boxes (touching is common), points and segments, sometimes a giant or a far box."""
    r = rng.random()
    if giants and r < 0.03:
        return [-30.0, -30.0, 150.0, 140.0]  # larger than the world
    if r < 0.06:
        x = float(rng.choice([-1e6, 1e6]))
        return [x, x, x + 3.0, x + 2.0]  # far outside
    if r < 0.09:
        return [50.0, 50.0, 50.0, 50.0]  # coincident points
    x, y = rng.integers(-5, int(span)), rng.integers(-5, int(span))
    w = 0 if rng.random() < 0.15 else rng.integers(0, max_size)
    h = 0 if rng.random() < 0.15 else rng.integers(0, max_size)
    return [float(x), float(y), float(x + w), float(y + h)]


def run_sequence(bp, seed, *, steps=600, exact_check="cleanup", **box_options):
    """Random insert / remove / update / update_many / cleanup against a dict, checked along the way.

    After every cleanup the structure must pass its invariants with ``exact=True``
    (no stale growth) when ``exact_check == "cleanup"``. Returns the model.
    """
    rng = np.random.default_rng(seed)
    model: dict[int, list[float]] = {}
    next_id = 0
    queries = [[0, 0, 50, 50], [50, 50, 50, 50], [-1e7, -1e7, 1e7, 1e7], [1e6, 1e6, 1e6 + 1, 1e6 + 1]]
    for step in range(steps):
        op = rng.random()
        exact = False
        if op < 0.33 or not model:
            b = random_box(rng, **box_options)
            bp.insert(next_id, b)
            model[next_id] = b
            next_id += 1
        elif op < 0.5:
            i = int(rng.choice(list(model)))
            bp.remove(i)
            del model[i]
        elif op < 0.7:
            i = int(rng.choice(list(model)))
            o = model[i]
            if rng.random() < 0.7:
                d = rng.uniform(-3, 3, 2)
                b = [o[0] + d[0], o[1] + d[1], o[2] + d[0], o[3] + d[1]]
            else:
                b = random_box(rng, **box_options)
            bp.update(i, b)
            model[i] = b
        elif op < 0.9:
            k = int(rng.integers(1, len(model) + 1))
            ids = rng.choice(list(model), size=k, replace=False)
            new = []
            for i in ids.tolist():
                d = rng.uniform(-6, 6, 2)
                o = model[i]
                new.append([o[0] + d[0], o[1] + d[1], o[2] + d[0], o[3] + d[1]] if rng.random() < 0.85
                           else random_box(rng, **box_options))
            bp.update_many(ids, new)
            for i, b in zip(ids.tolist(), new):
                model[i] = [float(v) for v in b]
        else:
            bp.cleanup()
            exact = exact_check == "cleanup"
        if exact or step % 20 == 0:
            check_against(bp, model, queries, exact=exact)
    check_against(bp, model, queries)
    return model

"""Shared drivers for the tree tests (R-tree, R*-tree, bulk R-tree, k-d tree).

:func:`random_sequence` runs a long random mix of insert / remove / update /
update_many / cleanup on a structure, checking the structure's own invariants
after every operation and its answers against brute force every few steps.
"""
from __future__ import annotations

import numpy as np

from lessons_lib import brute_force_pairs


def random_box(rng, span=200.0):
    """Integer boxes (touching is common), some points and segments, a few far away."""
    if rng.random() < 0.03:
        c = float(rng.choice([-1e6, 1e6]))
        return [c, c, c + float(rng.integers(0, 3)), c + float(rng.integers(0, 3))]
    x, y = float(rng.integers(-5, int(span))), float(rng.integers(-5, int(span)))
    w = 0.0 if rng.random() < 0.1 else float(rng.integers(0, 20))
    h = 0.0 if rng.random() < 0.1 else float(rng.integers(0, 20))
    return [x, y, x + w, y + h]


def check_answers(bp, model, rng):
    ids = np.array(sorted(model), dtype=np.int64)
    boxes = np.array([model[i] for i in ids], dtype=np.float64).reshape(-1, 4)
    np.testing.assert_array_equal(bp.pairs(), ids[brute_force_pairs(boxes)] if len(ids) else np.empty((0, 2)))
    for _ in range(3):
        q = np.array(random_box(rng, 240.0))
        hit = (boxes[:, 0] <= q[2]) & (q[0] <= boxes[:, 2]) & (boxes[:, 1] <= q[3]) & (q[1] <= boxes[:, 3])
        np.testing.assert_array_equal(bp.query(q), ids[hit])


def random_sequence(bp, steps=400, seed=0, check_every=25):
    """Drive ``bp`` with random operations; invariants after each one, answers every ``check_every``."""
    rng = np.random.default_rng(seed)
    ids0, boxes0 = bp.items()
    model: dict[int, list[float]] = dict(zip(ids0.tolist(), boxes0.tolist()))
    next_id = int(ids0.max()) + 1 if len(ids0) else 0
    for step in range(steps):
        r = rng.random()
        if r < 0.45 or len(model) < 3:
            b = random_box(rng)
            bp.insert(next_id, b)
            model[next_id] = b
            next_id += 1
        elif r < 0.75:
            i = int(rng.choice(list(model)))
            bp.remove(i)
            del model[i]
        elif r < 0.9:
            i = int(rng.choice(list(model)))
            b = random_box(rng)
            bp.update(i, b)
            model[i] = b
        elif r < 0.97:
            k = int(rng.integers(1, len(model) + 1))
            ids = rng.choice(list(model), size=k, replace=False)
            new = [random_box(rng) for _ in ids]
            bp.update_many(ids, new)
            model.update(zip(ids.tolist(), new))
        else:
            bp.cleanup()
        bp.check_invariants()
        if step % check_every == 0:
            check_answers(bp, model, rng)
    # empty it completely
    for i in list(model):
        bp.remove(i)
        del model[i]
        bp.check_invariants()
    assert len(bp) == 0 and bp.pairs().shape == (0, 2) and bp.query([-1e9, -1e9, 1e9, 1e9]).shape == (0,)
    return bp

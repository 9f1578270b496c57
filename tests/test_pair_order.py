"""lessons_lib.core.pair_order: canonical_pairs equals normalize_pairs of the ids, whatever the id -> slot map."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lessons_lib.core.elements import ElementTable
from lessons_lib.core.pair_order import canonical_pairs, normalize_pairs


def table(ids, holes=()):
    """A table holding ``ids`` (any order, any values), then with the ids in ``holes`` removed."""
    t = ElementTable()
    for i in ids:
        t.add(int(i), np.zeros(4))
    for i in holes:
        t.discard(int(i))
    return t


def random_slot_pairs(rng, live, k):
    a = rng.choice(live, k)
    b = rng.choice(live, k)
    keep = a != b
    return np.column_stack([a[keep], b[keep]])


@pytest.mark.parametrize("kind", ["identity", "identity with holes", "shuffled ids", "huge and negative ids"])
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("k", [2000, 25])  # more pairs than elements, and fewer
def test_equals_normalize_pairs_of_the_ids(kind, seed, k):
    rng = np.random.default_rng(seed)
    n = 300
    if kind == "identity":
        t = table(range(n))
    elif kind == "identity with holes":
        t = table(range(n), holes=rng.choice(n, 40, replace=False))
    elif kind == "shuffled ids":
        t = table(rng.permutation(n))
    else:
        t = table(rng.choice(np.arange(-10**15, 10**15, 10**9), n, replace=False), holes=[])
    assert t.ids_are_slots == kind.startswith("identity")
    live = t.live_slots()
    sp = random_slot_pairs(rng, live, k)  # repeats included: they must be kept
    for dtype in (np.int64, np.int32, np.uint16):
        got = canonical_pairs(sp.astype(dtype), t)
        np.testing.assert_array_equal(got, normalize_pairs(t.ids[sp]))
        assert got.dtype == np.int64 and got.shape == (len(sp), 2)


@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30)), max_size=60), st.booleans())
def test_hypothesis_small(pairs, shuffled):
    ids = np.arange(31)[::-1] * 7 - 50 if shuffled else np.arange(31)
    t = table(ids)
    sp = np.array([p for p in pairs if p[0] != p[1]], dtype=np.int64).reshape(-1, 2)
    np.testing.assert_array_equal(canonical_pairs(sp, t), normalize_pairs(t.ids[sp]))


@pytest.mark.parametrize("shuffled", [False, True])
def test_bad_slot_pairs_show_plainly(shuffled):
    t = table([3, 1, 2, 0] if shuffled else range(4), holes=[2])
    assert canonical_pairs(np.empty((0, 2), np.int64), t).shape == (0, 2)
    with pytest.raises(ValueError, match="itself"):
        canonical_pairs([[0, 1], [1, 1]], t)
    with pytest.raises(ValueError, match="negative slot"):
        canonical_pairs([[0, 1], [-1, 3]], t)
    dead = [s for s in range(4) if not t.alive[s]][0]
    got = canonical_pairs([[dead, 0]], t)  # a dead slot: falls back to the ids stored there, unsorted bug visible
    np.testing.assert_array_equal(got, normalize_pairs(t.ids[[[dead, 0]]]))


@pytest.mark.parametrize("ids", ["identity", "shuffled"])
def test_long_partner_lists_are_sorted_too(ids):
    """Dense scenes give an element hundreds of partners, repeated pairs included."""
    rng = np.random.default_rng(5)
    n = 60
    t = table(range(n) if ids == "identity" else rng.permutation(n) * 7)
    live = np.flatnonzero(t.alive[: t.high_water])
    sp = random_slot_pairs(rng, live, 5000)  # ~80 partners per element, many repeated pairs
    id_pairs = t.ids[sp]
    np.testing.assert_array_equal(canonical_pairs(sp, t), normalize_pairs(id_pairs))

"""The shared element table: slots, the free list, and the id -> slot lookup with and without a map."""
import numpy as np
import pytest

from lessons_lib.core.elements import ElementTable, exchange_changed

BOX = np.array([0.0, 0.0, 1.0, 1.0])


def boxes(k):
    return np.tile(BOX, (k, 1))


def test_identity_ids_need_no_map():
    t = ElementTable()
    slots = t.add_many(np.arange(100), boxes(100))
    assert np.array_equal(slots, np.arange(100))
    assert t._map is None and len(t) == 100
    t.discard(5)
    assert 5 not in t and t._map is None
    assert t.add(5, BOX) == 5 and t._map is None          # the free slot 5 comes back to id 5
    assert np.array_equal(t.slots_of(np.array([3, 5, 99])), [3, 5, 99])


def test_an_id_in_another_slot_builds_the_map():
    t = ElementTable()
    t.add_many(np.arange(10), boxes(10))
    t.discard(3)
    slot = t.add(1_000_000_000_000, BOX)                    # reuses slot 3
    assert slot == 3 and t._map is not None
    assert t.slot(1_000_000_000_000) == 3 and 3 not in t
    assert np.array_equal(t.slots_of(np.array([0, 1_000_000_000_000, 9])), [0, 3, 9])
    t.clear()
    assert t._map is None and len(t) == 0


@pytest.mark.parametrize("ids", [np.array([5, 3, 9]), np.array([-1, -2]), np.array([2**62, 0])])
def test_add_many_with_any_ids(ids):
    t = ElementTable()
    slots = t.add_many(ids, boxes(len(ids)))
    assert len(t) == len(ids)
    assert np.array_equal(t.slots_of(ids), slots)
    assert np.array_equal(t.ids[slots], ids)


def test_add_many_after_a_bulk_load_and_with_holes():
    t = ElementTable()
    t.add_many(np.arange(4), boxes(4))
    t.add_many(np.arange(4, 8), boxes(4))                   # still the identity
    assert t._map is None
    t.discard(2)
    slots = t.add_many(np.array([2, 100]), boxes(2))       # fills the hole, then a new slot
    assert sorted(slots.tolist()) == [2, 8]
    assert t.slot(2) == 2 and t.slot(100) == 8


@pytest.mark.parametrize(
    "ids, message",
    [(np.array([1, 1]), "more than once"), (np.array([7, 2]), "already stored")],
)
def test_add_many_rejects_repeats_and_present_ids_storing_nothing(ids, message):
    t = ElementTable()
    t.add_many(np.arange(3), boxes(3))
    with pytest.raises(ValueError, match=message):
        t.add_many(ids, boxes(len(ids)))
    assert len(t) == 3 and 7 not in t


def test_unknown_ids_are_key_errors():
    t = ElementTable()
    t.add_many(np.arange(3), boxes(3))
    with pytest.raises(KeyError, match="unknown id 4"):
        t.slots_of(np.array([0, 4]))
    with pytest.raises(KeyError, match="unknown id -1"):
        t.slot(-1)
    with pytest.raises(ValueError, match="already stored"):
        t.add(2, BOX)


def test_exchange_changed_writes_and_reports_only_the_changed_rows():
    table = np.arange(24, dtype=np.float64).reshape(6, 4)
    slots = np.array([4, 1, 2], np.int64)
    new = table[slots].copy()
    new[1, 3] += 0.5  # slot 1 moves
    new[2] = [-1.0, -1.0, 0.0, 0.0]  # slot 2 too
    before = table.copy()
    changed, old = exchange_changed(table, slots, new)
    assert changed.tolist() == [1, 2]
    np.testing.assert_array_equal(old, before[[1, 2]])
    np.testing.assert_array_equal(table[slots], new)
    np.testing.assert_array_equal(table[[0, 3, 5]], before[[0, 3, 5]])
    changed, old = exchange_changed(table, slots, new)  # the same boxes again: nothing
    assert changed.shape == (0,) and old.shape == (0, 4)

"""The indexed free list of lesson 05: O(1) erase anywhere, holes reused, indices stable."""
from __future__ import annotations

import numpy as np
import pytest

from lessons_lib.core.freelist import FREE_MARK, FreeList, fl_alloc_block, fl_erase_block, fl_holes


def test_insert_erase_reuse():
    fl = FreeList(width=2, capacity=2)
    a, b, c = fl.insert([10, 11]), fl.insert([20, 21]), fl.insert([30, 31])
    assert (a, b, c) == (0, 1, 2) and fl.range() == 3 and len(fl) == 3
    fl.erase(b)
    assert fl.holes() == [1] and fl[0] == [10, 11] and fl[2] == [30, 31]  # indices stay valid
    assert fl.data[1, 1] == FREE_MARK
    fl.erase(a)
    assert fl.holes() == [0, 1] and len(fl) == 1
    assert fl.insert([40, 41]) == 0  # last erased, first reused
    assert fl.insert([50, 51]) == 1
    assert fl.insert([60, 61]) == 3  # no hole left: append
    assert fl.live() == [0, 1, 2, 3] and fl[3] == [60, 61]


def test_width_one_and_growth():
    fl = FreeList()
    idx = [fl.insert(v) for v in range(100)]
    assert idx == list(range(100)) and fl.data.shape[0] >= 100
    for i in range(0, 100, 3):
        fl.erase(i)
    assert len(fl) == 66 and fl[1] == 1
    again = [fl.insert(-v) for v in range(34)]
    assert sorted(again) == list(range(0, 100, 3)) and fl.range() == 100


def test_random_sequences_match_a_dict():
    rng = np.random.default_rng(0)
    fl, model = FreeList(width=1), {}
    for _ in range(2000):
        if model and rng.random() < 0.45:
            i = int(rng.choice(list(model)))
            fl.erase(i)
            del model[i]
        else:
            v = int(rng.integers(0, 1000))
            i = fl.insert(v)
            assert i not in model
            model[i] = v
        assert len(fl) == len(model)
    assert {i: fl[i] for i in fl.live()} == model
    assert set(fl.holes()).isdisjoint(model) and len(fl.holes()) + len(model) == fl.range()


def test_blocks_of_four():
    arr = np.full((4, 2), -1, dtype=np.int32)
    meta = np.array([0, -1], dtype=np.int64)
    arr, a = fl_alloc_block(arr, meta, 4)
    arr, b = fl_alloc_block(arr, meta, 4)
    assert (a, b) == (0, 4) and arr.shape[0] >= 8
    fl_erase_block(arr, meta, 0, 4)
    assert fl_holes(arr, meta) == [0] and (arr[0:4, 1] == FREE_MARK).all()
    arr, c = fl_alloc_block(arr, meta, 4)
    assert c == 0 and meta[1] == -1


def test_errors():
    fl = FreeList(width=2)
    with pytest.raises(ValueError, match="2 field"):
        fl.insert([1])
    with pytest.raises(ValueError, match="int32"):
        fl.insert([1, 2**31])
    i = fl.insert([1, 2])
    with pytest.raises(IndexError, match="outside"):
        fl.erase(5)
    fl.erase(i)
    with pytest.raises(IndexError, match="already a hole"):
        fl.erase(i)
    with pytest.raises(IndexError, match="not a live"):
        fl[i]
    with pytest.raises(TypeError):
        fl.erase(1.0)
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="width"):
            FreeList(width=bad)
    with pytest.raises(ValueError, match="capacity"):
        FreeList(capacity=0)
    fl.clear()
    assert fl.range() == 0 and fl.holes() == [] and "FreeList" in repr(fl)


def test_free_list_stepper_frames():
    from lessons_lib.labs.quadtrees import free_list_stepper

    st = free_list_stepper([("insert", 7), ("insert", 8), ("insert", 9), ("erase", 1), ("erase", 0), ("insert", 5)])
    assert len(st) == 7
    assert st.label(5) == "erase index 0: it becomes the first hole"
    assert st.label(6) == "insert 5 -> index 0"
    assert st.png(4)[:4] == b"\x89PNG"
    with pytest.raises(ValueError, match="step 1"):
        free_list_stepper([("push", 1)])

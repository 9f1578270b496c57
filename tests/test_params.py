"""One rule for bad constructor parameters, over every registered structure.

The interface (:class:`lessons_lib.base.BroadPhase`) documents ``ValueError`` for
a bad parameter. Whatever the structure, a non-integer where an integer is
meant, a negative, zero (where zero means nothing), NaN, infinity, a string or
a bool raises ``ValueError`` naming the parameter, from the constructor and
from ``from_boxes`` alike.
"""
from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

from lessons_lib import STRUCTURES, make_scene
from lessons_lib.core.params import check_choice, check_flag, check_int, check_number, check_positive

#: Parameters that are real numbers (everything else numeric is an integer).
FLOAT_PARAMS = {"cell_size", "half_size", "reinsert_fraction", "margin", "displacement_multiplier", "refit_fraction"}
#: Parameters for which 0 is a meaningful value.
ZERO_OK = {"max_depth", "axis", "sort_axis", "half_size", "reinsert_fraction", "margin", "displacement_multiplier",
           "refit_fraction"}
#: Parameters chosen by name.
CHOICE_PARAMS = {"method", "split", "hash", "split_axis"}
#: True/False parameters.
FLAG_PARAMS = {"incremental", "parallel"}


def _bad_values(name):
    if name in FLAG_PARAMS:
        return [1, "yes", None, np.float64(1.0)]
    if name in CHOICE_PARAMS:
        return ["no such choice", 3, True]
    common = [-1, math.nan, "8", True, [8]]
    if name in FLOAT_PARAMS:
        return common + [math.inf, -math.inf] + ([] if name in ZERO_OK else [0, 0.0])
    return common + [2.5, 8.0, np.float32(4)] + ([] if name in ZERO_OK else [0])


def _cases():
    for sname, cls in sorted(STRUCTURES.items()):
        for pname, p in inspect.signature(cls.__init__).parameters.items():
            if pname in ("self", "world") or p.kind is not p.KEYWORD_ONLY:
                continue
            for bad in _bad_values(pname):
                yield pytest.param(sname, pname, bad, id=f"{sname}-{pname}={bad!r}")


def test_every_parameter_is_covered():
    known = FLOAT_PARAMS | CHOICE_PARAMS | FLAG_PARAMS | {
        "capacity", "max_depth", "max_entries", "min_entries", "max_cells", "parent_factor",
        "grandparent_factor", "tight_factor", "table_size", "max_box_cells", "axis", "sort_axis"}
    seen = {n for cls in STRUCTURES.values() for n, p in inspect.signature(cls.__init__).parameters.items()
            if n not in ("self", "world") and p.kind is not p.VAR_KEYWORD}
    assert seen <= known, f"parameters this test does not know yet: {sorted(seen - known)}"


@pytest.mark.parametrize("structure, param, bad", list(_cases()))
def test_bad_parameter_raises_value_error_naming_it(structure, param, bad):
    cls = STRUCTURES[structure]
    with pytest.raises(ValueError, match=param):
        cls(**{param: bad})
    with pytest.raises(ValueError, match=param):
        cls.from_boxes(make_scene("random", 20), **{param: bad})


def test_the_validators_themselves():
    assert check_int("k", np.int32(3), 1) == 3 and type(check_int("k", np.int64(3), 1)) is int
    for bad in (2.5, 3.0, "3", True, None, math.nan):
        with pytest.raises(ValueError, match="k must be an integer"):
            check_int("k", bad, 1)
    with pytest.raises(ValueError, match=r"k must be an integer in 1..4, got 5"):
        check_int("k", 5, 1, 4)
    assert check_positive("s", 2) == 2.0
    for bad in (0, -1, math.nan, math.inf, "2", True, None):
        with pytest.raises(ValueError, match="s must be a positive"):
            check_positive("s", bad)
    assert check_number("f", 0, 0.0, 0.5) == 0.0
    with pytest.raises(ValueError, match=r"f must be a finite number in \[0, 0.5\], got 0.6"):
        check_number("f", 0.6, 0.0, 0.5)
    assert check_choice("a", np.int64(1), (0, 1)) == 1
    for bad in (True, 1.0, "1", None):
        with pytest.raises(ValueError, match="a must be one of 0, 1"):
            check_choice("a", bad, (0, 1))
    assert check_flag("f", np.bool_(True)) is True
    with pytest.raises(ValueError, match="f must be True or False"):
        check_flag("f", 1)


@pytest.mark.parametrize("structure", ["rtree", "rstar_tree", "bulk_rtree"])
def test_a_fan_out_that_cannot_be_allocated_is_refused_before_allocating(structure):
    from lessons_lib.structures.rtree_nodes import MAX_FAN_OUT

    with pytest.raises(ValueError, match=rf"max_entries must be an integer in 2\.\.{MAX_FAN_OUT}, got 1000000000"):
        STRUCTURES[structure](max_entries=10**9)
    STRUCTURES[structure](max_entries=MAX_FAN_OUT)  # the largest accepted fan-out is allocated at once

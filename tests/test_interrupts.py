"""An interrupt never leaves a structure half-changed.

A student pressing "Interrupt kernel" sends SIGINT. These tests deliver SIGINT at every
Python-level step of each mutating call (a trace function raises the signal at the k-th
line of the library executed) on every registered structure, then check that the call finished, the
KeyboardInterrupt came right after it, and the structure is exactly what the call
without an interrupt gives: same ids and boxes, same pairs as brute force, its own
invariants intact (or, for an interrupt that lands before the call begins, exactly the
structure as it was).
"""
from __future__ import annotations

import signal

import numpy as np
import pytest

from lessons_lib import STRUCTURES, make_scene
from lessons_lib.core.interrupts import deferring, uninterrupted
from lessons_lib.structures.brute_force import brute_force_pairs

from interrupt_helpers import count_lines, interrupt_at

pytestmark = pytest.mark.usefixtures("sigint_raises")  # (conftest: SIGINT raises, even in a background job)

POINTS = 40  # injection points tried per call, spread over its steps


def _populated(name):
    boxes = make_scene("random", 40, seed=5)
    bp = STRUCTURES[name].from_boxes(boxes)
    for i in (3, 7, 11):
        bp.remove(i)
    return bp


OPERATIONS = {
    "insert": lambda bp: bp.insert(100, [10.0, 10.0, 60.0, 40.0]),
    "remove": lambda bp: bp.remove(5),
    "update": lambda bp: bp.update(6, [300.0, 200.0, 420.0, 330.0]),
    "update_many": lambda bp: bp.update_many([0, 1, 2], [[0, 0, 50, 50], [30, 30, 90, 70], [700, 500, 790, 590]]),
    "cleanup": lambda bp: bp.cleanup(),
    "clear": lambda bp: bp.clear(),
}


def _state(bp):
    ids, boxes = bp.items()
    return len(bp), ids, boxes


def _same(a, b) -> bool:
    return a[0] == b[0] and np.array_equal(a[1], b[1]) and np.array_equal(a[2], b[2])


@pytest.mark.parametrize("op", list(OPERATIONS))
@pytest.mark.parametrize("name", sorted(STRUCTURES))
def test_an_interrupt_at_any_step_takes_effect_after_the_call(name, op):
    before = _state(_populated(name))
    expected = _populated(name)
    OPERATIONS[op](expected)
    after = _state(expected)
    counted = _populated(name)  # (the op above compiled what it calls: the lines counted now are the op's own)
    steps = count_lines(lambda: OPERATIONS[op](counted))
    for k in sorted(set(np.linspace(1, max(1, steps), POINTS).astype(int).tolist())):
        bp = _populated(name)
        raised, interrupted = interrupt_at(k, lambda: OPERATIONS[op](bp))
        assert not deferring()
        n, ids, boxes = state = _state(bp)
        where = f"{name}.{op}, SIGINT at line {k} of {steps}"
        assert interrupted == raised, f"{where}: the interrupt was lost"
        assert _same(state, after) or _same(state, before), f"{where}: neither the state before nor after the call"
        np.testing.assert_array_equal(bp.pairs(), ids[brute_force_pairs(boxes)].reshape(-1, 2), err_msg=where)
        if hasattr(bp, "check_invariants"):
            bp.check_invariants()


def test_outside_a_call_an_interrupt_is_immediate_and_handlers_are_restored():
    before = signal.getsignal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt):
        signal.raise_signal(signal.SIGINT)
    calls = []

    @uninterrupted
    def step():
        signal.raise_signal(signal.SIGINT)
        calls.append("finished")  # runs: the interrupt waits for the end of the call

    with pytest.raises(KeyboardInterrupt):
        step()
    assert calls == ["finished"] and signal.getsignal(signal.SIGINT) is before and not deferring()


def test_an_error_inside_the_call_still_restores_the_handler():
    before = signal.getsignal(signal.SIGINT)

    @uninterrupted
    def failing():
        raise ValueError("bad input")

    with pytest.raises(ValueError, match="bad input"):
        failing()
    assert signal.getsignal(signal.SIGINT) is before

"""SIGINT injected at the library's own lines: the harness of tests/test_interrupts.py and of the
loose/tight grid's oversize-list interrupt test.

A trace function counts the lines of ``lessons_lib`` that a call executes, then runs the call
again raising SIGINT at its ``k``-th such line (as a student pressing "Interrupt kernel" would).
"""
from __future__ import annotations

import pathlib
import signal
import sys

import lessons_lib

LIBRARY = str(pathlib.Path(lessons_lib.__file__).parent)  # steps are the library's own lines


def library_line(frame, event) -> bool:
    return event == "line" and frame.f_code.co_filename.startswith(LIBRARY)


def count_lines(fn) -> int:
    """How many lines of the library ``fn()`` executes."""
    n = 0

    def tracer(frame, event, arg):
        nonlocal n
        if library_line(frame, event):
            n += 1
        return tracer

    sys.settrace(tracer)
    try:
        fn()
    finally:
        sys.settrace(None)
    return n


def interrupt_at(k: int, fn) -> tuple[bool, bool]:
    """Run ``fn`` raising SIGINT at its ``k``-th line: (was the signal raised, did a KeyboardInterrupt come out)."""
    seen, raised = 0, False

    def tracer(frame, event, arg):
        nonlocal seen, raised
        if library_line(frame, event):
            seen += 1
            if seen == k:
                raised = True
                signal.raise_signal(signal.SIGINT)
        return tracer

    sys.settrace(tracer)
    try:
        fn()
    except KeyboardInterrupt:
        return raised, True
    finally:
        sys.settrace(None)
    return raised, False

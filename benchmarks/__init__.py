"""The course's own speed goals, measured outside the library (``python -m benchmarks.<suite>``).

These suites compare ``lessons_lib`` with code that is not part of the project (kept in a
folder beside the repository, never copied into it). They are run by hand or by the
benchmark tooling, never in ``make test``; a suite whose outside code is missing prints
one ``skipped: ...`` line and exits 0.

* :mod:`benchmarks.anchor_c`  the quadtree answer set's own C/C++ (compact quadtree,
  loose/tight double grid) beside every lessons_lib structure, on the same frames of
  moving agents.
"""

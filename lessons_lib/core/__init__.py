"""Plumbing every structure shares; no lesson is about it.

* :mod:`~lessons_lib.core.jit`         numba on or off (``LESSONS_JIT=0`` runs kernels as plain Python)
* :mod:`~lessons_lib.core.elements`    the element table: ids and boxes stored once, by slot
* :mod:`~lessons_lib.core.pair_order`  the canonical pair order every ``pairs()`` returns
* :mod:`~lessons_lib.core.buffers`     growable output buffers of the compiled kernels
* :mod:`~lessons_lib.core.freelist`    the indexed free list (lesson 05) the quadtrees allocate from
* :mod:`~lessons_lib.core.params`      validation of constructor parameters, one rule for every structure
* :mod:`~lessons_lib.core.boxes`       the closed overlap test every kernel uses, and the box-column names XMIN .. YMAX

Nothing here imports the structures, the lesson helpers, drawing or widgets.
"""

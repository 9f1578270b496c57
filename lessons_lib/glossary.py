"""The words the course and the library use, one meaning each.

``TERMS`` maps each term to its definition; ``print(glossary())`` shows them all.

AABB
    Axis-aligned bounding box, stored as ``[xmin, ymin, xmax, ymax]`` float64 in
    world units. Boxes are *closed*: two boxes that only touch (share an edge or
    a corner) intersect.
broad phase / narrow phase
    The broad phase finds candidate pairs cheaply from bounding boxes; the narrow
    phase tests each candidate's exact shapes. Every structure here is a broad phase.
element
    One stored box with its id: what a structure indexes.
id
    The caller's integer name of an element (int64), chosen freely and unique in a
    structure. ``query`` and ``pairs`` answer in ids.
slot
    Where an element lives in the structure's element table
    (:class:`lessons_lib.core.elements.ElementTable`): a dense index from 0, reused
    after a removal. Kernels work on slots; the interface translates to ids. While
    the ids are ``0 .. n-1`` in order, slot and id are the same number.
element node
    In the compact quadtree (lesson 05), one entry of a leaf's list: (slot, next).
    An element overlapping several leaves has one element node in each.
capacity
    How many elements a leaf holds before it splits: the quadtrees' and the k-d
    tree's leaf size (``capacity=8``). Not a node size of an R-tree: that is M.
max_entries, min_entries (M, m)
    Guttman's fan-out of an R-tree node: at most M entries, at least m (except the
    root). Used by ``RTree``, ``RStarTree`` and ``BulkRTree``.
max depth
    The deepest level a tree may split to (root at depth 0).
leaf
    A tree node without children: the one that holds elements.
cell
    A square of a grid, of side ``cell_size`` world units. A tight cell is one of
    the fixed squares; a loose cell's bounds grow to cover the elements whose
    centres lie in it (lesson 07).
loose bounds
    The bounding box of what a loose node or loose cell holds, rounded outwards to
    float32 (lessons 06-07).
reference cell
    The one cell (or partition) allowed to report a pair: the cell holding the
    lower-left corner of the two boxes' intersection. It reports every pair once
    without a set of pairs seen.
canonical pair order
    The order every ``pairs()`` returns: rows ``(id_a, id_b)`` with
    ``id_a < id_b``, rows sorted lexicographically, no repeats
    (:mod:`lessons_lib.core.pair_order`). Two structures agree exactly when their
    arrays are equal.
endpoint, sweep axis
    In sweep and prune (lesson 08), each box gives two endpoints (its min and its
    max) on the sweep axis; sorting them finds the overlapping intervals.
split heuristic
    How an R-tree divides an overfull node: exhaustive, quadratic, linear
    [Guttman1984], or R*'s margin-then-area split [Beckmann1990].
Morton code, Hilbert value
    A cell's position along the Z-order curve (bits of x and y interleaved) or
    the Hilbert curve: one integer that keeps nearby cells mostly near in order.
cleanup
    Deferred maintenance a structure does when asked (``cleanup()``), not on
    every removal: collapsing empty quadtree leaves, refitting loose bounds.
"""
from __future__ import annotations

import re

__all__ = ["TERMS", "glossary"]


def _parse(doc: str) -> dict[str, str]:
    terms, current = {}, None
    for line in doc.split("\n\n", 1)[1].splitlines():
        if line and not line.startswith(" "):
            current = line.strip()
            terms[current] = ""
        elif current and line.strip():
            terms[current] = (terms[current] + " " + line.strip()).strip()
    return {k: re.sub(r"\s+", " ", v) for k, v in terms.items() if v}


#: term -> definition, in the order above.
TERMS: dict[str, str] = _parse(__doc__)


def glossary() -> str:
    """Every term and its definition, one paragraph each."""
    return "\n\n".join(f"{k}\n    {v}" for k, v in TERMS.items())

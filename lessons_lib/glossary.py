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
replication, load balance
    Of a partitioning (lesson 15): boxes received by all partitions / boxes given
    (1.0 when no box crosses a border), and boxes in the largest partition / the
    mean per partition (1.0 when all are equal).
Amdahl's law
    When part of a job cannot be shared among workers, no number of workers makes
    the job faster than that part allows: with a share s that cannot be shared,
    at most 1/s times faster.
pickling
    Turning a Python object into bytes with the ``pickle`` module, so that another
    process (or machine) can rebuild it: how Dask's workers pass data around.
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
counting sort, giant
    The counting-sort grid (lesson 02, section 7) files each box under the cell of
    its lower-left corner and sorts all boxes by cell in three passes (count per
    cell, running sums, placement), so each cell's boxes are one contiguous range.
    A giant is a box covering more than two columns or rows of cells: it is kept
    on a list of its own and searched for like a query box.
key, key comparison
    In the spatial hash (lesson 03), each list node stores its cell as one int64
    key. Cells sharing a bucket are told apart by comparing keys; the pair search
    sorts each bucket's nodes by key, one comparison at a time.
fat AABB (fat box)
    In the dynamic AABB tree, a leaf's box: the element's box enlarged by ``margin``
    on every side (and optionally stretched along its last move). An element that
    moves inside its fat box changes nothing in the tree.
sibling
    In the dynamic AABB tree, the node a new leaf is paired with under a new parent,
    chosen so that the tree's surface-area cost grows least.
surface area heuristic (SAH), surface-area cost
    The sum of the internal nodes' surface areas (in 2D, their perimeters): the
    expected number of nodes a random query visits is proportional to it [MacDonald1990].
inherited cost, branch and bound
    In the dynamic AABB tree's sibling search (lesson 12), a node's inherited cost is
    what its ancestors' perimeters grow by when they take in the new box. Branch and
    bound skips a node's children when their least possible cost (the inherited cost,
    plus the node's own growth, plus the new box's perimeter) cannot beat the best found.
rotation
    In the dynamic AABB tree, swapping a node's child with one of its grandchildren
    when that lowers the surface-area cost [Kopta2012].
refit
    Recomputing node boxes bottom-up from their children without changing the tree's shape.
move buffer
    The elements changed since the last ``pairs()``: only they query the tree again,
    and the other elements' pairs are kept.
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

"""The common interface of every broad-phase structure, and the registry.

A lesson swaps structures by changing one name::

    from lessons_lib import STRUCTURES, make_scene
    boxes = make_scene("random", 1000)
    bp = STRUCTURES["brute_force"].from_boxes(boxes)
    bp.pairs()                      # (k, 2) int64, rows i < j, sorted

:class:`BroadPhase` is a template: its public methods validate input once, keep
the shared :class:`~lessons_lib.core.elements.ElementTable` (id -> slot, boxes stored
once) and call a few small hooks that each structure implements over slots.
A failed call leaves the structure exactly as it was, and an interrupt (Ctrl-C,
JupyterLab's "Interrupt kernel") waits until the call has finished
(:mod:`lessons_lib.core.interrupts`), so no call is ever left half-done.

Conventions
-----------
* Boxes are closed ``[xmin, ymin, xmax, ymax]`` float64 (touching counts).
* Ids are Python or numpy integers (not bool), stored as int64.
* ``query`` returns sorted unique int64 ids; ``pairs`` returns a ``(k, 2)``
  int64 array with ``id_a < id_b`` in each row and rows sorted
  lexicographically: the same convention as
  :func:`lessons_lib.structures.brute_force.brute_force_pairs`.
* The ``world`` is a hint for sizing cells and roots. It never limits
  correctness: a box outside it is still stored and found.
* Threads: reads (``query``, ``pairs``, ``len``, ``in``) may run from several
  threads at once on one instance (a Dask threaded scheduler, a
  ``ThreadPoolExecutor``): no structure shares scratch between calls, and a
  lazy rebuild runs once, under a lock (:mod:`lessons_lib.core.scratch`;
  ``tests/test_concurrent_reads.py``). Changes (``insert``, ``remove``,
  ``update``, ``update_many``, ``cleanup``, ``clear``) are for one thread at a
  time, with no read running meanwhile.
"""
from __future__ import annotations

import abc
from typing import ClassVar

import numpy as np

from .core.elements import ElementTable, exchange_boxes, exchange_changed
from .core.interrupts import uninterrupted
from .geometry import ARTICLE_WORLD, as_box, as_boxes, box_extent
from .core.pair_order import canonical_pairs, normalize_pairs

__all__ = ["BroadPhase", "STRUCTURES", "as_ids", "register", "resolve_structure", "normalize_pairs", "world_for"]

#: Every structure by short name, e.g. ``STRUCTURES["brute_force"]``.
STRUCTURES: dict[str, type["BroadPhase"]] = {}


def register(name: str):
    """Class decorator adding a :class:`BroadPhase` subclass to :data:`STRUCTURES`."""

    def deco(cls):
        if name in STRUCTURES and STRUCTURES[name] is not cls:
            raise ValueError(f"structure name {name!r} is already registered to {STRUCTURES[name].__name__}")
        cls.name = name
        STRUCTURES[name] = cls
        return cls

    return deco


def resolve_structure(structure) -> type["BroadPhase"]:
    """A registered structure class from its :data:`STRUCTURES` name, or the class itself.

    Raises
    ------
    ValueError
        An unknown name; the message lists the registered ones.
    TypeError
        Neither a name nor a :class:`BroadPhase` subclass.
    """
    if isinstance(structure, str):
        if structure not in STRUCTURES:
            raise ValueError(f"unknown structure {structure!r}; registered: {', '.join(sorted(STRUCTURES))}")
        return STRUCTURES[structure]
    if isinstance(structure, type) and issubclass(structure, BroadPhase):
        return structure
    raise TypeError(f"structure must be a name in STRUCTURES or a BroadPhase subclass, got {structure!r}")


def _check_id(id_) -> int:
    if isinstance(id_, (bool, np.bool_)) or not isinstance(id_, (int, np.integer)):
        raise TypeError(f"id must be an integer, got {id_!r} of type {type(id_).__name__}")
    v = int(id_)
    if not -(2**63) <= v < 2**63:
        raise ValueError(f"id {v} does not fit in int64")
    return v


def as_ids(ids, *, name: str = "ids") -> np.ndarray:
    """Validate many element ids the way ``insert``/``update``/``remove`` check one; return int64 ``(k,)``.

    Accepts integer arrays (signed or unsigned) and sequences of Python or numpy integers.

    Raises
    ------
    TypeError
        Booleans, floats, strings or other non-integers (an empty sequence of any dtype is fine).
    ValueError
        Not one-dimensional, or an id outside int64 (an unsigned value above ``2**63 - 1``).
    """
    if isinstance(ids, (list, tuple)):
        return _checked_ids(ids, name)
    arr = np.asarray(ids)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size == 0:
        return np.zeros(0, np.int64)
    kind = arr.dtype.kind
    if kind == "i":
        return arr.astype(np.int64, copy=False)
    if kind == "u":
        if arr.dtype.itemsize == 8 and (arr > np.uint64(2**63 - 1)).any():
            raise ValueError(f"id {int(arr[arr > np.uint64(2**63 - 1)][0])} does not fit in int64")
        return arr.astype(np.int64)
    if kind == "O":
        return _checked_ids(arr.tolist(), name)
    raise TypeError(f"{name} must be integers, got dtype {arr.dtype}")


def _checked_ids(values, name: str) -> np.ndarray:
    """A sequence of single ids, each checked by :func:`_check_id`, as int64 ``(k,)``."""
    out = np.empty(len(values), dtype=np.int64)
    for k, v in enumerate(values):
        if isinstance(v, (list, tuple, np.ndarray)):
            raise ValueError(f"{name} must be one-dimensional, got a nested sequence at index {k}")
        try:
            out[k] = _check_id(v)
        except TypeError as exc:
            raise TypeError(f"{name} must be integers: {exc}") from None
    return out


def world_for(boxes: np.ndarray) -> np.ndarray:
    """A world box covering ``boxes`` (validated ``(n, 4)``), at least 1 unit wide and tall.

    With no boxes, the article's ``[0, 0, 800, 600]``.
    """
    if len(boxes) == 0:
        return ARTICLE_WORLD.copy()
    w = box_extent(boxes)
    for lo, hi in ((0, 2), (1, 3)):
        if 0.5 * w[hi] - 0.5 * w[lo] < 0.5:  # halves first: no overflow across the whole float range
            mid = 0.5 * w[lo] + 0.5 * w[hi]
            w[lo], w[hi] = mid - 0.5, mid + 0.5
    return w


class BroadPhase(abc.ABC):
    """Abstract broad phase: a dynamic set of AABBs keyed by integer id.

    Parameters
    ----------
    world : array_like, shape (4,), optional
        ``[xmin, ymin, xmax, ymax]`` the structure is laid out for, in world
        units, with positive width and height. ``None``: the article's
        800 x 600 world (``from_boxes`` infers it from the boxes instead).

    Subclasses take further keyword-only parameters, all with defaults, and
    implement the hooks ``_insert``, ``_remove``, ``_query``, ``_pairs`` and
    ``_clear`` over *slots* of ``self.elements``; optionally ``_update``,
    ``_build``, ``_cleanup``, ``_nbytes`` and ``regions``.

    Raises (for every public method)
    --------------------------------
    TypeError
        An id that is not an integer.
    ValueError
        A bad box (wrong shape, NaN/inf, inverted), a duplicate id on insert,
        a bad parameter.
    KeyError
        An unknown id on remove or update.

    In each case the structure is left unchanged.
    """

    #: Short registry name, set by :func:`register`.
    name: ClassVar[str] = ""
    #: False for structures whose ``_update_many`` ignores the old boxes (it then gets a ``(0, 4)`` array).
    update_reads_old: ClassVar[bool] = True
    #: True for structures to which an element whose box did not change is no news: ``update_many``
    #: then passes ``_update_many`` only the elements whose box changed (with their old boxes), so a
    #: frame where most bodies rest costs one pass over the boxes plus what moved.
    update_changed_only: ClassVar[bool] = False
    #: Public calls that may change the structure (a lazy rebuild in ``pairs`` too): an interrupt
    #: waits for their end, in every subclass that overrides them as well. ``query`` is hot and
    #: reads only: a structure whose query rebuilds lazily marks that step ``@uninterrupted``.
    MUTATING: ClassVar[tuple[str, ...]] = ("insert", "remove", "update", "update_many", "pairs", "clear", "cleanup")

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name in cls.MUTATING:
            method = cls.__dict__.get(name)
            if callable(method) and not getattr(method, "__uninterrupted__", False):
                setattr(cls, name, uninterrupted(method))

    def __init__(self, *, world=None):
        if world is None:
            w = ARTICLE_WORLD.copy()
        else:
            w = as_box(world, name="world")
            if not (w[2] > w[0] and w[3] > w[1]):
                raise ValueError(f"world must have positive width and height, got {w.tolist()}")
        self.world = w
        self.elements = ElementTable()

    # -- construction -----------------------------------------------------
    @classmethod
    def from_boxes(cls, boxes, **params) -> "BroadPhase":
        """Build a structure holding ``boxes`` under ids ``0 .. n-1``.

        Parameters
        ----------
        boxes : array_like, shape (n, 4)
            Closed AABBs ``[xmin, ymin, xmax, ymax]``.
        **params
            Keyword parameters of the structure. Those left at ``None`` that
            can be read off the boxes are, as the class notes say: the world
            (by default the bounding box of ``boxes``), a grid's cell size, ...

        Raises
        ------
        ValueError
            Bad boxes (the message names the row) or parameters.
        """
        b = as_boxes(boxes)  # checked once here; the hook below gets the checked array
        cls._params_from_boxes(b, params)
        bp = cls(**params)
        slots = bp.elements.add_many(None, b)  # ids 0 .. n-1, equal to the slots of a new table
        bp._build(slots)
        return bp

    @classmethod
    def _params_from_boxes(cls, boxes: np.ndarray, params: dict) -> None:
        """Fill, in ``params``, what ``from_boxes`` reads off the validated ``boxes``: here ``world=None``."""
        if params.get("world") is None:
            params["world"] = world_for(boxes)

    # -- the interface ----------------------------------------------------
    @uninterrupted
    def insert(self, id, box) -> None:
        """Add element ``id`` with AABB ``box``; ``ValueError`` if ``id`` is present."""
        i = _check_id(id)
        b = as_box(box)
        if i in self.elements:
            raise ValueError(f"id {i} is already stored; use update() to move it")
        slot = self.elements.add(i, b)
        try:
            self._insert(slot, b)
        except BaseException:
            self.elements.discard(i)
            raise

    @uninterrupted
    def remove(self, id) -> None:
        """Remove element ``id``; ``KeyError`` if it is not stored."""
        i = _check_id(id)
        slot = self.elements.slot(i)
        self._remove(slot, self.elements.boxes[slot].copy())
        self.elements.discard(i)

    @uninterrupted
    def update(self, id, box) -> None:
        """Move element ``id`` to a new AABB ``box`` ("move" in [SO-quadtree])."""
        i = _check_id(id)
        b = as_box(box)
        slot = self.elements.slot(i)
        old = self.elements.boxes[slot].copy()
        self.elements.boxes[slot] = b
        self._update(slot, old, b)

    @uninterrupted
    def update_many(self, ids, boxes) -> None:
        """Move many elements at once: the per-frame path of a simulation.

        Parameters
        ----------
        ids : array_like of int, shape (k,)
            Stored ids, each at most once.
        boxes : array_like, shape (k, 4)
            Their new closed AABBs.

        Raises
        ------
        ValueError
            Bad boxes (naming the row), ``ids`` and ``boxes`` of different
            lengths, an id repeated.
        TypeError
            Non-integer ids (booleans, floats, strings), as :func:`as_ids`.
        KeyError
            An unknown id.

        Every check runs before anything moves, so on error nothing has changed.
        Structures with a bulk kernel override ``_update_many``.
        """
        b = as_boxes(boxes)
        ids_arr = as_ids(ids)  # the same checks as update()'s, for every id
        if len(ids_arr) != len(b):
            raise ValueError(f"ids must have shape ({len(b)},) to match boxes, got shape {ids_arr.shape}")
        slots = self.elements.distinct_slots(ids_arr)
        if self.update_changed_only:  # one pass: the changed rows written, their old boxes out
            changed, old = exchange_changed(self.elements.boxes, slots, b)
            self._update_many(slots[changed], old, b[changed])
            return
        old = exchange_boxes(self.elements.boxes, slots, b, self.update_reads_old)  # one pass: old out, new in
        self._update_many(slots, old, b)

    def query(self, box) -> np.ndarray:
        """Ids of stored elements whose box intersects the closed ``box``.

        Returns
        -------
        numpy.ndarray, shape (m,), dtype int64, sorted ascending, no repeats.
        """
        b = as_box(box, name="query box")
        slots = np.asarray(self._query(b), dtype=np.int64)
        return np.sort(self.elements.ids[slots])

    @uninterrupted
    def pairs(self) -> np.ndarray:
        """Every pair of stored elements whose boxes intersect.

        Returns
        -------
        numpy.ndarray, shape (k, 2), dtype int64
            Rows ``(id_a, id_b)`` with ``id_a < id_b``, sorted lexicographically.
        """
        return canonical_pairs(self._pairs(), self.elements)

    @uninterrupted
    def clear(self) -> None:
        """Remove every element (keeps the parameters and the world)."""
        self.elements.clear()
        self._clear()

    @uninterrupted
    def cleanup(self) -> None:
        """Deferred maintenance (e.g. collapsing empty quadtree leaves). No-op by default."""
        self._cleanup()

    def __len__(self) -> int:
        return len(self.elements)

    def __contains__(self, id) -> bool:
        try:
            return _check_id(id) in self.elements
        except (TypeError, ValueError):
            return False

    def memory_bytes(self) -> int:
        """Bytes held by the structure's own flat arrays, element table included."""
        return self.elements.nbytes() + int(self._nbytes())

    def items(self) -> tuple[np.ndarray, np.ndarray]:
        """Stored ``(ids, boxes)`` sorted by id: ``(n,)`` int64 and ``(n, 4)`` float64."""
        slots = self.elements.live_slots()
        ids = self.elements.ids[slots]
        order = np.argsort(ids, kind="stable")
        return ids[order], self.elements.boxes[slots[order]].copy()

    def regions(self) -> tuple[np.ndarray, np.ndarray]:
        """Cells or nodes to draw: ``(m, 4)`` float64 rectangles and ``(m,)`` int64 depths.

        The default is the world itself at depth 0; grids return their cells and
        trees their nodes (depth 0 = root).
        """
        return self.world.reshape(1, 4).copy(), np.zeros(1, dtype=np.int64)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(n={len(self)}, world={self.world.tolist()})"

    # -- hooks ------------------------------------------------------------
    @abc.abstractmethod
    def _insert(self, slot: int, box: np.ndarray) -> None:
        """Index the element already written to ``self.elements`` at ``slot``."""

    @abc.abstractmethod
    def _remove(self, slot: int, box: np.ndarray) -> None:
        """Unindex the element at ``slot`` whose box is ``box`` (still stored)."""

    @abc.abstractmethod
    def _query(self, box: np.ndarray) -> np.ndarray:
        """Slots whose boxes intersect ``box``, each once, any order."""

    @abc.abstractmethod
    def _pairs(self) -> np.ndarray:
        """``(k, 2)`` slot pairs that intersect, each unordered pair once."""

    @abc.abstractmethod
    def _clear(self) -> None:
        """Drop all indexing state (the element table is already cleared)."""

    def _update(self, slot: int, old: np.ndarray, new: np.ndarray) -> None:
        """Re-index ``slot`` after its box changed from ``old`` to ``new`` (already written)."""
        self._remove(slot, old)
        self._insert(slot, new)

    def _update_many(self, slots: np.ndarray, old: np.ndarray, new: np.ndarray) -> None:
        """Re-index many slots whose boxes changed (already written); default one by one.

        The default first puts the old boxes back, then writes each new box just
        before re-indexing it, so the element table always matches the index
        (a split during one re-insert must not see the new box of an element
        that is still indexed under its old one).
        """
        boxes = self.elements.boxes
        boxes[slots] = old
        for k, s in enumerate(slots.tolist()):
            boxes[s] = new[k]
            self._update(s, old[k], new[k])

    def _build(self, slots: np.ndarray) -> None:
        """Index freshly added ``slots`` (bulk load); default inserts one by one."""
        for s in slots.tolist():
            self._insert(s, self.elements.boxes[s])

    def _cleanup(self) -> None:
        pass

    def _nbytes(self) -> int:
        return 0

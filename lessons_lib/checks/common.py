"""What every exercise check shares: calling the learner's code safely, validating what it
returns, formatting numbers, and the inputs that catch the usual mistakes.

A check must not be passable by a wrong answer, so everything here is strict:

* :func:`run_student` calls the learner's function on *copies* of the inputs, reports a
  stub (``NotImplementedError``), an exception, a forgotten ``return`` (``None``) and an
  input changed in place, each with a sentence a student can act on;
* the ``expect_*`` functions validate a result instead of coercing it: a float where a
  cell index is meant, a duplicate where a set is meant, a pair written ``(j, i)`` are
  reported, not silently fixed;
* :func:`num` prints a number with all the digits that tell ``1.000001`` from ``1``;
* :func:`adversarial_boxes` and :func:`random_world` give irregular inputs: worlds whose
  origin is not 0 and whose size is not a multiple of the cell, non-integer coordinates,
  touching and zero-area boxes, duplicates, negative coordinates, boxes outside the world,
  the empty input;
* :func:`proven_hint` and :class:`Mistakes` give a hint only when the answer proves the
  mistake it names (otherwise a message states the input, the expected and the returned
  value, and stops);
* :class:`RowReads` records which rows of an array the learner's code reads, so a check
  can tell a walk of the structure from a search over everything.
"""
from __future__ import annotations

import copy
import weakref

import numpy as np

__all__ = [
    "CheckFailed",
    "call_student",
    "run_student",
    "num",
    "fmt",
    "expect_int",
    "expect_ints",
    "expect_number",
    "expect_pairs",
    "expect_ids",
    "as_pair_rows",
    "rect_box_cases",
    "adversarial_boxes",
    "random_world",
    "proven_hint",
    "Mistakes",
    "RowReads",
]


class CheckFailed(AssertionError):
    """An exercise check did not pass; the message says which input failed and what was expected."""


def _label(fn, name) -> str:
    return name or getattr(fn, "__name__", "your function")


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape
                and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind == "f"))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (set, frozenset, str, bytes, int, float, complex, bool, np.generic, type(None))):
        return bool(a == b) or (a != a and b != b)
    return True  # other objects (a structure, a function): not compared


#: The learner's functions that have returned something other than ``None`` (so a later ``None``
#: is a path without a ``return``, not a forgotten ``return``).
_RETURNED: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _returned_before(fn) -> bool:
    try:
        return fn in _RETURNED
    except TypeError:  # not weak-referenceable (a builtin): no memory
        return False


def _remember_return(fn) -> None:
    try:
        _RETURNED[fn] = True
    except TypeError:
        pass


def run_student(fn, *args, name: str | None = None, may_change=(), may_return_none: bool = False,
                case: str | None = None, track=None):
    """Call the learner's ``fn(*args)`` and return its result, or raise :class:`CheckFailed`.

    ``fn`` receives deep copies of ``args`` (so a wrong function cannot spoil the
    check's own data). Unless the argument's position is in ``may_change`` (for the
    exercises that must update an array in place), an argument changed by the call
    fails the check: clearing or sorting an input is a side effect the caller would
    not expect. ``case`` names the input (the check's case and its values): every
    failure raised here repeats it, so a crash says which input caused it. ``track``
    is the learner's own function when ``fn`` wraps it (it tells a forgotten
    ``return`` from a path that ends without one).

    Raises
    ------
    CheckFailed
        ``fn`` is still the stub (``NotImplementedError``), raised an exception (the
        original is chained, so its traceback shows), returned ``None`` (unless
        ``may_return_none``), or changed an input it should only read.
    """
    label = _label(track if track is not None and name is None else fn, name)
    on = f" on {case}" if case else ""
    given = [copy.deepcopy(a) for a in args]
    kept = [copy.deepcopy(a) for a in args]
    try:
        result = fn(*given)
    except NotImplementedError:
        raise CheckFailed(f"{label} is not written yet (it raised NotImplementedError): "
                          "replace the stub with your code.") from None
    except CheckFailed:
        raise
    except Exception as e:
        raise CheckFailed(f"{label} raised {type(e).__name__}: {e}{on}") from e
    key = track if track is not None else fn
    if result is None and not may_return_none:
        if _returned_before(key):
            raise CheckFailed(f"{label} returned None{on}, though it returned a value for other inputs: for this "
                              "one it ends without reaching a `return`, or returns a name that is still None.")
        raise CheckFailed(f"{label} returned None{on}: did you forget the `return` statement (or return a name "
                          "that is still None)?")
    if result is not None:
        _remember_return(key)
    for k, (before, after) in enumerate(zip(kept, given)):
        if k not in may_change and not _same(before, after):
            raise CheckFailed(f"{label} changed its argument number {k + 1} in place{on}; it should only read it "
                              "(work on a copy if you need to modify it).")
    return result


def call_student(fn, *args):
    """Call ``fn(*args)``, turning the stub's ``NotImplementedError`` into :class:`CheckFailed`.

    The lenient call of the first checks; new checks use :func:`run_student`, which also
    reports exceptions, a missing ``return`` and inputs changed in place.
    """
    try:
        return fn(*args)
    except NotImplementedError:
        raise CheckFailed(
            f"{getattr(fn, '__name__', 'your function')} is not written yet "
            "(it raised NotImplementedError): replace the stub with your code."
        ) from None


def num(v) -> str:
    """A number with every digit that matters: ``1.000001`` stays ``1.000001``, ``2.0`` prints ``2``."""
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    f = float(v)
    return str(int(f)) if f.is_integer() and abs(f) < 1e16 else repr(f)


def fmt(box) -> str:
    """A box or point as ``(x0, y0, x1, y1)`` with :func:`num`'s digits."""
    return "(" + ", ".join(num(v) for v in box) + ")"


def _kind(v) -> str:
    return f"{v!r} ({type(v).__name__})"


def expect_int(got, what: str, *, exact: bool = False):
    """``got`` as an ``int``; a float (even ``3.0``), a bool, a string or ``None`` fails, naming ``what``.

    With ``exact`` (the exercise asks for an ``int``), a NumPy integer fails too: ``np.int64(3)``
    is not a Python ``int`` (it overflows at 2**63, and JSON, ``isinstance`` and other code
    that expects an ``int`` refuse it).
    """
    if isinstance(got, (bool, np.bool_)) or not isinstance(got, (int, np.integer)):
        raise CheckFailed(f"{what} must be an integer, got {_kind(got)}")
    if exact and not isinstance(got, int):
        raise CheckFailed(f"{what} must be a Python int, got {got!r} of type numpy.{type(got).__name__}: the "
                          "exercise asks for an int (convert a NumPy integer with int(...))")
    return int(got)


def expect_ints(got, length: int, what: str, *, exact: bool = False) -> tuple[int, ...]:
    """``got`` as a tuple of ``length`` ints (a tuple, list or 1-D integer array); floats fail.

    With ``exact`` (the exercise asks for ints), NumPy integers fail too, and so does an array.
    """
    if isinstance(got, np.ndarray):
        if exact:
            raise CheckFailed(f"{what} must be a tuple of {length} ints, got a NumPy array (dtype {got.dtype}, "
                              f"shape {got.shape})")
        if got.ndim != 1 or not np.issubdtype(got.dtype, np.integer):
            raise CheckFailed(f"{what} must be {length} integers, got an array of dtype {got.dtype} "
                              f"and shape {got.shape}")
        got = got.tolist()
    if not isinstance(got, (tuple, list)) or len(got) != length:
        raise CheckFailed(f"{what} must be a tuple of {length} integers, got {got!r}")
    return tuple(expect_int(v, f"each value of {what}", exact=exact) for v in got)


def expect_number(got, what: str) -> float:
    """``got`` as a float; a bool, a string, ``None`` or NaN fails, naming ``what``."""
    if isinstance(got, (bool, np.bool_)) or not isinstance(got, (int, float, np.integer, np.floating)):
        raise CheckFailed(f"{what} must be a number, got {_kind(got)}")
    if got != got:
        raise CheckFailed(f"{what} is NaN")
    return float(got)


def expect_pairs(got, what: str, *, n: int | None = None, ordered: bool = True,
                 exact: bool = False) -> set[tuple[int, int]]:
    """``got`` (a list/tuple/set of ``(i, j)`` or a ``(k, 2)`` integer array) as a set of pairs.

    Fails on: non-integer entries, a pair that is not two values, ``i == j``, ``i > j``
    when ``ordered``, an index outside ``0 .. n-1`` when ``n`` is given, and a pair listed
    twice (in either order): a set of pairs has no repeats. With ``exact`` (the exercise asks
    for tuples of ints), the indices must be Python ints and an array is refused.
    """
    if isinstance(got, np.ndarray):
        if exact:
            raise CheckFailed(f"{what} must be a list of (i, j) tuples of ints, got a NumPy array (dtype {got.dtype}, "
                              f"shape {got.shape})")
        if got.size and (got.ndim != 2 or got.shape[1] != 2):
            raise CheckFailed(f"{what} must be (i, j) pairs; got an array of shape {got.shape}")
        if got.size and not np.issubdtype(got.dtype, np.integer):
            raise CheckFailed(f"{what} must hold integer indices, got an array of dtype {got.dtype}")
        rows = [tuple(r) for r in got.reshape(-1, 2).tolist()]
    elif isinstance(got, (list, tuple, set, frozenset)):
        rows = list(got)
    else:
        raise CheckFailed(f"{what} must be a list of (i, j) pairs, got {_kind(got)}")
    out, seen = set(), {}
    for r in rows:
        if not isinstance(r, (tuple, list, np.ndarray)) or len(r) != 2:
            raise CheckFailed(f"{what}: every pair must be two indices (i, j), got {r!r}")
        i, j = expect_int(r[0], f"an index in {what}", exact=exact), expect_int(r[1], f"an index in {what}", exact=exact)
        if i == j:
            raise CheckFailed(f"{what} pairs {i} with itself: a box is not a pair with itself")
        if ordered and i > j:
            raise CheckFailed(f"{what} contains ({i}, {j}): write each pair with the smaller index first")
        if n is not None and not (0 <= i < n and 0 <= j < n):
            raise CheckFailed(f"{what} contains ({i}, {j}), but the indices run from 0 to {n - 1}")
        key = (min(i, j), max(i, j))
        if key in seen:
            raise CheckFailed(f"{what} lists the pair {key} twice ({seen[key]} and {(i, j)}): each pair once")
        seen[key] = (i, j)
        out.add(key)
    return out


def expect_ids(got, what: str, *, exact: bool = False) -> list[int]:
    """``got`` (a list or 1-D integer array of ids) as a sorted list; floats and repeats fail.

    With ``exact`` (the exercise asks for a list of ints), the ids must be Python ints and an
    array is refused.
    """
    if isinstance(got, np.ndarray):
        if exact:
            raise CheckFailed(f"{what} must be a list of ints, got a NumPy array (dtype {got.dtype}, shape {got.shape})")
        if got.size and (got.ndim != 1 or not np.issubdtype(got.dtype, np.integer)):
            raise CheckFailed(f"{what} must be a 1-D array of integer ids, got dtype {got.dtype}, shape {got.shape}")
        got = got.tolist()
    if not isinstance(got, (list, tuple, set, frozenset)):
        raise CheckFailed(f"{what} must be a list of ids, got {_kind(got)}")
    ids = [expect_int(v, f"an id in {what}", exact=exact) for v in got]
    if len(set(ids)) != len(ids):
        dup = next(i for i in ids if ids.count(i) > 1)
        raise CheckFailed(f"{what} lists id {dup} more than once")
    return sorted(ids)


def as_pair_rows(got, n):
    """The pairs of lesson 01's ``all_pairs`` as a ``(k, 2)`` int64 array (shape, dtype and range checked).

    Older and looser than :func:`expect_pairs` (it does not refuse ``(j, i)`` or repeats,
    which lesson 01's check reports itself); new checks use :func:`expect_pairs`.
    """
    try:
        arr = np.asarray(list(got) if not isinstance(got, np.ndarray) else got)
    except TypeError:
        raise CheckFailed(f"all_pairs must return a list of (i, j) tuples, got {type(got).__name__}") from None
    if arr.size == 0:
        return np.empty((0, 2), np.int64)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise CheckFailed(f"all_pairs must return (i, j) pairs; got something of shape {arr.shape}")
    if not np.issubdtype(arr.dtype, np.integer):
        raise CheckFailed("all_pairs must return pairs of integer indices i, j (positions in the list of boxes)")
    if (arr < 0).any() or (arr >= n).any():
        raise CheckFailed(f"all_pairs returned an index outside 0..{n - 1}: {arr[((arr < 0) | (arr >= n)).any(1)][0].tolist()}")
    return arr.astype(np.int64)


def rect_box_cases(fixed, seed: int, *, margin: int, box_div: int, box_extra: int):
    """``fixed`` plus 300 seeded random ``(name, node rectangle, box)`` cases, coordinates as floats.

    Rectangles have even integer sides (so midlines are whole numbers); box corners
    fall up to ``margin`` outside the rectangle, box sides up to ``w // box_div + box_extra``.
    Too regular for new checks (a midpoint by ``//`` passes): use :func:`random_world`
    and non-integer rectangles instead.
    """
    rng = np.random.default_rng(seed)
    cases = list(fixed)
    for k in range(300):
        x0, y0 = rng.integers(-50, 50, 2)
        w, h = rng.integers(2, 20, 2) * 2
        bx, by = rng.integers(x0 - margin, x0 + w + margin), rng.integers(y0 - margin, y0 + h + margin)
        bw, bh = rng.integers(0, w // box_div + box_extra, 2)
        cases.append((f"random case {k}", (x0, y0, x0 + w, y0 + h), (bx, by, bx + bw, by + bh)))
    return [(name, tuple(float(v) for v in rect), tuple(float(v) for v in box)) for name, rect, box in cases]


def random_world(rng: np.random.Generator, cell_size: float | None = None) -> tuple[float, float, float, float]:
    """A world ``(xmin, ymin, xmax, ymax)`` with a non-zero, non-integer origin (sometimes negative) and,
    when ``cell_size`` is given, a width and height that are not multiples of it."""
    x0, y0 = rng.uniform(-300, 300, 2).round(2)
    w, h = rng.uniform(50, 400, 2).round(2)
    if cell_size is not None:
        w += 0.37 * cell_size if (w / cell_size).is_integer() else 0.0
        h += 0.61 * cell_size if (h / cell_size).is_integer() else 0.0
    return (float(x0), float(y0), float(x0 + w), float(y0 + h))


def adversarial_boxes(seed: int = 0, world=(0.0, 0.0, 100.0, 60.0)) -> list[tuple[str, np.ndarray]]:
    """Named ``(n, 4)`` float64 box sets that catch the usual mistakes, then seeded random ones.

    In order: the empty input, one box, two boxes touching at an edge, at a corner,
    zero-area boxes (a point on another's edge, a segment), exact duplicates, negative
    coordinates, boxes partly and wholly outside ``world``, boxes on exact cell-like
    borders, non-integer coordinates, boxes listed in no particular order; then ten
    random scenes with a non-integer origin inside and around ``world``.
    """
    x0, y0, x1, y1 = (float(v) for v in world)
    w, h = x1 - x0, y1 - y0
    cases = [
        ("no boxes at all", np.empty((0, 4))),
        ("a single box", np.array([[x0 + 1, y0 + 1, x0 + 5, y0 + 4]])),
        ("two boxes touching along an edge", np.array([[x0 + 1, y0 + 1, x0 + 4, y0 + 4], [x0 + 4, y0 + 2, x0 + 7, y0 + 3]])),
        ("two boxes touching at a corner", np.array([[x0 + 1, y0 + 1, x0 + 3, y0 + 3], [x0 + 3, y0 + 3, x0 + 5, y0 + 6]])),
        ("a point on another box's edge, and a segment crossing it",
         np.array([[x0 + 2, y0 + 2, x0 + 6, y0 + 6], [x0 + 6, y0 + 4, x0 + 6, y0 + 4], [x0 + 1, y0 + 5, x0 + 9, y0 + 5]])),
        ("three copies of the same box", np.array([[x0 + 3, y0 + 3, x0 + 8, y0 + 5]] * 3)),
        ("negative coordinates", np.array([[-7.5, -3.25, -2.0, 1.5], [-2.0, -1.0, 0.5, 0.5], [-30.0, -30.0, -29.0, -29.0]])),
        ("boxes partly and wholly outside the world",
         np.array([[x0 - 5, y0 - 5, x0 + 2, y0 + 2], [x1 - 1, y1 - 1, x1 + 9, y1 + 9], [x1 + 50, y0, x1 + 60, y0 + 3],
                   [x1 + 55, y0 + 1, x1 + 58, y0 + 2]])),
        ("boxes whose sides lie exactly on tenths of the world",
         np.array([[x0 + 0.1 * w, y0 + 0.1 * h, x0 + 0.2 * w, y0 + 0.2 * h],
                   [x0 + 0.2 * w, y0 + 0.2 * h, x0 + 0.3 * w, y0 + 0.3 * h],
                   [x0 + 0.2 * w, y0, x0 + 0.2 * w, y1]])),
        ("non-integer coordinates",
         np.array([[x0 + 1.25, y0 + 2.5, x0 + 3.125, y0 + 4.75], [x0 + 3.125, y0 + 0.5, x0 + 3.5, y0 + 2.5]])),
        ("boxes listed right to left", np.array([[x0 + 9, y0 + 1, x0 + 10, y0 + 2], [x0 + 5, y0 + 1, x0 + 9, y0 + 2],
                                                 [x0 + 1, y0 + 1, x0 + 5, y0 + 2]])),
    ]
    rng = np.random.default_rng(seed)
    for k in range(10):
        n = int(rng.integers(2, 60))
        lo = np.column_stack([rng.uniform(x0 - 0.1 * w, x1, n), rng.uniform(y0 - 0.1 * h, y1, n)])
        size = rng.uniform(0, 0.25, (n, 2)) * [w, h] * rng.choice([0.0, 1.0], (n, 1), p=[0.1, 0.9])
        cases.append((f"random scene {k} ({n} boxes)", np.column_stack([lo, lo + size])))
    return [(name, np.asarray(b, np.float64).reshape(-1, 4)) for name, b in cases]


def proven_hint(got, expected, candidates, same=None) -> str:
    """The hint of the one typical mistake whose answer is ``got``, else ``""``.

    ``candidates`` are ``(hint, what that mistake returns for this input)``. A hint is
    given only when the answer proves the mistake: the mistake's answer equals ``got``
    and differs from ``expected``, and no other mistake with another hint gives the same
    answer (then the input cannot tell them apart, and the message states the facts only).
    """
    same = same or (lambda a, b: a == b)
    hits = {hint for hint, wrong in candidates
            if wrong is not None and same(got, wrong) and not same(expected, wrong)}
    return hits.pop() if len(hits) == 1 else ""


class Mistakes:
    """The typical mistakes still possible for one learner's function, as the check's cases go by.

    Each case calls :meth:`passed` when the function answered it right: every mistake whose
    answer there would have been wrong is ruled out (the function does not make it). When a
    case fails, :meth:`hint` names the one remaining mistake that gives exactly the answer
    returned (:func:`proven_hint`); so two mistakes that agree on the failing input are told
    apart by the cases the function passed before it.
    """

    def __init__(self, same=None):
        self.same = same or (lambda a, b: a == b)
        self.ruled_out: set[str] = set()

    def passed(self, got, candidates) -> None:
        for hint, wrong in candidates:
            if wrong is not None and not self.same(got, wrong):
                self.ruled_out.add(hint)

    def hint(self, got, expected, candidates) -> str:
        return proven_hint(got, expected, [(h, w) for h, w in candidates if h not in self.ruled_out], self.same)


class RowReads(np.ndarray):
    """A 2-D array that records which rows the learner's code reads (indexing, iteration, ufuncs).

    ``RowReads(array, log)`` is a view of ``array``; every ``a[i]``, ``a[i, j]``, ``a[rows]``,
    ``a[:, j]``, iteration, ``tolist()``, ``copy()`` or NumPy operation on the whole array
    appends the row indices it touches to the list ``log`` (so a check can compare them with
    the rows a walk of the structure reaches). What the reads return are plain arrays, which
    record nothing.
    """

    def __new__(cls, array, log: list):
        obj = np.asarray(array).view(cls)
        obj._log = log
        return obj

    def __array_finalize__(self, obj):
        self._log = None  # arrays derived from this one (views, results) do not record

    def _all(self):
        if self._log is not None:
            self._log.extend(range(self.shape[0]))

    def __getitem__(self, idx):
        if self._log is not None:
            first = idx[0] if isinstance(idx, tuple) and idx else (slice(None) if isinstance(idx, tuple) else idx)
            try:
                rows = np.atleast_1d(np.arange(self.shape[0])[first])
            except (IndexError, TypeError, ValueError):
                rows = np.arange(self.shape[0])
            self._log.extend(rows.tolist())
        out = super().__getitem__(idx)
        return out.view(np.ndarray) if isinstance(out, np.ndarray) else out

    def __iter__(self):
        self._all()
        return iter(self.view(np.ndarray))

    def tolist(self):
        self._all()
        return self.view(np.ndarray).tolist()

    def copy(self, *args, **kwargs):
        self._all()
        return self.view(np.ndarray).copy(*args, **kwargs)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        plain = []
        for x in inputs:
            if isinstance(x, RowReads):
                x._all()
                x = x.view(np.ndarray)
            plain.append(x)
        if "out" in kwargs:
            kwargs["out"] = tuple(o.view(np.ndarray) if isinstance(o, RowReads) else o for o in kwargs["out"])
        return getattr(ufunc, method)(*plain, **kwargs)

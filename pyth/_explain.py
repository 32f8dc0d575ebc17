"""Tensor.explain(): a plain-text picture, for learners, of how a view reaches its storage.

A tensor is a view: element (i, j, ...) lives in storage cell
    offset + i*stride[0] + j*stride[1] + ...
The picture shows the view's geometry, the storage behind it (size, dtype, bytes, refcount,
allocator), which cells the view reaches (drawn cell by cell for small storages, summarised as
a range and a count for big ones) and the formula with a few worked examples.

Nothing from pyth is imported, so tensor.py can import this module without a cycle.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

DRAW_LIMIT = 64  # storages with at most this many cells are drawn cell by cell
CELLS_PER_LINE = 16  # cells per line of the drawing
EXACT_COUNT_LIMIT = 1 << 20  # walk at most this many elements to count reached cells exactly
_INDEX_NAMES = "ijklmn"


def _index_names(ndim: int) -> List[str]:
    """Names for the indices of an element: i, j, k, ... (i0, i1, ... past six dims)."""
    if ndim <= len(_INDEX_NAMES):
        return list(_INDEX_NAMES[:ndim])
    return [f"i{d}" for d in range(ndim)]


def _shape_text(sizes: Sequence[int]) -> str:
    """Sizes as the footer writes them: 2x3, or () for a 0-dim tensor."""
    return "x".join(str(s) for s in sizes) if sizes else "()"


def _cell_of(index: Sequence[int], offset: int, strides: Sequence[int]) -> int:
    """The storage cell of one element: offset + sum(index[d] * stride[d])."""
    return offset + sum(i * s for i, s in zip(index, strides))


def _cell_counts(sizes: Sequence[int], strides: Sequence[int], offset: int) -> Dict[int, int]:
    """How many elements of the view land in each cell (for views small enough to walk)."""
    import numpy as np

    cells = np.full((1,) * len(sizes), offset, dtype=np.int64)
    for d, (n, st) in enumerate(zip(sizes, strides)):
        shape = [1] * len(sizes)
        shape[d] = n
        cells = cells + (np.arange(n, dtype=np.int64) * st).reshape(shape)
    found, counts = np.unique(cells, return_counts=True)
    return dict(zip(found.tolist(), counts.tolist()))


def _distinct_cells(sizes: Sequence[int], strides: Sequence[int]) -> Optional[int]:
    """The number of distinct cells reached, when strides prove no two elements overlap.

    Dims with stride 0 (or size 1) add no cells. Sorted by stride, the remaining dims do not
    overlap when each stride exceeds the span of all smaller ones. None when that fails.
    """
    dims = sorted((st, n) for n, st in zip(sizes, strides) if n > 1 and st != 0)
    span = 0
    count = 1
    for st, n in dims:
        if abs(st) <= span:
            return None
        span += abs(st) * (n - 1)
        count *= n
    return count


def _cell_range(sizes: Sequence[int], strides: Sequence[int], offset: int) -> Tuple[int, int]:
    """The lowest and highest cell the view reaches (it must hold at least one element)."""
    low = offset + sum(min(0, st * (n - 1)) for n, st in zip(sizes, strides))
    high = offset + sum(max(0, st * (n - 1)) for n, st in zip(sizes, strides))
    return low, high


def _drawing(storage_size: int, counts: Dict[int, int]) -> List[str]:
    """Rows of cell indices with `^` under each reached cell (and hit counts when shared)."""
    width = max(len(str(max(storage_size - 1, 0))), 2)
    shared = any(c > 1 for c in counts.values())
    legend = "'^' marks a cell this view reaches"
    if shared:
        legend += "; times: how many elements share it"
    lines = [f"  storage cells ({legend}):"]
    for start in range(0, storage_size, CELLS_PER_LINE):
        cells = range(start, min(start + CELLS_PER_LINE, storage_size))
        marks = ("^" if c in counts else "." for c in cells)
        lines.append("  cell    " + " ".join(str(c).rjust(width) for c in cells))
        lines.append("  reached " + " ".join(m.rjust(width) for m in marks))
        if shared:
            times = (str(counts.get(c, ".")) for c in cells)
            lines.append("  times   " + " ".join(x.rjust(width) for x in times))
    if storage_size == 0:
        lines.append("  (the storage has no cells)")
    return lines


def _examples(sizes: Sequence[int]) -> List[Tuple[int, ...]]:
    """A few element indices worth working through: first, a step along each dim, the last."""
    ndim = len(sizes)
    picks = [tuple(0 for _ in sizes)]
    for d in range(ndim - 1, -1, -1):
        if sizes[d] > 1:
            picks.append(tuple(1 if e == d else 0 for e in range(ndim)))
    picks.append(tuple(n - 1 for n in sizes))
    unique: List[Tuple[int, ...]] = []
    for p in picks:
        if p not in unique:
            unique.append(p)
    return unique[:4]


def _formula_lines(sizes: Sequence[int], strides: Sequence[int], offset: int) -> List[str]:
    """The address formula, then worked examples."""
    if not sizes:
        return [f"the single element -> cell {offset} (the storage offset)"]
    names = _index_names(len(sizes))
    terms = " + ".join(f"{n}*{st}" for n, st in zip(names, strides))
    lines = [f"element ({', '.join(names)}) -> cell {offset} + {terms}"]
    if 0 in sizes:
        lines.append("  (no worked examples: the view has no elements)")
        return lines
    for index in _examples(sizes):
        steps = " + ".join(f"{i}*{st}" for i, st in zip(index, strides))
        cell = _cell_of(index, offset, strides)
        lines.append(f"  ({', '.join(str(i) for i in index)}) -> {offset} + {steps} = {cell}")
    return lines


def _expanded_lines(sizes: Sequence[int], strides: Sequence[int]) -> List[str]:
    """A note for each dim of stride 0: its elements all share one cell (an expanded view)."""
    lines = []
    for d, (n, st) in enumerate(zip(sizes, strides)):
        if st == 0 and n > 1:
            lines.append(f"note: dim {d} has stride 0 (expanded): its {n} entries share one cell,")
            lines.append("      so writing through one of them changes them all")
    return lines


def _reached_lines(
    sizes: Sequence[int], strides: Sequence[int], offset: int, storage_size: int, numel: int
) -> List[str]:
    """Which cells the view reaches: drawn for small storages, summarised for big ones."""
    counts = _cell_counts(sizes, strides, offset) if numel <= EXACT_COUNT_LIMIT else None
    if storage_size <= DRAW_LIMIT and counts is not None:
        lines = _drawing(storage_size, counts)
        if numel == 0:
            lines.append("  the view has no elements: it reaches no cell")
        return lines
    if numel == 0:
        return [f"  the view has no elements: it reaches none of the {storage_size} cells"]
    reached = len(counts) if counts is not None else _distinct_cells(sizes, strides)
    low, high = _cell_range(sizes, strides, offset)
    how_many = f"{reached}" if reached is not None else f"at most {min(numel, high - low + 1)}"
    return [
        f"  the view reaches {how_many} of the {storage_size} cells, "
        f"all within cells {low} .. {high}"
    ]


def _storage_facts(t) -> Tuple[int, Optional[int], str]:
    """The storage's cell count, C refcount (None if unreadable) and allocator name.

    The refcount is read before t.storage() is called: the Storage wrapper that call returns
    holds a reference of its own, which would otherwise be counted.
    """
    handle = getattr(t, "_h", None)
    refcount = None
    if handle is not None:
        try:
            refcount = int(handle.storage.refcount)
        except (AttributeError, TypeError):
            refcount = None
    storage = t.storage()
    try:
        allocator = storage.allocator_name()
    except AttributeError:
        allocator = "unknown"
    return len(storage), refcount, allocator


def explain(t) -> str:
    """The text of t.explain(): geometry, storage, the cells reached, and the address formula."""
    sizes = tuple(int(s) for s in t.size())
    strides = tuple(int(s) for s in t.stride())
    offset = int(t.storage_offset())
    numel = int(t.numel())
    storage_size, refcount, allocator = _storage_facts(t)
    itemsize = int(t.element_size())
    refcount_text = "?" if refcount is None else str(refcount)
    lines = [
        f"{t.type()} of size {_shape_text(sizes)} ({numel} element{'s' if numel != 1 else ''})",
        f"  sizes           {sizes}",
        f"  strides         {strides}",
        f"  storage offset  {offset}",
        f"  contiguous      {'yes' if t.is_contiguous() else 'no'}",
        (
            f"storage: {storage_size} cells of {t.dtype} = {storage_size * itemsize} bytes, "
            f"refcount {refcount_text}, allocator {allocator!r}"
        ),
    ]
    lines += _reached_lines(sizes, strides, offset, storage_size, numel)
    lines += _formula_lines(sizes, strides, offset)
    lines += _expanded_lines(sizes, strides)
    return "\n".join(lines)

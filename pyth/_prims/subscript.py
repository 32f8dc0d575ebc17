"""t[index] and t[index] = value, by numpy / PyTorch rules.

Strategy. Basic items (ints, slices with positive steps, None, ...) only change the geometry,
so they are folded into one (offset, sizes, strides) triple and become a single view. Advanced
items (integer index tensors or lists, bool masks) select arbitrary elements:
- One advanced item, the common case, goes to an indexing kernel on the view of the rest of the
  index (pyth/_prims/indexing.py): an integer index on one dim is index_select / index_copy_ /
  index_fill_ along that dim, a bool mask over some dims is masked_select / masked_scatter_ /
  masked_fill_ with the mask broadcast over the other dims.
- Several advanced items follow the general numpy rule: their indices are broadcast together,
  checked, and turned into element offsets into the storage, combined by numpy broadcasting with
  the offsets of the remaining basic dims; one C call gathers (or scatters) all elements at those
  offsets. Where the advanced dims go follows numpy: in place when they are adjacent, first
  otherwise.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from .. import dtypes as _dt
from .._errors import check
from .._th import ffi, lib
from .._ops import conflicts
from ..tensor import Tensor, _empty, c_sizes, wrap
from .creation import _flat_ints, tensor
from .index_forms import as_index
from .indexing import (index_copy_, index_fill_, index_select, masked_fill_, masked_scatter_,
                       masked_select)

_ADVANCED, _MASK = "advanced", "mask"
_OUTSIDE = "outside"  # an advanced index holding a value outside int64: always out of bounds
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


_INDEX_DTYPES = (_dt.int64, _dt.int32, _dt.uint8, _dt.bool_)


def _classify(item: Any) -> tuple[str, Any]:
    """(kind, normalised item) for one index item."""
    if item is None or item is Ellipsis:
        return ("none" if item is None else "ellipsis"), item
    if isinstance(item, bool):
        return "bool", item
    if isinstance(item, slice):
        return "slice", item
    if isinstance(item, Tensor):
        if item.dtype not in _INDEX_DTYPES:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        if item.dtype in (_dt.bool_, _dt.uint8):
            return _MASK, np.asarray(item.bool().numpy(), dtype=bool)
        return _ADVANCED, np.asarray(item.long().numpy(), dtype=np.int64)
    if isinstance(item, str):
        raise TypeError("new(): invalid data type 'str'")
    if isinstance(item, (list, tuple, range, np.ndarray)):
        arr = np.asarray(item)
        if arr.dtype == bool or arr.dtype == np.uint8 and isinstance(item, np.ndarray):
            return _MASK, arr.astype(bool)
        if arr.size == 0:
            return _ADVANCED, arr.astype(np.int64)
        outside = _outside_int64(item, arr)
        if outside is not None:
            return _OUTSIDE, outside
        if arr.dtype.kind not in "iu":
            raise IndexError(f"index arrays must be integer or bool, got {arr.dtype}")
        return _ADVANCED, arr.astype(np.int64)
    try:
        return "int", operator.index(item)
    except TypeError:
        tp = type(item)
        name = tp.__name__ if tp.__module__ == "builtins" else f"{tp.__module__}.{tp.__name__}"
        raise IndexError(f"only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                         f"Variables are valid indices (got {name})") from None


def _outside_int64(item: Any, arr: np.ndarray) -> int | None:
    """The first index value outside int64 (which a cast to int64 would wrap), or None.

    numpy holds such values as uint64, or as float64 / object when a list mixes them with
    negative ones (or holds ints beyond uint64); those are read back exactly as Python ints.
    """
    if arr.dtype.kind == "u" and arr.dtype.itemsize == 8 and arr.max() > _INT64_MAX:
        return int(arr[arr > _INT64_MAX].flat[0])
    if arr.dtype.kind in "fO":
        values = _flat_ints(arr.tolist() if isinstance(item, np.ndarray) else item)
        if values is not None:
            return next((v for v in values if not _INT64_MIN <= v <= _INT64_MAX), None)
    return None



def _consumed(kind: str, item: Any) -> int:
    if kind in ("int", "slice", _ADVANCED, _OUTSIDE):
        return 1
    if kind == _MASK:
        return item.ndim
    return 0


class _Plan:
    """The result of walking an index: a view geometry plus the advanced indices, if any."""

    def __init__(self, t) -> None:
        self.offset = t.storage_offset()
        self.sizes: list = []      # None marks where an advanced index sits
        self.strides: list = []
        self.advanced: list = []   # (index array or None for a mask's, size, stride, source dim)
        self.items: list = []      # positions in the index of the advanced items
        self.kinds: list = []      # (kind, item, source dim) of each advanced item


def _plan(t, index: Any) -> _Plan:
    items = list(index) if isinstance(index, tuple) else [index]
    classified = [_classify(i) for i in items]
    ndim = t.dim()
    used = sum(_consumed(k, i) for k, i in classified)
    if sum(1 for k, _ in classified if k == "ellipsis") > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if used > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    src_sizes, src_strides = list(t.size()), list(t.stride())
    p = _Plan(t)
    d = 0
    mismatch = None
    pos = -1  # an item's position in the index, ints not counted: PyTorch applies them as
    for kind, item in classified:  # selects first, so they never separate advanced items
        pos += kind != "int"
        if kind in (_ADVANCED, _MASK):
            p.items.append(pos)
            p.kinds.append((kind, item, d))
        if kind == "ellipsis":
            n = ndim - used
            p.sizes += src_sizes[d:d + n]
            p.strides += src_strides[d:d + n]
            d += n
        elif kind == "none":
            p.sizes.append(1)
            p.strides.append(src_sizes[d] * src_strides[d] if d < ndim else 1)
        elif kind == "bool":
            p.sizes.append(1 if item else 0)
            p.strides.append(1)
        elif kind == "int":
            n = src_sizes[d]
            if not -n <= item < n:
                raise IndexError(f"index {item} is out of bounds for dimension {d} with size {n}")
            p.offset += (item % n) * src_strides[d]
            d += 1
        elif kind == "slice":
            if item.step is not None and operator.index(item.step) <= 0:
                raise ValueError("step must be greater than zero")
            start, length, stride = _slice_of(item, src_sizes[d], src_strides[d])
            if length > 0:
                p.offset += start * src_strides[d]
            p.sizes.append(length)
            p.strides.append(stride)
            d += 1
        elif kind == _OUTSIDE:
            raise IndexError(f"index {item} is out of bounds for dimension {d} with size "
                             f"{src_sizes[d]}")
        elif kind == _ADVANCED:
            p.advanced.append((item, src_sizes[d], src_strides[d], d))
            p.sizes.append(None)
            p.strides.append(None)
            d += 1
        else:  # a bool mask covers item.ndim dims: one advanced index per dim
            want = tuple(src_sizes[d:d + item.ndim])
            if item.shape != want and mismatch is None:   # raised once the view's shape is known
                j = next(j for j, (m, s) in enumerate(zip(item.shape, want)) if m != s)
                mismatch = (list(item.shape), j, len(p.sizes) + j)
            for j in range(item.ndim):  # its indices (np.nonzero) only if _offsets needs them
                p.advanced.append((None, src_sizes[d + j], src_strides[d + j], d + j))
                p.sizes.append(None)
                p.strides.append(None)
            d += item.ndim
    p.sizes += src_sizes[d:]
    p.strides += src_strides[d:]
    if mismatch is not None:
        _mask_mismatch(p, *mismatch)
    return p


def _mask_mismatch(p: _Plan, mask: list, j: int, at: int) -> None:
    """IndexError naming the mask's shape and that of the tensor the basic items leave (where
    PyTorch applies the mask), at the dim where they part."""
    sizes = list(p.sizes)
    for slot, (_, n, _, _) in zip([i for i, s in enumerate(sizes) if s is None], p.advanced):
        sizes[slot] = n
    raise IndexError(f"The shape of the mask {mask} at index {j} does not match the shape of the "
                     f"indexed tensor {sizes} at index {at}")


def _view(t, p: _Plan):
    dt = t.dtype
    return wrap(dt, dt.tensor.newAsStrided(t._h, p.offset, len(p.sizes),
                                             c_sizes(p.sizes), c_sizes(p.strides)))


def _wrapped(a: np.ndarray, n: int, d: int) -> np.ndarray:
    """Indices a into a dim d of size n, negative ones counted from the end; IndexError naming
    the first one outside [-n, n)."""
    if a.size and (a.min() < -n or a.max() >= n):
        bad = a[(a < -n) | (a >= n)].flat[0]
        raise IndexError(f"index {bad} is out of bounds for dimension {d} with size {n}")
    return np.where(a < 0, a + n, a)


def _offsets(p: _Plan) -> np.ndarray:
    """Storage offsets of every element the index selects, in the result's shape."""
    arrays = [a for kind, item, _ in p.kinds
              for a in (np.nonzero(item) if kind == _MASK else (item,))]
    try:
        bshape = np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        shapes = ", ".join(str(list(a.shape)) for a in arrays)
        raise IndexError(f"shape mismatch: indexing tensors could not be broadcast together "
                         f"with shapes {shapes}") from None
    adv = np.zeros(bshape, dtype=np.int64)
    for a, (_, n, stride, d) in zip(arrays, p.advanced):
        adv = adv + _wrapped(a, n, d) * stride
    slots = [i for i, s in enumerate(p.sizes) if s is None]
    basic = [(s, st) for s, st in zip(p.sizes, p.strides) if s is not None]
    # numpy's rule: advanced items next to each other IN THE INDEX keep their place (even an
    # ellipsis that stands for no dims separates them; an int does not, see _plan); otherwise
    # their dims go first.
    adjacent = p.items == list(range(p.items[0], p.items[0] + len(p.items)))
    before = slots[0] if adjacent else 0  # basic dims that stay in front of the block
    nb = len(bshape)
    shape = [s for s, _ in basic[:before]] + list(bshape) + [s for s, _ in basic[before:]]
    ndim = len(shape)
    total = np.full((1,) * ndim, p.offset, dtype=np.int64)
    total = total + adv.reshape((1,) * before + bshape + (1,) * (ndim - before - nb))
    for k, (size, stride) in enumerate(basic):
        axis = k if k < before else k + nb
        axes = [1] * ndim
        axes[axis] = size
        total = total + (np.arange(size, dtype=np.int64) * stride).reshape(axes)
    return np.array(np.broadcast_to(total, shape), dtype=np.int64, order="C")


class _Single:
    """An index with one advanced item, seen as a kernel call on the view of the rest.

    The view keeps the dims the item indexes whole; they start at `pos` in it. An integer
    index becomes the flat int64 tensor `index` along dim pos (its own shape replaces that dim
    in the result); a mask becomes `mask`, shaped to broadcast against the view, selecting
    `count` elements of the dims it covers.
    """

    def __init__(self, t, p: _Plan) -> None:
        kind, item, d = p.kinds[0]
        sizes, strides = list(p.sizes), list(p.strides)
        slots = [i for i, s in enumerate(sizes) if s is None]
        for slot, (_, n, stride, _) in zip(slots, p.advanced):
            sizes[slot], strides[slot] = n, stride
        self.pos = pos = slots[0]
        dt = t.dtype
        self.view = wrap(dt, dt.tensor.newAsStrided(t._h, p.offset, len(sizes),
                                                      c_sizes(sizes), c_sizes(strides)))
        lead, covered = tuple(sizes[:pos]), 1 if kind == _ADVANCED else item.ndim
        rest = tuple(sizes[pos + covered:])
        if kind == _ADVANCED:
            self.index = tensor(_wrapped(item, sizes[pos], d).reshape(-1), dtype=_dt.int64)
            self.mask = None
            self.shape = lead + item.shape + rest          # the selected elements' shape
            self.flat = lead + (item.size,) + rest         # the same, index flattened
        else:
            self.mask = tensor(item.reshape(item.shape + (1,) * len(rest)), dtype=_dt.bool_)
            self.shape = self.flat = lead + (int(item.sum()),) + rest

    @staticmethod
    def of(t, p: _Plan) -> "_Single | None":
        """The single-item form of plan p, when it has one (masks of at least one dim)."""
        if len(p.kinds) != 1 or (p.kinds[0][0] == _MASK and p.kinds[0][1].ndim == 0):
            return None
        return _Single(t, p)

    def get(self):
        if self.mask is not None:
            return masked_select(self.view, self.mask).view(self.shape)
        return index_select(self.view, self.pos, self.index).view(self.shape)

    def set(self, value: Any) -> None:
        if isinstance(value, (bool, int, float, np.generic)):
            if self.mask is not None:
                masked_fill_(self.view, self.mask, value)
            else:
                index_fill_(self.view, self.pos, self.index, value)
            return
        values = _broadcast_values(self.view, value, self.shape).reshape(self.flat)
        if self.mask is not None:
            masked_scatter_(self.view, self.mask, values)
        else:
            index_copy_(self.view, self.pos, self.index, values)


def _slice_of(item: slice, n: int, stride: int) -> tuple:
    """(start, length, stride) of the view a positive-step slice takes of a dim of size n and
    stride `stride`, its bounds clamped as Python's are (any ints, 2**70 included). The view's
    stride is stride * step, as PyTorch's, except where that leaves int64: a step so large
    selects at most one element, whose view any stride walks (PyTorch itself fails there)."""
    start, stop, step = item.indices(n)
    length = len(range(start, stop, step))
    walk = stride * step
    return start, length, stride if length < 2 and not -(2**63) <= walk < 2**63 else walk


def _ints_and_slices(t, index: tuple):
    """t[i, a:b, ...] for a tuple of ints and positive-step slices, no more than t has dims
    (the commonest indices): the view's geometry worked out in one loop and made by one C call,
    which checks it against the storage as every view is; None for anything else (the general
    walk takes it, and raises every error)."""
    h = t._h
    nd = h.nDimension
    if len(index) > nd:
        return None
    off = h.storageOffset
    sizes, strides = [], []
    for d, item in enumerate(index):
        n, st = h.size[d], h.stride[d]
        if type(item) is int:
            if not -n <= item < n:
                return None
            off += (item % n) * st
        elif type(item) is slice:
            step = item.step
            if step is not None and (type(step) is not int or step <= 0):
                return None
            start, length, stride = _slice_of(item, n, st)
            if length:
                off += start * st
            sizes.append(length)
            strides.append(stride)
        else:
            return None
    for d in range(len(index), nd):
        sizes.append(h.size[d])
        strides.append(h.stride[d])
    dt = t.dtype   # (lists for the int64_t * arguments: cffi passes them as arrays)
    return wrap(dt, dt.tensor.newAsStrided(h, off, len(sizes), sizes, strides))


def getitem(t, index: Any):
    """t[index]: a view for basic indices, a gathered copy for advanced ones."""
    tp = type(index)
    if tp is int or tp is slice or tp is tuple:
        r = _ints_and_slices(t, index if tp is tuple else (index,))
        if r is not None:
            return r
    p = _plan(t, as_index(index))
    if not p.advanced:
        return _view(t, p)
    single = _Single.of(t, p)
    if single is not None:
        return single.get()
    offsets = _offsets(p)
    out = _empty(offsets.shape, t.dtype)
    check(t.dtype.tensor.gatherOffsets(out._h, t._h,
                                       ffi.cast("int64_t *", offsets.ctypes.data), offsets.size))
    return out


def _as_values(t, value: Any):
    if isinstance(value, Tensor):
        return value
    return tensor(value, dtype=t.dtype)


def without_leading_ones(value: Tensor) -> Tensor:
    """value without its leading size-1 dims (a view): what t[index] = value assigns, so a
    [1, 3] value fills a row and a [1] value an element, as in PyTorch."""
    sizes = value.shape
    if not sizes or sizes[0] != 1:
        return value
    k = 1
    while k < len(sizes) and sizes[k] == 1:
        k += 1
    return value[(0,) * k]


def _expandable(value: Tensor, shape: tuple) -> Tensor:
    """value, checked to broadcast to shape, with PyTorch's expand() messages otherwise."""
    sizes = value.shape
    if sizes == shape:
        return value
    sizes = list(sizes)
    if len(sizes) > len(shape):
        raise RuntimeError(f"expand({value.type()}{{{sizes}}}, size={list(shape)}): the number of "
                           f"sizes provided ({len(shape)}) must be greater or equal to the number "
                           f"of dimensions in the tensor ({len(sizes)})")
    lead = len(shape) - len(sizes)
    for d in reversed(range(len(sizes))):
        if sizes[d] != 1 and sizes[d] != shape[lead + d]:
            raise RuntimeError(f"The expanded size of the tensor ({shape[lead + d]}) must match "
                               f"the existing size ({sizes[d]}) at non-singleton dimension "
                               f"{lead + d}.  Target sizes: {list(shape)}.  Tensor sizes: {sizes}")
    return value


def _broadcast_values(t, value: Any, shape: tuple):
    """value as a contiguous tensor of t's dtype and the given shape (broadcast), never sharing
    memory with t, which the scatter writes while reading it (see _ops.conflicts)."""
    values = without_leading_ones(_as_values(t, value))
    try:
        r = values.to(t.dtype).expand(shape).contiguous()
    except RuntimeError:
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(values.size())} cannot "
                           f"be broadcast to indexing result of shape {list(shape)}") from None
    return r.clone() if conflicts(t, (r,)) else r


def setitem(t, index: Any, value: Any) -> None:
    """t[index] = value, broadcasting value (without its leading size-1 dims, as PyTorch) to
    the indexed shape."""
    if index is False:   # selects nothing: PyTorch assigns nothing, checks nothing
        return
    p = _plan(t, as_index(index))
    if not p.advanced:
        view = _view(t, p)
        if isinstance(value, Tensor):
            view.copy_(_expandable(without_leading_ones(value), tuple(view.size())))
        elif isinstance(value, (bool, int, float, np.generic)):
            # fill_ alone would write a stride-0 (expanded) view; PyTorch refuses, as copy_ does
            check(lib.THShape_checkWritable(b"__setitem__()", view._h.nDimension, view._h.size,
                                            view._h.stride))
            view.fill_(value)
        else:
            values = without_leading_ones(_as_values(t, value))
            view.copy_(_expandable(values, tuple(view.size())))
        return
    single = _Single.of(t, p)
    if single is not None:
        single.set(value)
        return
    offsets = _offsets(p)
    values = _broadcast_values(t, value, offsets.shape)
    check(t.dtype.tensor.scatterOffsets(t._h, ffi.cast("int64_t *", offsets.ctypes.data),
                                        offsets.size, values._h))


METHODS: dict[str, Any] = {"__getitem__": getitem, "__setitem__": setitem}

"""t[index] and t[index] = value, by numpy / PyTorch rules.

Strategy. Basic items (ints, slices with positive steps, None, ...) only change the geometry,
so they are folded into one (offset, sizes, strides) triple and become a single view. Advanced
items (integer index tensors or lists, bool masks) select arbitrary elements: their indices are
broadcast together, checked, and turned into element offsets into the storage, combined by
numpy broadcasting with the offsets of the remaining basic dims. One C call then gathers (or
scatters) all elements at those offsets. Where the advanced dims go follows numpy: in place when
they are adjacent, first otherwise.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from . import dtypes as _dt
from ._errors import check
from ._th import ffi, lib

_ADVANCED, _MASK = "advanced", "mask"


def _classify(item: Any) -> tuple[str, Any]:
    """(kind, normalised item) for one index item."""
    from .tensor import Tensor
    if item is None or item is Ellipsis:
        return ("none" if item is None else "ellipsis"), item
    if isinstance(item, bool):
        return "bool", item
    if isinstance(item, slice):
        return "slice", item
    if isinstance(item, Tensor):
        if item.dtype in (_dt.bool_, _dt.uint8):
            return _MASK, np.asarray(item.bool().numpy(), dtype=bool)
        if item.dtype.is_floating_point:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        return _ADVANCED, np.asarray(item.long().numpy(), dtype=np.int64)
    if isinstance(item, (list, tuple, np.ndarray)):
        arr = np.asarray(item)
        if arr.dtype == bool:
            return _MASK, arr
        if arr.size == 0:
            return _ADVANCED, arr.astype(np.int64)
        if arr.dtype.kind not in "iu":
            raise IndexError(f"index arrays must be integer or bool, got {arr.dtype}")
        return _ADVANCED, arr.astype(np.int64)
    try:
        return "int", operator.index(item)
    except TypeError:
        raise IndexError(f"only integers, slices, None, ..., bool masks and integer index tensors "
                         f"are valid indices (got {type(item).__name__})") from None


def _consumed(kind: str, item: Any) -> int:
    if kind in ("int", "slice", _ADVANCED):
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
        self.advanced: list = []   # (index array, dim size, dim stride, source dim)
        self.items: list = []      # positions in the index of the advanced items


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
    for pos, (kind, item) in enumerate(classified):
        if kind in (_ADVANCED, _MASK):
            p.items.append(pos)
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
            start, stop, step = item.indices(src_sizes[d])
            length = len(range(start, stop, step))
            if length > 0:
                p.offset += start * src_strides[d]
            p.sizes.append(length)
            p.strides.append(src_strides[d] * step)
            d += 1
        elif kind == _ADVANCED:
            p.advanced.append((item, src_sizes[d], src_strides[d], d))
            p.sizes.append(None)
            p.strides.append(None)
            d += 1
        else:  # a bool mask covers item.ndim dims: one advanced index per dim
            want = tuple(src_sizes[d:d + item.ndim])
            if item.shape != want:
                for j, (m, s) in enumerate(zip(item.shape, want)):
                    if m != s:
                        raise IndexError(f"The shape of the mask {list(item.shape)} at index {j} "
                                         f"does not match the shape of the indexed tensor "
                                         f"{list(want)} at index {d + j}")
            for j, idx in enumerate(np.nonzero(item)):
                p.advanced.append((idx.astype(np.int64), src_sizes[d + j], src_strides[d + j],
                                   d + j))
                p.sizes.append(None)
                p.strides.append(None)
            d += item.ndim
    p.sizes += src_sizes[d:]
    p.strides += src_strides[d:]
    return p


def _view(t, p: _Plan):
    from .tensor import c_sizes, wrap
    dt = t.dtype
    return wrap(dt, dt.tensor.newWithStorage(t._h.storage, p.offset, len(p.sizes),
                                             c_sizes(p.sizes), c_sizes(p.strides)))


def _offsets(p: _Plan) -> np.ndarray:
    """Storage offsets of every element the index selects, in the result's shape."""
    arrays = [a for a, _, _, _ in p.advanced]
    try:
        bshape = np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        shapes = ", ".join(str(list(a.shape)) for a in arrays)
        raise IndexError(f"shape mismatch: indexing tensors could not be broadcast together "
                         f"with shapes {shapes}") from None
    adv = np.zeros(bshape, dtype=np.int64)
    for a, n, stride, d in p.advanced:
        if a.size and (a.min() < -n or a.max() >= n):
            bad = a[(a < -n) | (a >= n)].flat[0]
            raise IndexError(f"index {bad} is out of bounds for dimension {d} with size {n}")
        adv = adv + np.where(a < 0, a + n, a) * stride
    slots = [i for i, s in enumerate(p.sizes) if s is None]
    basic = [(s, st) for s, st in zip(p.sizes, p.strides) if s is not None]
    # numpy's rule: advanced items next to each other IN THE INDEX keep their place (even an
    # ellipsis that stands for no dims separates them); otherwise their dims go first.
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


def getitem(t, index: Any):
    """t[index]: a view for basic indices, a gathered copy for advanced ones."""
    p = _plan(t, index)
    if not p.advanced:
        return _view(t, p)
    from .tensor import _empty
    offsets = _offsets(p)
    out = _empty(offsets.shape, t.dtype)
    check(t.dtype.tensor.gatherOffsets(out._h, t._h.storage,
                                       ffi.cast("int64_t *", offsets.ctypes.data), offsets.size))
    return out


def _as_values(t, value: Any):
    from .factories import tensor
    from .tensor import Tensor
    if isinstance(value, Tensor):
        return value
    return tensor(value, dtype=t.dtype)


def setitem(t, index: Any, value: Any) -> None:
    """t[index] = value, broadcasting value to the indexed shape."""
    p = _plan(t, index)
    if not p.advanced:
        view = _view(t, p)
        from .tensor import Tensor
        if isinstance(value, Tensor):
            view.copy_(value)
        elif isinstance(value, (bool, int, float, np.generic)):
            # fill_ alone would write a stride-0 (expanded) view; PyTorch refuses, as copy_ does
            check(lib.THShape_checkWritable(b"__setitem__()", view._h.nDimension, view._h.size,
                                            view._h.stride))
            view.fill_(value)
        else:
            view.copy_(_as_values(t, value))
        return
    offsets = _offsets(p)
    values = _as_values(t, value)
    try:
        values = values.to(t.dtype).expand(offsets.shape).contiguous()
    except RuntimeError:
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(values.size())} cannot "
                           f"be broadcast to indexing result of shape "
                           f"{list(offsets.shape)}") from None
    check(t.dtype.tensor.scatterOffsets(t._h.storage, ffi.cast("int64_t *", offsets.ctypes.data),
                                        offsets.size, values._h))

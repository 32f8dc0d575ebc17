"""Construction and shape ops: cat, stack, split, chunk, flip, roll, repeat, tril/triu, diag,
meshgrid and their relatives.

Most of these are geometry: split, chunk, unbind, diagonal and meshgrid return views (they
share the input's storage), and cat, stack, repeat and roll are one preallocated result filled
by C copies into views of it, each element written once. The C copy converts between dtypes
as it goes, so cat/stack promote their inputs (as torch.cat does) without converting them
first. Only flip and tril/triu have kernels of their own (generic/THTensorShape.c): a flip is
a copy whose source walks backwards, and which elements a triangle keeps depends on their
position.

Two tables at the end, FUNCTIONS and METHODS, say which names become pyth functions and
Tensor methods.
"""

from __future__ import annotations

import operator
from itertools import product
from typing import Any, Sequence

from ..overrides import TYPES as _OVERRIDING, dispatch as _dispatch
from .. import dtypes as _dt
from .._errors import check
from .._promotion import can_cast, promote_types
from .._th import ffi, lib
from .._ops import as_method, conflicts, result_of
from ..tensor import Tensor, _empty, as_count, as_dim, as_index, c_sizes, parse_sizes, wrap
from . import recorded


# ---- helpers -----------------------------------------------------------------------------------

def _wrap_dim(dim: Any, ndim: int, op: str) -> int:
    """dim in [0, ndim) (a 0-dim tensor takes 0 and -1); IndexError otherwise, as PyTorch."""
    dim = as_dim(dim, op)
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"{op}(): dim {dim} is out of range for a tensor of {ndim} dims "
                         f"(expected to be in range of [{-n}, {n - 1}])")
    return dim % n


def _tensor_list(tensors: Any, op: str) -> list:
    """A tuple/list of Tensors as a list: TypeError for anything else, as torch's parser."""
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{op}(): argument 'tensors' must be a tuple or list of Tensors, "
                        f"not {type(tensors).__name__}")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}(): expected Tensor as element {i} in argument 'tensors', "
                            f"but got {type(t).__name__}")
    return list(tensors)


def _int_list(value: Any, op: str, name: str) -> tuple:
    """An int or a sequence of ints as a tuple of ints."""
    if isinstance(value, (list, tuple)):   # (a bool first is refused, as PyTorch's parser)
        if not value or value[0].__class__ is not bool:
            try:
                return tuple(operator.index(v) for v in value)
            except TypeError:
                pass
    elif value.__class__ is not bool:
        try:
            return (operator.index(value),)
        except TypeError:
            pass
    raise TypeError(f"{op}(): argument '{name}' must be an int or a tuple of ints, "
                    f"not {type(value).__name__}")


def _sizes(t: Tensor) -> list:
    """t's sizes as a list, read straight from the C header (cheaper than t.size())."""
    return ffi.unpack(t._h.size, t._h.nDimension)


def _header(t: Tensor) -> Tensor:
    """A second tensor header on t's storage, to be narrowed/selected in place by C calls
    (cheaper than one Python view per piece)."""
    return wrap(t.dtype, t.dtype.tensor.newWithTensor(t._h))


def _copy_into(dst: Tensor, src: Tensor) -> None:
    """dst <- src through the C copy (converting src's dtype, broadcasting src)."""
    check(getattr(dst.dtype.tensor, _COPY[src.dtype])(dst._h, src._h))


_COPY = {d: "copy" + d.real for d in _dt.ALL_DTYPES}  # the copy from each source dtype


def _output(op: str, shape: Sequence[int], dt: _dt.dtype, out: Tensor | None,
            inputs: Sequence[Tensor] = (), exact: bool = False) -> Tensor:
    """The tensor a copying op writes into: new, or out resized to shape.

    out may have another dtype when the result casts to it (cat, stack: the copies convert);
    exact=True requires out's dtype to be the result's (diag), as PyTorch does. out sharing
    memory with an input would be overwritten while being read: RuntimeError, as PyTorch's cat
    and stack say (the check is _ops.conflicts, which also sees memory shared across storages).
    """
    if out is None:
        return _empty(shape, dt)
    if not isinstance(out, Tensor):
        raise TypeError(f"{op}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if exact and out.dtype is not dt:
        raise RuntimeError(f"{op}(): expected out tensor to have dtype {dt.name}, but got "
                           f"{out.dtype.name} instead")
    if not can_cast(dt, out.dtype):
        raise TypeError(f"{op}(): input types can't be cast to the desired output type "
                        f"{out.dtype.real}")
    if inputs and conflicts(out, inputs):
        raise RuntimeError(f"{op}(): unsupported operation: the input tensors cannot refer "
                           f"to any of the output memory locations")
    return out.resize_(shape)


# ---- joining -----------------------------------------------------------------------------------

def cat(tensors: Sequence[Tensor], dim: int = 0, *, out: Tensor | None = None) -> Tensor:
    """Tensors joined along an existing dim, promoted to a common dtype (a copy).

    All sizes but dim's must agree. As in PyTorch, legacy empty tensors of size (0,) are
    skipped whatever the others' shapes: cat([pyth.tensor([]), x]) equals x.
    """
    if out is None:
        r = _join_same(tensors, dim, False)
        if r is not None:
            return r
    tensors = _tensor_list(tensors, "cat")
    if not tensors:
        raise ValueError("cat(): expected a non-empty list of Tensors")
    dt, parts = None, []
    for i, t in enumerate(tensors):
        size = _sizes(t)
        if not size:
            raise RuntimeError(f"cat(): zero-dimensional tensor (at position {i}) cannot be "
                               f"concatenated")
        dt = promote_types(dt, t.dtype)
        if size != [0]:
            parts.append((i, t, size))
    if not parts:
        return _output("cat", (0,), dt, out, tensors)
    ref = parts[0][2]
    d = _wrap_dim(dim, len(ref), "cat")
    total = 0
    for i, t, size in parts:
        if size[:d] != ref[:d] or size[d + 1:] != ref[d + 1:]:
            _cat_mismatch(ref, size, d, i)
        total += size[d]
    r = _output("cat", ref[:d] + [total] + ref[d + 1:], dt, out, tensors)
    _join(r, [t for _, t, _ in parts], d, False)
    return r


def _join_same(tensors: Any, dim: Any, stacked: bool) -> Tensor | None:
    """cat or stack of a list of tensors of one class (one dtype) and one number of dims (at
    least one), along an int dim in range: the result sized from the first, the others checked
    and copied by one C call (catArray checks that each fits). None for anything else, and when
    a part does not fit: the general path then says exactly why."""
    if type(tensors) not in (list, tuple) or not tensors or type(dim) is not int:
        return None
    t0 = tensors[0]
    cls = type(t0)
    dt = getattr(cls, "dtype", None) if issubclass(cls, Tensor) else None
    if dt is None:
        return None
    nd = t0._h.nDimension
    n = nd + 1 if stacked else nd
    if n == 0 or not -n <= dim < n:
        return None
    d = dim % n
    handles = []
    for t in tensors:
        if type(t) is not cls or t._h.nDimension != nd:
            return None
        handles.append(t._h)
    shape = ffi.unpack(t0._h.size, nd)
    if stacked:
        shape.insert(d, len(handles))
    else:
        shape[d] = sum(h.size[d] for h in handles)
    r = _empty(shape, dt)
    if dt.tensor.catArray(r._h, handles, len(handles), d, stacked):
        lib.THError_clear()
        return None
    return r


def _join(r: Tensor, parts: list, d: int, stacked: bool) -> None:
    """The parts copied into r along dim d (cat: one after another; stacked: slice i each):
    one C call when all are of r's dtype, else a narrow or select and a converting copy each."""
    dt = r.dtype
    if all(t.dtype is dt for t in parts):
        check(dt.tensor.catArray(r._h, [t._h for t in parts], len(parts), d, stacked))
        return
    piece, start = _header(r), 0
    for i, t in enumerate(parts):
        n = 1 if stacked else t.size(d)
        if n:
            check(dt.tensor.select(piece._h, r._h, d, i) if stacked else
                  dt.tensor.narrow(piece._h, r._h, d, start, n))
            _copy_into(piece, t)
        start += n


def _cat_mismatch(ref: list, size: list, d: int, i: int) -> None:
    """The RuntimeError for tensor number i, whose sizes clash with ref's outside dim d."""
    if len(size) != len(ref):
        raise RuntimeError(f"cat(): tensors must have same number of dimensions: got "
                           f"{len(ref)} and {len(size)} (tensor number {i} in the list)")
    k = next(k for k in range(len(ref)) if k != d and size[k] != ref[k])
    raise RuntimeError(f"cat(): sizes of tensors must match except in dimension {d}. Expected "
                       f"size {ref[k]} but got size {size[k]} for tensor number {i} in the list "
                       f"(shapes {ref} and {size}, dim {k})")


def concatenate(tensors: Sequence[Tensor], axis: int = 0, *, out: Tensor | None = None) -> Tensor:
    """cat with numpy's argument name."""
    return recorded.cat(tensors, axis, out=out)


def stack(tensors: Sequence[Tensor], dim: int = 0, *, out: Tensor | None = None) -> Tensor:
    """Equal-shaped tensors joined along a new dim (a copy, promoted like cat)."""
    if out is None:
        r = _join_same(tensors, dim, True)
        if r is not None:
            return r
    tensors = _tensor_list(tensors, "stack")
    if not tensors:
        raise RuntimeError("stack(): expects a non-empty TensorList")
    shape = _sizes(tensors[0])
    dt = None
    for i, t in enumerate(tensors):
        if _sizes(t) != shape:
            raise RuntimeError(f"stack(): expects each tensor to be equal size, but got {shape} "
                               f"at entry 0 and {_sizes(t)} at entry {i}")
        dt = promote_types(dt, t.dtype)
    d = _wrap_dim(dim, len(shape) + 1, "stack")
    r = _output("stack", shape[:d] + [len(tensors)] + shape[d:], dt, out, tensors)
    _join(r, tensors, d, True)
    return r


def _atleast(t: Tensor, n: int) -> Tensor:
    """t viewed with at least n dims, numpy's way: (k,) -> (1, k) -> (1, k, 1)."""
    if t.dim() >= n:
        return t
    if t.dim() == 0:
        return t.reshape((1,) * n)
    if t.dim() == 1:
        return t.unsqueeze(0) if n == 2 else t.unsqueeze(0).unsqueeze(-1)
    return t.unsqueeze(-1)


def _make_atleast(n: int):
    def fn(*tensors: Any) -> Any:
        if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
            return tuple(_atleast(t, n) for t in _tensor_list(tensors[0], f"atleast_{n}d"))
        if len(tensors) == 1:
            return _atleast(_tensor_list(tensors, f"atleast_{n}d")[0], n)
        return tuple(_atleast(t, n) for t in _tensor_list(tensors, f"atleast_{n}d"))
    fn.__name__ = f"atleast_{n}d"
    fn.__doc__ = f"Views with at least {n} dims (numpy's rule for where the new dims go)."
    return fn


atleast_1d, atleast_2d, atleast_3d = (_make_atleast(n) for n in (1, 2, 3))


def hstack(tensors: Sequence[Tensor], *, out: Tensor | None = None) -> Tensor:
    """Joined column-wise: along dim 1, or dim 0 for 1-D tensors."""
    ts = [_atleast(t, 1) for t in _tensor_list(tensors, "hstack")]
    return recorded.cat(ts, 0 if ts and ts[0].dim() == 1 else 1, out=out)


def vstack(tensors: Sequence[Tensor], *, out: Tensor | None = None) -> Tensor:
    """Joined row-wise: 1-D tensors become rows, then cat along dim 0."""
    return recorded.cat([_atleast(t, 2) for t in _tensor_list(tensors, "vstack")], 0, out=out)


def dstack(tensors: Sequence[Tensor], *, out: Tensor | None = None) -> Tensor:
    """Joined depth-wise: along dim 2 after atleast_3d."""
    return recorded.cat([_atleast(t, 3) for t in _tensor_list(tensors, "dstack")], 2, out=out)


# ---- splitting (views) -------------------------------------------------------------------------

def _split_dim(t: Tensor, dim: Any, op: str) -> int:
    if t.dim() == 0:
        raise RuntimeError(f"{op}(): expects at least a 1-dimensional tensor")
    return _wrap_dim(dim, t.dim(), op)


def _pieces(t: Tensor, d: int, sizes: Sequence[int]) -> tuple:
    out, start = [], 0
    for n in sizes:
        out.append(t.narrow(d, start, n))
        start += n
    return tuple(out)


def split(tensor: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple:
    """Views of consecutive pieces along dim: of split_size each (the last may be smaller),
    or of the listed sizes, which must add up to the dim's size. Recorded as PyTorch's two ops
    (SplitBackward0 / SplitWithSizesBackward0) by the functions below."""
    if type(tensor) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(split, locals())
    if isinstance(split_size_or_sections, (list, tuple)):
        return recorded.split_with_sizes(tensor, split_size_or_sections, dim)
    return recorded.split(tensor, split_size_or_sections, dim)


def split_with_sizes(input: Tensor, split_sizes: Any, dim: int = 0) -> tuple:
    """Views of consecutive pieces along dim of the listed sizes, which must add up to the
    dim's size."""
    d = _split_dim(input, dim, "split_with_sizes")
    n = input.size(d)
    sizes = _int_list(split_sizes, "split_with_sizes", "split_sizes")
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"split_with_sizes(): expects split_sizes have only non-negative "
                           f"entries, but got split_sizes={list(sizes)}")
    if sum(sizes) != n:
        raise RuntimeError(f"split_with_sizes(): expects split_sizes to sum exactly to {n} "
                           f"(input tensor's size at dimension {d}), but got "
                           f"split_sizes={list(sizes)}")
    return _pieces(input, d, sizes)


def _split_size(tensor: Tensor, split_size: Any, dim: int = 0) -> tuple:
    """split() with one int size: pieces of split_size each, the last may be smaller."""
    d = _split_dim(tensor, dim, "split")
    n = tensor.size(d)
    size = as_count(split_size, "split", "split_size")
    if size < 0:
        raise RuntimeError(f"split(): expects split_size be non-negative, but got "
                           f"split_size={size}")
    if size == 0 and n != 0:
        raise RuntimeError(f"split(): split_size can only be 0 if dimension size is 0, but got "
                           f"dimension size of {n}")
    count = max(-(-n // size), 1) if size else 1
    return _pieces(tensor, d, [size] * (count - 1) + [n - size * (count - 1)])


def _split_method(self: Tensor, split_size: Any, dim: int = 0) -> tuple:
    """Views of consecutive pieces along dim (see pyth.split)."""
    return split(self, split_size, dim)


def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    """At most `chunks` views along dim, each ceil(size / chunks) long (the last shorter;
    fewer chunks when they run out, as PyTorch: chunk(6 elements, 4) gives 3 of 2)."""
    chunks = as_count(chunks, "chunk", "chunks")
    d = _split_dim(input, dim, "chunk")
    if chunks <= 0:
        raise RuntimeError(f"chunk(): expects `chunks` to be greater than 0, got: {chunks}")
    n = input.size(d)
    size = -(-n // chunks)
    if n == 0:
        return _pieces(input, d, [0] * chunks)
    return split(input, size, d)


def unbind(input: Tensor, dim: int = 0) -> tuple:
    """The slices along dim, as views with that dim removed."""
    if input.dim() == 0:
        raise IndexError("unbind(): dimension specified as 0 but tensor has no dimensions")
    d = _wrap_dim(dim, input.dim(), "unbind")
    return tuple(input.select(d, i) for i in range(input.size(d)))


def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The offset-th diagonal of the dim1 x dim2 matrices, as a view in a new last dim."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(diagonal, locals())
    return input.diagonal(offset, dim1, dim2)


def meshgrid(*tensors: Any, indexing: str | None = None) -> tuple:
    """Coordinate grids from 1-D (or 0-dim) tensors, as expanded views of the inputs.

    indexing='ij': grid k varies along dim k; 'xy': the first two dims are swapped (numpy's
    default), so meshgrid(x, y, indexing='xy') has shape (len(y), len(x)).
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    tensors = _tensor_list(tensors, "meshgrid")
    if not tensors:
        raise RuntimeError("meshgrid(): expects a non-empty TensorList")
    indexing = "ij" if indexing is None else indexing
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'meshgrid(): indexing must be one of "xy" or "ij", but received: '
                           f'{indexing}')
    for t in tensors:
        if t.dtype is not tensors[0].dtype:
            raise RuntimeError("meshgrid(): expects all tensors to have the same dtype")
        if t.dim() > 1:
            raise RuntimeError(f"meshgrid(): expected 0D or 1D tensor in the tensor list but "
                               f"got a tensor of size {list(t.size())}")
    axis = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) > 1:
        axis[0], axis[1] = 1, 0
    shape = [0] * len(tensors)
    for k, t in enumerate(tensors):
        shape[axis[k]] = t.numel()
    grids = []
    for k, t in enumerate(tensors):
        view = [1] * len(tensors)
        view[axis[k]] = t.numel()
        grids.append(t.reshape(view).expand(shape))
    return tuple(grids)


# ---- reordering (copies) -----------------------------------------------------------------------

def flip(input: Tensor, dims: Any) -> Tensor:
    """A copy with the order of elements along each of dims reversed (one pass, in C)."""
    dims = _int_list(dims, "flip", "dims")
    r = _empty((), input.dtype)
    check(input.dtype.tensor.flip(r._h, input._h, len(dims), c_sizes(dims)))
    return r


def fliplr(input: Tensor) -> Tensor:
    """Columns (dim 1) reversed; needs at least 2 dims."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(fliplr, locals())
    if input.dim() < 2:
        raise RuntimeError("fliplr(): input must be >= 2-d")
    return recorded.flip(input, (1,))


def flipud(input: Tensor) -> Tensor:
    """Rows (dim 0) reversed; needs at least 1 dim."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(flipud, locals())
    if input.dim() < 1:
        raise RuntimeError("flipud(): input must be >= 1-d")
    return recorded.flip(input, (0,))


def rot90(input: Tensor, k: int = 1, dims: Sequence[int] = (0, 1)) -> Tensor:
    """Rotated k quarter turns in the plane of dims, from the first towards the second."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(rot90, locals())
    dims = _int_list(dims, "rot90", "dims")
    if len(dims) != 2:
        raise RuntimeError(f"rot90(): expected total rotation dims == 2, but got dims = "
                           f"{len(dims)}")
    if input.dim() < 2:
        raise RuntimeError(f"rot90(): expected total dims >= 2, but got total dims = "
                           f"{input.dim()}")
    d0, d1 = (_wrap_dim(d, input.dim(), "rot90") for d in dims)
    if d0 == d1:
        raise RuntimeError(f"rot90(): expected rotation dims to be different, but got "
                           f"dim0 = {d0} and dim1 = {d1}")
    k = operator.index(k) % 4
    if k == 1:
        return recorded.flip(input, (d1,)).transpose(d0, d1)
    if k == 2:
        return recorded.flip(input, (d0, d1))
    if k == 3:
        return recorded.flip(input, (d0,)).transpose(d0, d1)
    return input.clone()


def roll(input: Tensor, shifts: Any, dims: Any = None) -> Tensor:
    """Elements shifted along dims, wrapping around; dims=None rolls the flattened tensor.

    Each rolled dim splits into two blocks that trade places, so the result is 2**k block
    copies into a preallocated tensor: every element is copied once.
    """
    shifts = _int_list(shifts, "roll", "shifts")
    dims = () if dims is None else _int_list(dims, "roll", "dims")
    if not shifts:
        raise RuntimeError("roll(): `shifts` required")
    if not dims and len(shifts) == 1:
        flat = input.reshape(-1)
        return roll(flat, shifts, 0).view(input.size())
    if len(shifts) != len(dims):
        raise RuntimeError(f"roll(): shifts and dimensions must align. shifts: {len(shifts)}, "
                           f"dims:{len(dims)}")
    if input.dim() == 0:
        raise IndexError(f"roll(): dimension specified as {dims[0]} but tensor has no "
                         f"dimensions")
    total: dict[int, int] = {}
    for s, d in zip(shifts, dims):
        d = _wrap_dim(d, input.dim(), "roll")
        total[d] = total.get(d, 0) + s
    if input.numel() == 0:
        return input.clone()
    moves = [(d, s % input.size(d)) for d, s in total.items() if s % input.size(d)]
    r = _empty(input.size(), input.dtype)
    dst, src = _header(r), _header(input)
    T = input.dtype.tensor
    # per dim: (dest start, src start, length) of the two blocks
    blocks = [[(s, 0, input.size(d) - s), (0, input.size(d) - s, s)] for d, s in moves]
    for choice in product(*blocks):
        check(T.set(dst._h, r._h))
        check(T.set(src._h, input._h))
        for (d, _), (to, frm, n) in zip(moves, choice):
            check(T.narrow(dst._h, dst._h, d, to, n))
            check(T.narrow(src._h, src._h, d, frm, n))
        check(T.copy(dst._h, src._h))
    return r


# ---- repetition --------------------------------------------------------------------------------

def repeat(input: Tensor, *sizes: Any) -> Tensor:
    """The tensor tiled sizes[i] times along each dim (sizes may add leading dims).

    One broadcast copy: the result, viewed with each repeated dim split in (times, size), is
    filled from the input viewed as (1, size), whose stride-0 dim repeats it.
    """
    if not sizes:
        raise TypeError("repeat(): missing 1 required positional argument: 'repeats'")
    reps = parse_sizes(sizes, "repeat")
    if len(reps) < input.dim():
        raise RuntimeError(f"repeat(): number of dimensions of repeat dims ({len(reps)}) can "
                           f"not be smaller than number of dimensions of tensor ({input.dim()})")
    lead = len(reps) - input.dim()
    src_size = (1,) * lead + tuple(input.size())
    src_stride = (0,) * lead + tuple(input.stride())
    shape = [r * s for r, s in zip(reps, src_size)]
    if any(r < 0 for r in reps):
        raise RuntimeError(f"repeat(): trying to create tensor with negative dimension "
                           f"{min(reps)}: {shape}")
    r = _empty(shape, input.dtype)
    if not r.numel():
        return r
    split_size, view_size, view_stride = [], [], []
    for rep, n, st in zip(reps, src_size, src_stride):
        if rep != 1:
            split_size.append(rep)
            view_size.append(1)
            view_stride.append(0)
        split_size.append(n)
        view_size.append(n)
        view_stride.append(st)
    T = input.dtype.tensor
    src = wrap(input.dtype, T.newAsStrided(input._h, input.storage_offset(),
                                             len(view_size), c_sizes(view_size),
                                             c_sizes(view_stride)))
    check(T.copy(r.view(split_size)._h, src._h))
    return r


def tile(input: Tensor, dims: Any) -> Tensor:
    """numpy's tile: repeat, with missing leading repetitions taken as 1."""
    reps = _int_list(dims, "tile", "dims")
    return repeat(input, (1,) * (input.dim() - len(reps)) + reps)


# ---- triangles and diagonals ------------------------------------------------------------------

def _triangle(op: str, input: Tensor, diagonal: int, out: Tensor | None,
              inplace: bool = False) -> Tensor:
    k = as_index(diagonal, op, "diagonal")
    fn = getattr(input.dtype.tensor, op)
    if inplace:
        check(fn(input._h, input._h, k))
        return input
    if out is not None and isinstance(out, Tensor) and conflicts(out, (input,), same_ok=True):
        return result_of(op, _triangle(op, input, k, None), out, strict=True)
    r = _empty((), input.dtype) if out is None else _output(op, input.size(), input.dtype, out,
                                                            exact=True)
    check(fn(r._h, input._h, k))
    return r


def tril(input: Tensor, diagonal: int = 0, *, out: Tensor | None = None) -> Tensor:
    """The lower triangle (on and below the diagonal-th diagonal) of the last two dims;
    the rest zero. diagonal > 0 keeps more, < 0 less."""
    return _triangle("tril", input, diagonal, out)


def triu(input: Tensor, diagonal: int = 0, *, out: Tensor | None = None) -> Tensor:
    """The upper triangle (on and above the diagonal-th diagonal) of the last two dims;
    the rest zero."""
    return _triangle("triu", input, diagonal, out)


def tril_(self: Tensor, diagonal: int = 0) -> Tensor:
    """tril in place."""
    return _triangle("tril", self, diagonal, None, inplace=True)


def triu_(self: Tensor, diagonal: int = 0) -> Tensor:
    """triu in place."""
    return _triangle("triu", self, diagonal, None, inplace=True)


def diag(input: Tensor, diagonal: int = 0, *, out: Tensor | None = None) -> Tensor:
    """1-D: a square matrix with input on its diagonal-th diagonal. 2-D: that diagonal, as a
    copy (diagonal() is the view)."""
    k = as_index(diagonal, "diag", "diagonal")
    if out is not None and isinstance(out, Tensor) and conflicts(out, (input,)):
        return result_of("diag", diag(input, k), out, strict=True)  # out would be read
    if input.dim() == 1:
        n = input.size(0) + abs(k)
        r = _output("diag", (n, n), input.dtype, out, (input,), exact=True).zero_()
        check(r.dtype.tensor.copy(r.diagonal(k)._h, input._h))
        return r
    if input.dim() == 2:
        d = input.diagonal(k)
        if out is None:
            return d.clone()
        r = _output("diag", d.size(), input.dtype, out, (input,), exact=True)
        check(r.dtype.tensor.copy(r._h, d._h))
        return r
    raise RuntimeError(f"diag(): supports 1D or 2D tensors. Got {input.dim()}D")


# ---- the table ---------------------------------------------------------------------------------

FUNCTIONS: dict[str, Any] = {
    "cat": cat, "concat": cat, "concatenate": concatenate, "stack": stack,
    "hstack": hstack, "vstack": vstack, "dstack": dstack, "atleast_1d": atleast_1d,
    "atleast_2d": atleast_2d, "atleast_3d": atleast_3d,
    "split": split, "split_with_sizes": split_with_sizes, "chunk": chunk, "unbind": unbind,
    "diagonal": diagonal,
    "meshgrid": meshgrid, "flip": flip, "fliplr": fliplr, "flipud": flipud, "rot90": rot90,
    "roll": roll, "tile": tile, "tril": tril, "triu": triu, "diag": diag,
}


def _varargs_method(fn, name: str):
    """A method taking its int list either as varargs or as one sequence: t.flip(0, 1)."""
    def method(self: Tensor, *args: Any) -> Tensor:
        if len(args) == 1:
            args = args[0]
        return fn(self, args)
    method.__name__ = name
    method.__doc__ = fn.__doc__
    return method


METHODS: dict[str, Any] = {
    "split": _split_method, "chunk": as_method(chunk), "unbind": as_method(unbind),
    "fliplr": as_method(fliplr),
    "flipud": as_method(flipud), "rot90": as_method(rot90), "roll": as_method(roll),
    "repeat": repeat, "tile": _varargs_method(tile, "tile"), "tril": as_method(tril),
    "triu": as_method(triu), "diag": as_method(diag),
    "tril_": tril_, "triu_": triu_,
}


"""More shape ops, composed from the views and copies pyth already has: module-level forms of
the view methods, movedim, unflatten, tensor_split and the *split / *stack family,
broadcasting helpers, repeat_interleave, cartesian_prod, squeeze over several dims."""

from __future__ import annotations

import itertools
import operator
from typing import Any, Callable, Sequence

from ..overrides import TYPES as _OVERRIDING, dispatch as _dispatch, overridden as _overridden
from .. import dtypes as _dt
from .._errors import not_implemented
from .._ops import as_method, result_of
from .._prims import shape as _so
from .._prims.creation import arange, empty, ones, tensor, zeros
from ..autograd.recorded import diag, index_select
from .._size import Size
from ..tensor import Tensor, as_dim, as_int64, parse_sizes
from ..autograd import recorded


def _wrap(d: Any, n: int, op: str) -> int:
    """dim d (negative counts from the end) checked against n dims (0-dim tensors take -1, 0)."""
    d = as_dim(d, op)
    m = max(n, 1)
    if not -m <= d < m:
        raise IndexError(f"{op}(): Dimension out of range (expected to be in range of "
                         f"[{-m}, {m - 1}], but got {d})")
    return d % m


def _dim_list(dims: Any, n: int, op: str) -> list:
    if isinstance(dims, (int,)) or hasattr(dims, "__index__"):
        dims = [dims]
    out = [_wrap(d, n, op) for d in dims]
    if len(set(out)) != len(out):
        raise RuntimeError(f"{op}(): repeated dim")
    return out


# ---- module-level forms of view methods ----

def reshape(input: Tensor, shape: Sequence[int]) -> Tensor:
    """input with a new shape (a view when the strides allow it)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(reshape, locals())
    return input.reshape(shape)


def permute(input: Tensor, dims: Sequence[int]) -> Tensor:
    """A view with the dims reordered."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(permute, locals())
    return input.permute(dims)


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """A view with dims dim0 and dim1 swapped."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(transpose, locals())
    return input.transpose(dim0, dim1)


def unsqueeze(input: Tensor, dim: int) -> Tensor:
    """A view with a size-1 dim inserted at dim."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(unsqueeze, locals())
    return input.unsqueeze(dim)


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Dims start_dim..end_dim merged into one."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(flatten, locals())
    return input.flatten(start_dim, end_dim)


def narrow(input: Tensor, dim: int, start: Any, length: int) -> Tensor:
    """A view of length entries of dim from start."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(narrow, locals())
    return input.narrow(dim, int(start), length)


def select(input: Tensor, dim: int, index: int) -> Tensor:
    """A view of one index of dim (the dim removed)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(select, locals())
    return input.select(dim, index)


def t(input: Tensor) -> Tensor:
    """Transpose of a tensor of at most 2 dims."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(t, locals())
    return input.t()


def numel(input: Tensor) -> int:
    """Number of elements of input."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(numel, locals())
    return input.numel()


def is_tensor(obj: Any) -> bool:
    """True for pyth tensors."""
    return isinstance(obj, Tensor)


def is_floating_point(input: Tensor) -> bool:
    """True when input's dtype is a floating point type."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(is_floating_point, locals())
    return input.dtype.is_floating_point


def is_nonzero(input: Tensor) -> bool:
    """The truth of a one-element tensor."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(is_nonzero, locals())
    return bool(input)


_squeeze_all = Tensor.squeeze  # the C view (newSqueeze); the method below replaces Tensor's


def squeeze(input: Tensor, dim: Any = None) -> Tensor:
    """input without its size-1 dims (all of them, or those among dim: an int or a tuple)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(squeeze, locals())
    if dim is None or isinstance(dim, int):
        return _squeeze_all(input, dim)
    n = input.dim()
    dims = _dim_list(dim, n, "squeeze")
    if n == 0:
        return input.view(())
    keep = [i for i in range(n) if not (i in dims and input.size(i) == 1)]
    return input.as_strided([input.size(i) for i in keep], [input.stride(i) for i in keep],
                            input.storage_offset())


def _squeeze_method(self: Tensor, *dim: Any) -> Tensor:
    """self without its size-1 dims (all, or those among dim)."""
    if len(dim) == 1:
        dim = dim[0]
    return squeeze(self, dim if dim != () else None)


def ravel(input: Tensor) -> Tensor:
    """input flattened to 1-D (a view when contiguous)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(ravel, locals())
    return input.reshape(-1)


def _mT(self: Tensor) -> Tensor:
    if self.dim() < 2:
        raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. "
                           f"Got {self.dim()}-D tensor.")
    return self.transpose(-2, -1)


def _mH(self: Tensor) -> Tensor:
    if self.dim() < 2:
        raise RuntimeError(f"tensor.mH is only supported on matrices or batches of matrices. "
                           f"Got {self.dim()}-D tensor.")
    return self.transpose(-2, -1)  # no complex dtypes: the adjoint is the transpose


def adjoint(input: Tensor) -> Tensor:
    """The conjugate transpose of the last two dims (the transpose, with real dtypes)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(adjoint, locals())
    return _mH(input)


def unflatten(input: Tensor, dim: int, sizes: Sequence[int]) -> Tensor:
    """dim split into sizes (one entry may be -1)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(unflatten, locals())
    d = _wrap(dim, input.dim(), "unflatten")
    sizes = parse_sizes((sizes,), "unflatten")
    if len(sizes) == 0:
        raise RuntimeError("unflatten: sizes must be non-empty")
    shape = list(input.size())
    known = 1
    for s in sizes:
        if s != -1:
            known *= s
    if sizes.count(-1) > 1:
        raise RuntimeError("unflatten: only one dimension can be inferred")
    if -1 in sizes:
        if known == 0 or shape[d] % known:
            raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to "
                               f"the size of dim {dim} ({shape[d]}) in the input tensor")
        sizes = [shape[d] // known if s == -1 else s for s in sizes]
    elif known != shape[d]:
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the "
                           f"size of dim {dim} ({shape[d]}) in the input tensor")
    return input.view(shape[:d] + list(sizes) + shape[d + 1:])


def movedim(input: Tensor, source: Any, destination: Any) -> Tensor:
    """A view with the dims in source moved to the positions in destination."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(movedim, locals())
    n = input.dim()
    if isinstance(source, int) != isinstance(destination, int):
        raise TypeError("movedim(): source and destination must both be ints or both be "
                        "sequences of ints")
    src = _dim_list(source, n, "movedim")
    dst = _dim_list(destination, n, "movedim")
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(src)} "
                           f"dims) should contain the same number of dims as destination "
                           f"({list(dst)} dims)")
    order = [-1] * n
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(i for i in range(n) if i not in src)
    order = [o if o >= 0 else next(rest) for o in order]
    return input.permute(order) if n else input.view(())


def swapdims(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """A view with dims dim0 and dim1 swapped (transpose)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(swapdims, locals())
    return input.transpose(dim0, dim1)


# ---- splitting ----

def tensor_split(input: Tensor, indices_or_sections: Any, dim: int = 0) -> tuple:
    """Views of input along dim: n near-equal sections, or cut at the given indices."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(tensor_split, locals())
    if input.dim() == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           "tensor with 0 dims")
    d = _wrap(dim, input.dim(), "tensor_split")
    size = input.size(d)
    ios = indices_or_sections
    if isinstance(ios, Tensor):
        if ios.dtype is not _dt.int64 or ios.dim() > 1:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to have "
                               "dtype of long and be a 0-D or 1-D tensor")
        ios = ios.item() if ios.dim() == 0 else ios.tolist()
    if isinstance(ios, (list, tuple)):
        bounds = [0] + [operator.index(i) for i in ios] + [size]
        out = []
        for a, b in zip(bounds, bounds[1:]):
            a = min(max(a + size if a < 0 else a, 0), size)
            b = min(max(b + size if b < 0 else b, 0), size)
            out.append(input.narrow(d, a, max(b - a, 0)))
        return tuple(out)
    n = operator.index(ios)
    if n <= 0:
        raise RuntimeError(f"number of sections must be larger than 0, got {n}")
    q, r = divmod(size, n)
    out, start = [], 0
    for i in range(n):
        length = q + (1 if i < r else 0)
        out.append(input.narrow(d, start, length))
        start += length
    return tuple(out)


def _split_by(op: str, input: Tensor, ios: Any, dim: int, need: int) -> tuple:
    if input.dim() < need:
        raise RuntimeError(f"torch.{op} requires a tensor with at least {need} dimension, but "
                           f"got a tensor with {input.dim()} dimensions!")
    if isinstance(ios, int) and input.size(dim) % ios:
        raise RuntimeError(f"torch.{op} attempted to split along dimension {dim}, but the size "
                           f"of the dimension {input.size(dim)} is not divisible by the split_size "
                           f"{ios}!")
    return tensor_split(input, ios, dim)


def hsplit(input: Tensor, indices_or_sections: Any) -> tuple:
    """tensor_split along dim 1 (dim 0 for 1-D input); sections must divide evenly."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(hsplit, locals())
    return _split_by("hsplit", input, indices_or_sections, 1 if input.dim() > 1 else 0, 1)


def vsplit(input: Tensor, indices_or_sections: Any) -> tuple:
    """tensor_split along dim 0 of an at least 2-D input; sections must divide evenly."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(vsplit, locals())
    return _split_by("vsplit", input, indices_or_sections, 0, 2)


def dsplit(input: Tensor, indices_or_sections: Any) -> tuple:
    """tensor_split along dim 2 of an at least 3-D input; sections must divide evenly."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(dsplit, locals())
    return _split_by("dsplit", input, indices_or_sections, 2, 3)


# ---- stacking ----

def column_stack(tensors: Sequence[Tensor], *, out: Tensor | None = None) -> Tensor:
    """1-D and 0-D tensors as columns, then hstack."""
    cols = [t.reshape(t.numel(), 1) if t.dim() <= 1 else t for t in tensors]
    return _so.hstack(cols, out=out)


def row_stack(tensors: Sequence[Tensor], *, out: Tensor | None = None) -> Tensor:
    """vstack (an alias)."""
    return _so.vstack(tensors, out=out)


# ---- broadcasting ----

def broadcast_shapes(*shapes: Any) -> Size:
    """The shape all of shapes broadcast to (RuntimeError when they cannot)."""
    result: list = []
    for s in shapes:
        s = [s] if isinstance(s, int) else list(s)
        for i in range(1, len(s) + 1):
            if i > len(result):
                result.insert(0, s[-i])
            elif result[-i] == 1:
                result[-i] = s[-i]
            elif s[-i] != 1 and s[-i] != result[-i]:
                raise RuntimeError(f"Shape mismatch: objects cannot be broadcast to a single "
                                   f"shape.  Mismatch is between {list(shapes)} at dim "
                                   f"{len(result) - i}")
    return Size(result)


def broadcast_to(input: Tensor, size: Sequence[int]) -> Tensor:
    """A view of input expanded to size (stride 0 along broadcast dims)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(broadcast_to, locals())
    return input.expand(*parse_sizes((size,), "broadcast_to"))


def broadcast_tensors(*tensors: Tensor) -> tuple:
    """Views of the tensors expanded to their common broadcast shape."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shape = broadcast_shapes(*(t.size() for t in tensors))
    return tuple(t.expand(*shape) for t in tensors)


# ---- repetition and products ----

def _check_repeats(repeats: Tensor) -> None:
    """PyTorch counts repeats in int32 or int64 only (no kernel for other dtypes)."""
    if repeats.dtype not in (_dt.int32, _dt.int64):
        raise not_implemented("repeat_interleave", repeats.dtype, "repeats must be int32 or "
                              "int64")


def repeat_interleave(input: Any, repeats: Any = None, dim: int | None = None, *,
                      output_size: int | None = None) -> Tensor:
    """Each element (or slice along dim) repeated repeats times (an int or a tensor)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(repeat_interleave, locals())
    if repeats is None:  # repeat_interleave(repeats): indices repeated by their counts
        counts = input
        _check_repeats(counts)
        if counts.dim() != 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        return repeat_interleave(arange(counts.numel()), counts, 0)
    if dim is None:
        input, d = input.reshape(-1), 0
    else:
        d = _wrap(dim, input.dim(), "repeat_interleave")
    n = input.size(d) if input.dim() else 1
    if isinstance(repeats, Tensor):
        if repeats.dim() > 1:
            raise RuntimeError("repeat_interleave(): repeats must be a 0-dim or 1-dim tensor")
        _check_repeats(repeats)
        counts = repeats.reshape(-1).long()
        if counts.numel() == 1:
            counts = counts.expand(n).contiguous()
    else:
        counts = tensor([operator.index(repeats)]).expand(n).contiguous()
    if counts.numel() != n:
        raise RuntimeError("repeats must have the same size as input along dim")
    if n and int(counts.amin()) < 0:
        raise RuntimeError("repeats can not be negative")
    if input.numel() == 0 and n:   # an empty result: sized from it, no index of its length
        total = int(counts.sum())
        if output_size is not None and output_size != total:
            raise RuntimeError("repeat_interleave(): output_size does not match the sum of "
                               "repeats")
        shape = list(input.shape)
        shape[d] = total
        return input.reshape(shape).clone()
    idx = _repeat_index(counts)
    if output_size is not None and output_size != idx.numel():
        raise RuntimeError("repeat_interleave(): output_size does not match the sum of repeats")
    return index_select(input, d, idx)


def _repeat_index(counts: Tensor) -> Tensor:
    """0 repeated counts[0] times, 1 counts[1] times, ...: a 1 is added where each run starts
    (several where runs are empty) and the running sum, less one, numbers the runs."""
    total = int(counts.sum()) if counts.numel() else 0
    starts = counts.cumsum(0) - counts
    marks = zeros(total + 1, dtype=_dt.int64).index_add_(0, starts, ones(counts.numel(),
                                                                          dtype=_dt.int64))
    return marks.narrow(0, 0, total).cumsum(0) - 1


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """All combinations of the 1-D tensors' elements, one per row (the 1-D input for one)."""
    for t_ in tensors:
        if t_.dim() != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t_.size())}")
    if len(tensors) == 1:
        return tensors[0].clone()
    grids = _so.meshgrid(*tensors, indexing="ij")
    return recorded.stack([g.reshape(-1) for g in grids], 1)


FUNCTIONS: dict[str, Callable] = {
    "reshape": reshape, "permute": permute, "transpose": transpose, "swapaxes": transpose,
    "unsqueeze": unsqueeze, "flatten": flatten, "narrow": narrow, "select": select, "t": t,
    "numel": numel, "is_tensor": is_tensor, "is_floating_point": is_floating_point,
    "is_nonzero": is_nonzero, "squeeze": squeeze, "ravel": ravel, "adjoint": adjoint,
    "unflatten": unflatten, "movedim": movedim, "moveaxis": movedim, "swapdims": swapdims,
    "tensor_split": tensor_split, "hsplit": hsplit, "vsplit": vsplit, "dsplit": dsplit,
    "column_stack": column_stack, "row_stack": row_stack, "broadcast_shapes": broadcast_shapes,
    "broadcast_to": broadcast_to, "broadcast_tensors": broadcast_tensors,
    "repeat_interleave": repeat_interleave, "cartesian_prod": cartesian_prod,
}


def _flip_method(self: Tensor, *dims: Any, **kw: Any) -> Tensor:
    """self with the order of entries reversed along dims."""
    if "dims" in kw:
        dims = kw.pop("dims")
    elif len(dims) == 1:
        dims = dims[0]
    if kw:
        raise TypeError(f"flip() got an unexpected keyword argument '{next(iter(kw))}'")
    return recorded.flip(self, dims)


def _method(fn: Callable) -> Callable:
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Any:
        return fn(self, *args, **kwargs)
    method.__name__, method.__doc__ = fn.__name__, fn.__doc__
    return method


def _tuple_method(fn: Callable) -> Callable:
    """A method taking its sizes either as varargs or as one sequence (t.unflatten(0, (2, 3)))."""
    return _method(fn)


METHODS: dict[str, Any] = {
    "squeeze": _squeeze_method, "ravel": _method(ravel), "unflatten": _method(unflatten),
    "movedim": _method(movedim), "moveaxis": _method(movedim), "swapdims": _method(swapdims),
    "tensor_split": _method(tensor_split), "hsplit": _method(hsplit),
    "vsplit": _method(vsplit), "dsplit": _method(dsplit), "broadcast_to": _method(broadcast_to),
    "repeat_interleave": _method(repeat_interleave), "adjoint": _method(adjoint),
    "mT": property(_mT), "mH": property(_mH), "flip": _flip_method,
    "is_nonzero": _method(is_nonzero),
}


def narrow_copy(input: Tensor, dim: int, start: int, length: int, *,
                out: Tensor | None = None) -> Tensor:
    """A copy of input.narrow(dim, start, length)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(narrow_copy, locals())
    return result_of("narrow_copy", input.narrow(dim, start, length).clone(), out)


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Matrices (in dims dim1, dim2 of the result) whose diagonal holds input's last dim."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(diag_embed, locals())
    n = input.size(-1) + abs(offset)
    nd = input.dim() + 1
    d1, d2 = dim1 % nd, dim2 % nd
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    shape = list(input.size())[:-1]
    full_shape = list(shape)
    for d in sorted((d1, d2)):
        full_shape.insert(d, n)
    r = zeros(*full_shape, dtype=input.dtype)
    r.diagonal(offset, d1, d2).copy_(input)
    return r


def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """A matrix with input's elements (flattened) on diagonal offset."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(diagflat, locals())
    return diag(input.reshape(-1), offset)


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """All length-r combinations of a 1-D tensor's elements, one per row (itertools order)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(combinations, locals())
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.size())}")
    r = as_int64(r, "combinations", "r")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return empty(0, dtype=input.dtype)
    pick = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    idx = list(pick(range(input.size(0)), r))
    if not idx:
        return empty(0, r, dtype=input.dtype)
    return input.index_select(0, tensor(idx).reshape(-1)).reshape(len(idx), r)


FUNCTIONS.update({"narrow_copy": narrow_copy, "diag_embed": diag_embed, "diagflat": diagflat,
                  "combinations": combinations})
METHODS.update({n: as_method(FUNCTIONS[n]) for n in ("narrow_copy", "diag_embed", "diagflat")})

"""More indexing ops, composed from pyth's gather / scatter / index kernels: index_put(_)
(accumulate= through index_add_ on a flattened view), take_along_dim, scatter_reduce (the C
scatter kernel's add, multiply, amax and amin modes; mean from a sum and a count),
fill_diagonal_, and the *_scatter functions (slice, select, diagonal)."""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

from ..overrides import TYPES as _OVERRIDING, dispatch as _dispatch
from .. import dtypes as _dt
from .._errors import check
from .._ops import as_method, as_tensor, result_of
from .._prims.creation import arange, ones_like as ones_of, tensor, zeros_like
from .._prims.indexing import nonzero
from ..autograd.recorded import POINTWISE as P, gather
from .._th import lib
from ..tensor import Tensor, as_int64


where = P["where"]


def _need_tensor(op: str, x: Any, name: str = "input") -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument '{name}' must be Tensor, not {type(x).__name__}")


# ---- index_put ----

def _index_tensors(op: str, indices: Sequence[Any]) -> list:
    """The index tensors as int64, bool masks expanded to their nonzero coordinates."""
    out = []
    for ix in indices:
        if not isinstance(ix, Tensor):
            ix = tensor(ix)
        if ix.dtype in (_dt.bool_, _dt.uint8):
            out.extend(nonzero(ix, as_tuple=True))
        elif ix.dtype.kind in "ui":
            out.append(ix.long())
        else:
            raise IndexError(f"{op}(): tensors used as indices must be long, int, byte or bool "
                             f"tensors")
    return out


def index_put_(self: Tensor, indices: Sequence[Any], values: Any,
               accumulate: bool = False) -> Tensor:
    """self[indices] = values (or += with accumulate=True, duplicates summed)."""
    if type(self) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(index_put_, locals())
    from .shape import broadcast_tensors
    _need_tensor("index_put_", self, "self")
    idx = _index_tensors("index_put_", tuple(indices))
    if len(idx) > self.dim():
        raise IndexError(f"too many indices for tensor of dimension {self.dim()} (got "
                         f"{len(idx)})")
    if not isinstance(values, Tensor):
        values = as_tensor(values, self.dtype)
    elif values.dtype is not self.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{self.dtype.real} for the destination and {values.dtype.real} for "
                           f"the source.")
    if not accumulate:
        self[tuple(idx)] = values
        return self
    if not idx:
        return self.add_(values)
    idx = list(broadcast_tensors(*idx))
    k = len(idx)
    lead = list(self.size())[:k]
    rest = list(self.size())[k:]
    linear = None
    for d, ix in enumerate(idx):
        n = lead[d]
        if ix.numel() and (int(ix.amax()) >= n or int(ix.amin()) < -n):
            raise IndexError(f"index {int(ix.amax()) if int(ix.amax()) >= n else int(ix.amin())}"
                             f" is out of bounds for dimension {d} with size {n}")
        ix = P["remainder"](ix, n) if n else ix
        linear = ix if linear is None else P["add"](P["mul"](linear, n), ix)
    linear = linear.reshape(-1)
    src = values.expand(*(list(idx[0].size()) + rest)).reshape([linear.numel()] + rest)
    target = self if self.is_contiguous() else self.contiguous()
    flat = target.view([math.prod(lead)] + rest)
    flat.index_add_(0, linear, src)
    if target is not self:
        self.copy_(target)
    return self


def index_put(input: Tensor, indices: Sequence[Any], values: Any,
              accumulate: bool = False) -> Tensor:
    """A copy of input with input[indices] = values (or += with accumulate=True)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(index_put, locals())
    return index_put_(input.clone(), indices, values, accumulate)


# ---- take_along_dim ----

def take_along_dim(input: Tensor, indices: Tensor, dim: int | None = None, *,
                   out: Tensor | None = None) -> Tensor:
    """Values of input at indices along dim (input and indices broadcast on the other dims);
    dim None: indices into the flattened input."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(take_along_dim, locals())
    from .shape import _wrap
    _need_tensor("take_along_dim", input)
    if indices.dtype is not _dt.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{indices.dtype.real}")
    if dim is None:
        return result_of("take_along_dim", input.reshape(-1).take(indices.reshape(-1)), out)
    if input.dim() != indices.dim():
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same "
                           f"number of dimensions, but got {input.dim()} dimensions for input, "
                           f"and {indices.dim()} dimensions for indices")
    d = _wrap(dim, input.dim(), "take_along_dim")
    ishape, xshape = list(indices.size()), list(input.size())
    for k in range(input.dim()):
        if k != d and ishape[k] != xshape[k] and 1 not in (ishape[k], xshape[k]):
            raise RuntimeError(f"The size of tensor a ({ishape[k]}) must match the size of "
                               f"tensor b ({xshape[k]}) at non-singleton dimension {k}")
    common = [max(a, b) if k != d else None for k, (a, b) in enumerate(zip(ishape, xshape))]
    xs = [c if k != d else xshape[d] for k, c in enumerate(common)]
    ix = [c if k != d else ishape[d] for k, c in enumerate(common)]
    r = gather(input.expand(*xs), d, P["remainder"](indices, max(xshape[d], 1))
               .expand(*ix).contiguous())
    return result_of("take_along_dim", r, out)


# ---- scatter_reduce ----

def scatter_reduce_(self: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                    include_self: bool = True) -> Tensor:
    """self's elements at index along dim combined with src by reduce: 'sum', 'prod', 'mean',
    'amax' or 'amin' (include_self=False: self's old values there are left out)."""
    from .shape import _wrap
    _need_tensor("scatter_reduce_", self, "self")
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)  # PyTorch accepts these too
    if reduce not in ("sum", "prod", "mean", "amax", "amin"):
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    if src.dtype is not self.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if index.dtype is not _dt.int64:
        raise RuntimeError("scatter(): Expected dtype int64 for index")
    d = _wrap(dim, self.dim(), "scatter_reduce_")
    if index.numel() == 0:
        return self
    src = _fit(src, index)
    if index.dim() != self.dim():
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    for k in range(self.dim()):
        if k != d and index.size(k) > self.size(k):
            raise RuntimeError(f"Expected index {list(index.size())} to be smaller than self "
                               f"{list(self.size())} apart from dimension {d}")
    lo, hi = int(index.amin()), int(index.amax())
    if lo < 0 or hi >= self.size(d):
        raise RuntimeError(f"index {hi if hi >= self.size(d) else lo} is out of bounds for "
                           f"dimension {d} with size {self.size(d)}")
    if reduce in ("sum", "mean", "prod"):  # the C scatter kernels (add, multiply)
        if not include_self:
            self.scatter_(d, index, value=1 if reduce == "prod" else 0)
        if reduce == "prod":
            return self.scatter_(d, index, src, reduce="multiply")
        self.scatter_add_(d, index, src)
        if reduce == "mean":
            counts = zeros_like(self, dtype=_dt.int64).scatter_add_(
                d, index, ones_of(index, dtype=_dt.int64))
            if include_self:
                counts = P["add"](counts, 1)
            counts = P["clamp"](counts, min=1).to(self.dtype)
            self.copy_(P["div"](self, counts) if self.dtype.is_floating_point
                       else P["floor_divide"](self, counts))
        return self
    # amax / amin: the C scatter kernel's TH_REDUCE_AMAX / AMIN; without self, the targets
    # first take the reduction's identity (-inf / the dtype's minimum for amax, ...)
    if not include_self:
        self.scatter_(d, index, value=_identity(self.dtype, reduce))
    mode = lib.TH_REDUCE_AMAX if reduce == "amax" else lib.TH_REDUCE_AMIN
    src = src if src.dtype is self.dtype else src.to(self.dtype)
    check(self.dtype.tensor.scatter(self._h, d, index._h, src._h, mode))
    return self


def _identity(dt: _dt.dtype, reduce: str) -> Any:
    """The value amax (amin) starts from: -inf (+inf) for floats, the dtype's extreme else."""
    if dt is _dt.bool_:
        return reduce == "amin"
    if dt.is_floating_point:
        return -math.inf if reduce == "amax" else math.inf
    return dt.min if reduce == "amax" else dt.max


def _fit(src: Tensor, index: Tensor) -> Tensor:
    """src narrowed to index's shape (scatter uses only that corner of src)."""
    for k in range(index.dim()):
        if src.size(k) < index.size(k):
            raise RuntimeError(f"Expected index {list(index.size())} to be smaller than self "
                               f"apart from dimension and to be smaller size than src "
                               f"{list(src.size())}")
        src = src.narrow(k, 0, index.size(k))
    return src


def scatter_reduce(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                   include_self: bool = True, out: Tensor | None = None) -> Tensor:
    """A copy of input with src scattered into it by reduce (see scatter_reduce_)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(scatter_reduce, locals())
    r = scatter_reduce_(input.clone(), dim, index, src, reduce, include_self=include_self)
    return result_of("scatter_reduce", r, out)


# ---- fill_diagonal_ ----

def fill_diagonal_(self: Tensor, fill_value: Any, wrap: bool = False) -> Tensor:
    """Fill the main diagonal (all dims of equal size, or any 2-D matrix); wrap=True restarts
    it every cols + 1 rows of a tall matrix."""
    n = self.dim()
    if n < 2:
        raise RuntimeError("dimensions must larger than 1")
    if n > 2 and len(set(self.size())) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    if self.numel() == 0:
        return self
    length = min(self.size())
    diag = self.as_strided([length], [sum(self.stride())], self.storage_offset())
    diag.fill_(fill_value)
    rows, cols = self.size(0), self.size(1)
    if wrap and n == 2 and rows > cols + 1:
        pos = arange(0, rows * cols, cols + 1)
        r, c = P["floor_divide"](pos, cols), P["remainder"](pos, cols)
        self[r, c] = fill_value
    return self


# ---- *_scatter: a copy of input with a view of it replaced by src ----

def slice_scatter(input: Tensor, src: Tensor, dim: int = 0, start: int | None = None,
                  end: int | None = None, step: int = 1) -> Tensor:
    """A copy of input with input[..., start:end:step, ...] (along dim) set to src; start, end
    and step are int64 arguments (ValueError beyond), clamped to the dim as Python's slices."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(slice_scatter, locals())
    start, end = (None if v is None else as_int64(v, "slice_scatter", n)
                  for v, n in ((start, "start"), (end, "end")))
    step = as_int64(step, "slice_scatter", "step")
    r = input.clone()
    index = [slice(None)] * input.dim()
    index[dim] = slice(start, end, step)
    view = r[tuple(index)]
    if tuple(view.size()) != tuple(src.size()):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.size())}, slice size = {list(view.size())}")
    view.copy_(src)
    return r


def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    """A copy of input with input.select(dim, index) set to src."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(select_scatter, locals())
    r = input.clone()
    view = r.select(dim, index)
    if tuple(view.size()) != tuple(src.size()):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.size())}, slice size = {list(view.size())}")
    view.copy_(src)
    return r


def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0,
                     dim2: int = 1) -> Tensor:
    """A copy of input with its diagonal (offset, dim1, dim2) set to src."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(diagonal_scatter, locals())
    r = input.clone()
    view = r.diagonal(offset, dim1, dim2)
    if tuple(view.size()) != tuple(src.size()):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.size())}, slice size = {list(view.size())}")
    view.copy_(src)
    return r


FUNCTIONS: dict[str, Callable] = {
    "index_put": index_put, "index_put_": index_put_, "take_along_dim": take_along_dim,
    "scatter_reduce": scatter_reduce, "slice_scatter": slice_scatter,
    "select_scatter": select_scatter, "diagonal_scatter": diagonal_scatter,
}

METHODS: dict[str, Any] = {
    "index_put_": index_put_, "index_put": as_method(index_put),
    "take_along_dim": as_method(take_along_dim), "scatter_reduce": as_method(scatter_reduce),
    "scatter_reduce_": scatter_reduce_, "fill_diagonal_": fill_diagonal_,
    "slice_scatter": as_method(slice_scatter), "select_scatter": as_method(select_scatter),
    "diagonal_scatter": as_method(diagonal_scatter),
}


def unravel_index(indices: Any, shape: Any) -> tuple:
    """Coordinates in shape of flat indices, one tensor per dim."""
    idx = indices if isinstance(indices, Tensor) else tensor(indices)
    if idx.dtype.is_floating_point or idx.dtype is _dt.bool_:
        raise TypeError("expected 'indices' to be integer dtype, but got "
                        f"{idx.dtype.name}")
    shape = [shape] if isinstance(shape, int) else list(shape)
    total = math.prod(shape)
    idx = P["remainder"](idx.long(), total) if total else idx.long()
    out = []
    for s in reversed(shape):
        out.append(P["remainder"](idx, s))
        idx = P["floor_divide"](idx, s)
    return tuple(reversed(out))


def index_reduce_(self: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                  include_self: bool = True) -> Tensor:
    """self's slices index[k] along dim combined with source's slice k by reduce ('prod',
    'mean', 'amax', 'amin')."""
    from .indexing import scatter_reduce_
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           f"amin but got {reduce}.")
    if index.dim() > 1:
        raise IndexError("index_reduce_(): Index is supposed to be a vector")
    d = dim % max(self.dim(), 1)
    shape = [1] * source.dim()
    shape[d] = index.numel()
    full = index.long().reshape(shape).expand(*source.size()).contiguous()
    return scatter_reduce_(self, d, full, source, reduce, include_self=include_self)


def index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                 include_self: bool = True) -> Tensor:
    """A copy of input with index_reduce_ applied."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(index_reduce, locals())
    return index_reduce_(input.clone(), dim, index, source, reduce, include_self=include_self)


FUNCTIONS.update({"unravel_index": unravel_index, "index_reduce": index_reduce})
METHODS.update({"index_reduce": as_method(index_reduce), "index_reduce_": index_reduce_})

"""Indexing ops: index_select/copy/fill/add, gather/scatter, masks, nonzero, take/put.

Each op checks its arguments as PyTorch does (index dtypes, mask dtype, matching source dtype)
and calls one stamped C kernel, `lib.TH<Real>Tensor_<name>` (generic/THTensorIndex.c), which
checks shapes and every index value before writing anything. In-place ops are the primitives;
their out-of-place forms run them on a copy. Both, plus the methods, are installed on Tensor
from the tables at the bottom.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..overrides import TYPES as _OVERRIDING, dispatch as _dispatch
from .. import dtypes as _dt
from .._errors import check
from .._ops import as_method, conflicts, into, is_scalar, result_of, scalar_value
from .._th import lib
from ..tensor import Tensor, as_dim

# ---- argument checks -------------------------------------------------------------------------

_LONG = (_dt.int64,)
_INT_OR_LONG = (_dt.int64, _dt.int32)

# op -> (index dtypes PyTorch accepts, the exception it raises for others)
_INDEX_DTYPES: dict[str, tuple[tuple, type]] = {
    "index_select": (_INT_OR_LONG, RuntimeError), "index_add_": (_INT_OR_LONG, RuntimeError),
    "index_copy_": (_LONG, RuntimeError), "index_fill_": (_LONG, IndexError),
    "gather": (_INT_OR_LONG, RuntimeError), "scatter_": (_INT_OR_LONG, RuntimeError),
    "scatter_add_": (_INT_OR_LONG, RuntimeError), "take": (_LONG, RuntimeError),
    "put_": (_LONG, RuntimeError),
}

_REDUCE = {None: lib.TH_REDUCE_NONE, "add": lib.TH_REDUCE_ADD,
           "multiply": lib.TH_REDUCE_MULTIPLY}


def _tensor(op: str, name: str, x: Any) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument '{name}' must be Tensor, not {type(x).__name__}")
    return x


def _index(op: str, index: Any) -> Tensor:
    """index as an int64 tensor, if PyTorch accepts its dtype for op."""
    accepted, exc = _INDEX_DTYPES[op]
    _tensor(op, "index", index)
    if index.dtype not in accepted:
        names = " or ".join(d.name for d in accepted)
        raise exc(f"{op}(): expected dtype {names} for index, but got {index.dtype.name}")
    return index.long()


def _mask(op: str, mask: Any) -> Tensor:
    _tensor(op, "mask", mask)
    if mask.dtype is not _dt.bool_:
        raise RuntimeError(f"{op}(): only supports boolean masks, but got mask with dtype "
                           f"{mask.dtype.name}")
    return mask


def _source(op: str, self: Tensor, source: Any, name: str = "source") -> Tensor:
    _tensor(op, name, source)
    if source.dtype is not self.dtype:
        raise RuntimeError(f"{op}(): self and {name} expected to have the same dtype, but got "
                           f"(self) {self.dtype.name} and ({name}) {source.dtype.name}")
    return source


def _apart(self: Tensor, *operands: Tensor) -> tuple:
    """operands, each one that shares memory with self (which the kernel writes while reading
    them) replaced by a copy."""
    return tuple(t.clone() if conflicts(self, (t,)) else t for t in operands)


def _value(op: str, dt: _dt.dtype, value: Any):
    """A fill value (number or 0-dim tensor) as dt's C value."""
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError(f"{op}(): only supports a 0-dimensional value tensor, but got "
                               f"tensor with {value.dim()} dimension(s)")
        value = value.item()
    if not is_scalar(value):
        raise TypeError(f"{op}(): value must be a number or a 0-dim tensor, not "
                        f"{type(value).__name__}")
    return dt.to_c(scalar_value(value))


# ---- in-place primitives ---------------------------------------------------------------------

def index_copy_(self: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """self's slices index[k] along dim become source's slices k (later duplicates win)."""
    idx, src = _apart(self, _index("index_copy_", index), _source("index_copy_", self, source))
    check(self.dtype.tensor.indexCopy(self._h, as_dim(dim), idx._h, src._h))
    return self


def index_add_(self: Tensor, dim: int, index: Tensor, source: Tensor, *,
               alpha: Any = 1) -> Tensor:
    """self's slices index[k] along dim += alpha * source's slices k; duplicates accumulate."""
    idx, src = _apart(self, _index("index_add_", index), _source("index_add_", self, source))
    a = _value("index_add_", self.dtype, alpha)
    check(self.dtype.tensor.indexAdd(self._h, as_dim(dim), idx._h, src._h, a))
    return self


def index_fill_(self: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    """self's slices index[k] along dim are set to value (negative indices count from the end)."""
    idx, = _apart(self, _index("index_fill_", index))
    v = _value("index_fill_", self.dtype, value)
    check(self.dtype.tensor.indexFill(self._h, as_dim(dim), idx._h, v))
    return self


def scatter_(self: Tensor, dim: int, index: Tensor, src: Any = None, *, value: Any = None,
             reduce: str | None = None) -> Tensor:
    """self[index[i][j]][j] = src[i][j] (dim 0), or = value; reduce 'add'/'multiply' combines."""
    if reduce not in _REDUCE:
        raise RuntimeError(f"scatter_(): reduce argument must be either add or multiply, "
                           f"not {reduce!r}")
    idx, = _apart(self, _index("scatter_", index))
    if src is not None and value is not None:
        raise TypeError("scatter_(): give either src or value, not both")
    if isinstance(src, Tensor):
        s, = _apart(self, _source("scatter_", self, src, "src"))
        check(self.dtype.tensor.scatter(self._h, as_dim(dim), idx._h, s._h, _REDUCE[reduce]))
    else:
        v = _value("scatter_", self.dtype, value if src is None else src)
        check(self.dtype.tensor.scatterFill(self._h, as_dim(dim), idx._h, v, _REDUCE[reduce]))
    return self


def scatter_add_(self: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """self[index[i][j]][j] += src[i][j] (dim 0); duplicate indices accumulate."""
    idx, s = _apart(self, _index("scatter_add_", index), _source("scatter_add_", self, src, "src"))
    check(self.dtype.tensor.scatter(self._h, as_dim(dim), idx._h, s._h, lib.TH_REDUCE_ADD))
    return self


def masked_fill_(self: Tensor, mask: Tensor, value: Any) -> Tensor:
    """self = value where mask (broadcast to self's shape) is true."""
    (m,), v = _apart(self, _mask("masked_fill_", mask)), _value("masked_fill_", self.dtype, value)
    check(self.dtype.tensor.maskedFill(self._h, m._h, v))
    return self


def masked_scatter_(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """Where mask is true, self takes source's elements one after another (row-major)."""
    m, src = _apart(self, _mask("masked_scatter_", mask),
                    _source("masked_scatter_", self, source))
    check(self.dtype.tensor.maskedCopy(self._h, m._h, src._h))
    return self


def put_(self: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """self.flatten()[index] = source (+= with accumulate), self being seen as contiguous."""
    idx, src = _apart(self, _index("put_", index), _source("put_", self, source))
    check(self.dtype.tensor.put(self._h, idx._h, src._h, int(bool(accumulate))))
    return self


# ---- out-of-place ops ------------------------------------------------------------------------

def index_select(input: Tensor, dim: int, index: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The slices index lists along dim, in that order (a copy)."""
    _tensor("index_select", "input", input)
    idx, dt = _index("index_select", index), input.dtype
    return into("index_select", dt, out,
                lambda r: dt.tensor.indexSelect(r._h, input._h, as_dim(dim), idx._h),
                inputs=(input, idx))


def gather(input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False,
           out: Tensor | None = None) -> Tensor:
    """r[i][j] = input[index[i][j]][j] (dim 0); r has index's shape."""
    _tensor("gather", "input", input)
    idx, dt = _index("gather", index), input.dtype
    return into("gather", dt, out,
                lambda r: dt.tensor.gather(r._h, input._h, as_dim(dim), idx._h),
                inputs=(input, idx))


def masked_select(input: Tensor, mask: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The elements where mask is true, as a 1-D tensor (input and mask broadcast)."""
    _tensor("masked_select", "input", input)
    m, dt = _mask("masked_select", mask), input.dtype
    return into("masked_select", dt, out, lambda r: dt.tensor.maskedSelect(r._h, input._h, m._h),
                inputs=(input, m))


def take(input: Tensor, index: Tensor, *, out: Tensor | None = None) -> Tensor:
    """input.flatten()[index]: flat row-major indices (negative from the end), index's shape."""
    _tensor("take", "input", input)
    idx, dt = _index("take", index), input.dtype
    return into("take", dt, out, lambda r: dt.tensor.take(r._h, input._h, idx._h),
                inputs=(input, idx))


def nonzero(input: Tensor, *, out: Tensor | None = None, as_tuple: bool = False) -> Any:
    """Coordinates of the non-zero elements: an int64 (n, ndim) tensor, or one 1-D tensor per
    dim with as_tuple (a 0-dim input counts as 1-D)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(nonzero, locals())
    _tensor("nonzero", "input", input)
    dt = input.dtype
    if as_tuple:
        src = input.reshape(1) if input.dim() == 0 else input
        r = into("nonzero", _dt.int64, None, lambda r: dt.tensor.nonzero(r._h, src._h))
        return tuple(r.select(1, d).contiguous() for d in range(src.dim()))
    return into("nonzero", _dt.int64, out, lambda r: dt.tensor.nonzero(r._h, input._h),
                inputs=(input,))


def argwhere(input: Tensor) -> Tensor:
    """nonzero(input): the (n, ndim) coordinates of the non-zero elements."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(argwhere, locals())
    return nonzero(input)


# ---- tables: functions, methods, in-place methods ----------------------------------------------

def _copy(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    return input.clone()


def _broadcast_copy(input: Tensor, mask: Any = None, *args: Any, **kwargs: Any) -> Tensor:
    """A copy of input broadcast with mask's shape (masked_fill / masked_scatter)."""
    mask = kwargs.get("mask", mask)
    if isinstance(mask, Tensor) and tuple(mask.shape) != tuple(input.shape):
        try:
            shape = np.broadcast_shapes(tuple(input.shape), tuple(mask.shape))
        except ValueError:
            raise RuntimeError(f"shape {list(mask.shape)} of the mask does not broadcast with "
                               f"the input's shape {list(input.shape)}") from None
        return input.expand(shape).clone()
    return input.clone()


# in-place op (name without '_') -> (primitive, how its out-of-place form copies the input)
_INPLACE: dict[str, tuple[Callable, Callable]] = {
    "index_copy": (index_copy_, _copy), "index_add": (index_add_, _copy),
    "index_fill": (index_fill_, _copy), "scatter": (scatter_, _copy),
    "scatter_add": (scatter_add_, _copy), "masked_fill": (masked_fill_, _broadcast_copy),
    "masked_scatter": (masked_scatter_, _broadcast_copy), "put": (put_, _copy),
}

_FUNCTIONS: dict[str, Callable] = {
    "index_select": index_select, "gather": gather, "masked_select": masked_select,
    "take": take, "nonzero": nonzero, "argwhere": argwhere,
}


def _out_of_place(name: str) -> Callable:
    primitive, prepare = _INPLACE[name]

    def fn(input: Tensor, *args: Any, out: Tensor | None = None, **kwargs: Any) -> Tensor:
        _tensor(name, "input", input)
        return result_of(name, primitive(prepare(input, *args, **kwargs), *args, **kwargs), out)
    fn.__name__ = name
    fn.__doc__ = f"Out-of-place {name}_: the result on a copy of input. {primitive.__doc__}"
    return fn


FUNCTIONS: dict[str, Callable] = dict(_FUNCTIONS)
FUNCTIONS.update({name: _out_of_place(name) for name in _INPLACE})


METHODS: dict[str, Any] = {
    **{name: as_method(fn) for name, fn in FUNCTIONS.items()},
    **{name + "_": primitive for name, (primitive, _) in _INPLACE.items()},
}

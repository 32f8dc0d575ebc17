"""Sorting and selection: sort, argsort, msort, topk, kthvalue, median, nanmedian, mode, unique.

Each op is one stamped C kernel per dtype (`lib.TH<Real>Tensor_<op>`, generic/THTensorSort.c)
that works slice by slice along a dim. Order is PyTorch's: NaN sorts above every number, and
ties keep their original order (every sort is stable, whatever `stable` says), so the index an
op reports for tied values is the one a stable sort would give. The (values, indices) ops
return named pairs, as torch.return_types does, and accept out=(values, indices).
"""

from __future__ import annotations

import operator
from collections import namedtuple
from typing import Any

from ..overrides import TYPES as _OVERRIDING, dispatch as _dispatch
from .. import dtypes as _dt
from .._errors import check, not_implemented
from .._ops import as_method, new_result, store_pair
from .._th import ffi
from ..tensor import Tensor, as_dim
from . import recorded

# ---- the table: op -> element kinds it accepts (PyTorch refuses bool for the selections) ----

_KINDS = {"sort": "buif", "argsort": "buif", "msort": "buif", "topk": "uif",
          "kthvalue": "uif", "median": "uif", "nanmedian": "uif", "mode": "buif",
          "unique": "buif"}
# ops that refuse other kinds outright (RuntimeError); the rest have no kernel for them
# (NotImplementedError), as in PyTorch
_REFUSED = {"topk"}

# Named (values, indices) results, one type per op, like torch.return_types.sort.
RETURN_TYPES = {}
for _name in ("sort", "topk", "kthvalue", "median", "nanmedian", "mode"):
    RETURN_TYPES[_name] = namedtuple(_name, ["values", "indices"])
    RETURN_TYPES[_name].__module__ = "pyth.return_types"


def _check_input(op: str, input: Any) -> _dt.dtype:
    """The input's dtype, after checking it is a tensor of a kind op supports."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(input).__name__}")
    if input.dtype.kind not in _KINDS[op]:
        if op in _REFUSED:
            raise RuntimeError(f"{op}(): not implemented for '{input.dtype.real}'")
        raise not_implemented(op, input.dtype)
    return input.dtype


def _index(op: str, name: str, value: Any) -> int:
    """An integer argument (k), TypeError otherwise, as PyTorch; a k outside int64 is out of
    range for any dim (RuntimeError, as the C check says for any other k too large)."""
    try:
        if value.__class__ is bool:
            raise TypeError
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"{op}(): argument '{name}' must be int, not "
                        f"{type(value).__name__}") from None
    if not -(2**63) <= v < 2**63:
        raise RuntimeError(f"{op}(): selected index {name} out of range: {name} = "
                           f"{_dt.short(v)} does not fit in int64")
    return v


def _outputs(op: str, dt: _dt.dtype, out: Any) -> tuple[Tensor, Tensor]:
    """Fresh (values, indices) tensors, or out's after checking their dtypes."""
    if out is None:
        return new_result(dt), new_result(_dt.int64)
    if not (isinstance(out, (tuple, list)) and len(out) == 2
            and all(isinstance(o, Tensor) for o in out)):
        raise TypeError(f"{op}(): out must be a tuple of two tensors (values, indices)")
    for o, want in zip(out, (dt, _dt.int64)):
        if o.dtype is not want:
            raise RuntimeError(f"{op}(): expected out tensor to have dtype {want.name}, but got "
                               f"{o.dtype.name} instead")
    return out[0], out[1]


def _pair(op: str, input: Any, out: Any, call: str, *args: Any) -> tuple:
    """Runs C kernel `call`(values, indices, input, *args) and names the result pair."""
    dt = _check_input(op, input)
    values, indices = _outputs(op, dt, out)
    fn = getattr(dt.tensor, call)
    if out is not None:  # through temporaries when the outs share memory with input or each other
        values, indices = store_pair(op, (values, indices), (input,),
                                     lambda v, i: fn(v._h, i._h, input._h, *args), (dt, _dt.int64))
        return RETURN_TYPES[op](values, indices)
    check(fn(values._h, indices._h, input._h, *args))
    return RETURN_TYPES[op](values, indices)


# ---- the ops -----------------------------------------------------------------------------------

def sort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False, *,
         out: Any = None) -> tuple:
    """(values, indices) of input sorted along dim; always stable, NaN sorted as largest."""
    return _pair("sort", input, out, "sort", as_dim(dim), bool(descending))


def argsort(input: Tensor, dim: int = -1, descending: bool = False,
            stable: bool = False) -> Tensor:
    """The indices that sort input along dim (stable: ties keep their order)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(argsort, locals())
    dt = _check_input("argsort", input)
    indices = new_result(_dt.int64)
    check(dt.tensor.sort(ffi.NULL, indices._h, input._h, as_dim(dim), bool(descending)))
    return indices


def msort(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """input sorted along its first dim (values only)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(msort, locals())
    _check_input("msort", input)
    values = recorded.sort(input, 0).values
    return values if out is None else out.resize_(values.size()).copy_(values)


def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True, *,
         out: Any = None) -> tuple:
    """The k largest (or smallest) elements along dim and their indices, best first.

    Results are always sorted; among equal values the lower index comes first.
    """
    return _pair("topk", input, out, "topk", _index("topk", "k", k), as_dim(dim),
                 bool(largest), bool(sorted))


def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False, *,
             out: Any = None) -> tuple:
    """The k-th smallest element (k from 1) along dim, and its index."""
    return _pair("kthvalue", input, out, "kthvalue", _index("kthvalue", "k", k), as_dim(dim),
                 bool(keepdim))


def _median(op: str, input: Tensor, dim: int | None, keepdim: Any, out: Any) -> Any:
    if dim is not None:
        return _pair(op, input, out, op, as_dim(dim), bool(keepdim))
    if keepdim is not None or out is not None:
        raise TypeError(f"{op}(): keepdim and out need a dim")
    dt = _check_input(op, input)
    value = new_result(dt)
    check(getattr(dt.tensor, op + "All")(value._h, input._h))
    return value


def median(input: Tensor, dim: int | None = None, keepdim: bool | None = None, *,
           out: Any = None) -> Any:
    """The lower median of all elements (a 0-dim tensor), or (values, indices) along dim.

    NaN propagates: a slice holding NaN has median NaN (at its first NaN).
    """
    return _median("median", input, dim, keepdim, out)


def nanmedian(input: Tensor, dim: int | None = None, keepdim: bool | None = None, *,
              out: Any = None) -> Any:
    """median() ignoring NaNs (NaN only where every element is NaN)."""
    return _median("nanmedian", input, dim, keepdim, out)


def mode(input: Tensor, dim: int = -1, keepdim: bool = False, *, out: Any = None) -> tuple:
    """The most frequent value along dim (the smallest on a tie), and its last index."""
    return _pair("mode", input, out, "mode", as_dim(dim), bool(keepdim))


def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False,
           return_counts: bool = False, dim: int | None = None) -> Any:
    """The distinct elements (or, with dim, distinct slices along dim), ascending.

    With return_inverse / return_counts also each element's position in the result and each
    distinct value's count, as a tuple. NaNs are all distinct, 0.0 and -0.0 are one value.
    The result is always sorted.
    """
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(unique, locals())
    dt = _check_input("unique", input)
    values = new_result(dt)
    inverse = new_result(_dt.int64) if return_inverse else None
    counts = new_result(_dt.int64) if return_counts else None
    handles = [values._h] + [t._h if t is not None else ffi.NULL for t in (inverse, counts)]
    if dim is None:
        check(dt.tensor.unique(*handles, input._h))
    else:
        check(dt.tensor.uniqueDim(*handles, input._h, as_dim(dim)))
    result = tuple(t for t in (values, inverse, counts) if t is not None)
    return result[0] if len(result) == 1 else result


FUNCTIONS: dict[str, Any] = {"sort": sort, "argsort": argsort, "msort": msort, "topk": topk,
                             "kthvalue": kthvalue, "median": median, "nanmedian": nanmedian,
                             "mode": mode, "unique": unique}


METHODS: dict[str, Any] = {name: as_method(fn) for name, fn in FUNCTIONS.items()}

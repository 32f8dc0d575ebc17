"""PyTorch's other spellings of ops pyth has (arccos for acos, the in-place forms of the
aliases, t_ / transpose_ / squeeze_ ...), the inverse hyperbolic functions and a few small
pointwise ops written with the kernels pyth has (exp2, ldexp, frexp, mvlgamma), and the
legacy / odd Tensor methods (new, map2_, is_signed, is_same_size, sum_to_size, H, ...)."""

from __future__ import annotations

import math
from typing import Any, Callable

from ..overrides import TYPES as _OVERRIDING, dispatch as _dispatch
from .. import dtypes as _dt
from .._ops import as_method, as_tensor, assign_inplace, result_of
from .._prims.creation import from_numpy, full, tensor
from ..autograd.recorded import POINTWISE as P, cat
from ..tensor import Tensor, parse_sizes
from ..autograd import recorded


def _float(x: Tensor) -> Tensor:
    return x if x.dtype.is_floating_point else x.to(_dt.get_default_dtype())


def _compute(x: Tensor) -> Tensor:
    """x in a dtype to compute in: float32 for half types (one rounding at the end)."""
    x = _float(x)
    return x.float() if x.dtype in (_dt.float16, _dt.bfloat16) else x


def _need(op: str, x: Any) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(x).__name__}")


# ---- inverse hyperbolic functions, in their accurate log1p forms ----

def asinh(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Inverse hyperbolic sine: sign(x) log1p(|x| + x^2 / (1 + sqrt(1 + x^2)))."""
    if not isinstance(input, Tensor):
        if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
            return _dispatch(asinh, locals())
        _need("asinh", input)   # (raises)
    x = _compute(input)
    a = P["abs"](x)
    big = P["gt"](a, 1e150)  # x^2 would overflow: asinh(x) ~ log(2|x|)
    x2 = P["mul"](a, a)
    small = P["log1p"](P["add"](a, P["div"](x2, P["add"](P["sqrt"](P["add"](x2, 1)), 1))))
    r = P["where"](big, P["add"](P["log"](a), math.log(2)), small)
    r = P["mul"](P["copysign"](as_tensor(1.0, r.dtype), x), r)
    r = P["where"](P["isnan"](x), x, r)
    return result_of("asinh", r.to(_float(input).dtype), out)


def acosh(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Inverse hyperbolic cosine: log1p(t + sqrt(2t + t^2)), t = x - 1 (NaN below 1)."""
    if not isinstance(input, Tensor):
        if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
            return _dispatch(acosh, locals())
        _need("acosh", input)   # (raises)
    x = _compute(input)
    t = P["sub"](x, 1)
    big = P["gt"](x, 1e150)
    r = P["log1p"](P["add"](t, P["sqrt"](P["add"](P["mul"](t, 2), P["mul"](t, t)))))
    r = P["where"](big, P["add"](P["log"](x), math.log(2)), r)
    return result_of("acosh", r.to(_float(input).dtype), out)


def atanh(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Inverse hyperbolic tangent: log1p(2x / (1 - x)) / 2."""
    if not isinstance(input, Tensor):
        if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
            return _dispatch(atanh, locals())
        _need("atanh", input)   # (raises)
    x = _compute(input)
    r = P["mul"](P["log1p"](P["div"](P["mul"](x, 2), P["sub"](1, x))), 0.5)
    return result_of("atanh", r.to(_float(input).dtype), out)


def exp2(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """2 ** input."""
    if not isinstance(input, Tensor):
        if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
            return _dispatch(exp2, locals())
        _need("exp2", input)   # (raises)
    x = _float(input)
    return result_of("exp2", P["pow"](as_tensor(2.0, x.dtype), x), out)


def ldexp(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """input * 2 ** other."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(ldexp, locals())
    x = _float(input) if isinstance(input, Tensor) else input
    return P["mul"](x, P["pow"](as_tensor(2.0, x.dtype if isinstance(x, Tensor) else
                                          _dt.get_default_dtype()), other), out=out)


def frexp(input: Tensor, *, out: Any = None) -> Any:
    """(mantissa, exponent) with input = mantissa * 2 ** exponent, 0.5 <= |mantissa| < 1."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(frexp, locals())
    import numpy as np
    from collections import namedtuple
    _need("frexp", input)
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"torch.frexp() only supports floating-point dtypes, got "
                           f"{input.dtype.real}")
    src = input.float() if input.dtype is _dt.bfloat16 else input  # exact: bf16 is float32's top
    m, e = np.frexp(src.detach().contiguous().numpy())
    mant = from_numpy(np.ascontiguousarray(m)).to(input.dtype, copy=True)
    expo = from_numpy(np.ascontiguousarray(e.astype(np.int32))).clone()
    if out is not None:
        mant, expo = result_of("frexp", mant, out[0]), result_of("frexp", expo, out[1])
    return namedtuple("frexp", ["mantissa", "exponent"])(mant, expo)


def mvlgamma(input: Tensor, p: int, *, out: Tensor | None = None) -> Tensor:
    """Multivariate log-gamma: sum of lgamma(x - i/2), i < p, plus p(p-1)/4 log(pi)."""
    if not isinstance(input, Tensor):
        if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
            return _dispatch(mvlgamma, locals())
        _need("mvlgamma", input)   # (raises)
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    if input.dtype is _dt.bool_:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    x = _float(input)
    r = as_tensor(p * (p - 1) / 4 * math.log(math.pi), x.dtype)
    for i in range(p):
        r = P["add"](r, P["lgamma"](P["sub"](x, i / 2)))
    return result_of("mvlgamma", r, out)


# ---- legacy and odd Tensor methods ----

def _new(self: Tensor, *args: Any) -> Tensor:
    """A new tensor of self's type from the legacy constructor arguments (sizes, data)."""
    return type(self)(*args)


def _map2_(self: Tensor, x: Tensor, y: Tensor, callable: Callable) -> Tensor:  # noqa: A002
    """Replace each element s by callable(s, x, y), x and y broadcast to self's shape."""
    a = x.expand(*self.size()).reshape(-1).tolist()
    b = y.expand(*self.size()).reshape(-1).tolist()
    vals = [callable(s, u, v) for s, u, v in zip(self.reshape(-1).tolist(), a, b)]
    if vals:
        self.copy_(tensor(vals, dtype=self.dtype).reshape(self.size()))
    return self


def _is_signed(self: Tensor) -> bool:
    """Whether the dtype holds negative values."""
    return self.dtype.is_signed


def _is_same_size(self: Tensor, other: Tensor) -> bool:
    """Whether self and other have the same shape."""
    return tuple(self.size()) == tuple(other.size())


def _sum_to_size(self: Tensor, *size: Any) -> Tensor:
    """self summed down to size (which self must broadcast from)."""
    sizes = parse_sizes(size, "sum_to_size")
    lead = self.dim() - len(sizes)
    if lead < 0:
        raise RuntimeError(f"size {{{list(sizes)}}} is not expandable to size "
                           f"{{{list(self.size())}}}.")
    r = self.sum(tuple(range(lead))) if lead else self
    dims = [d for d, s in enumerate(sizes) if s == 1 and r.size(d) != 1]
    for d, s in enumerate(sizes):
        if s != 1 and s != r.size(d):
            raise RuntimeError(f"size {{{list(sizes)}}} is not expandable to size "
                               f"{{{list(self.size())}}}.")
    return r.sum(dims, keepdim=True) if dims else r


def _H(self: Tensor) -> Tensor:
    if self.dim() not in (0, 2):
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got "
                           f"{self.dim()}-D tensor.")
    return self.t() if self.dim() == 2 else self


def _is_shared(self: Tensor) -> bool:
    """Whether the storage is in shared memory."""
    return self.storage().is_shared()


def _nonzero_static(self: Tensor, *, size: int, fill_value: int = -1) -> Tensor:
    """nonzero() padded with fill_value (or cut) to exactly size rows."""
    nz = self.nonzero()
    if nz.size(0) >= size:
        return nz[:size].clone()
    pad = full((size - nz.size(0), nz.size(1)), fill_value, dtype=_dt.int64)
    return cat([nz, pad])


def _split_with_sizes(self: Tensor, split_sizes: Any, dim: int = 0) -> tuple:
    """self split along dim into pieces of the given sizes (see pyth.split_with_sizes)."""
    return recorded.split_with_sizes(self, split_sizes, dim)


def _resize(self: Tensor, *sizes: Any) -> Tensor:
    """A resized copy (deprecated in PyTorch; use reshape or resize_)."""
    return self.clone().resize_(*sizes)


def _resize_as(self: Tensor, other: Tensor) -> Tensor:
    """A copy resized as other (deprecated in PyTorch)."""
    return self.clone().resize_(other.size())


def _in_place(fn: Callable, name: str) -> Callable:
    """name_: self <- fn(self, ...)."""
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return assign_inplace(name, self, fn(self, *args, **kwargs))
    method.__name__ = name
    method.__doc__ = f"In-place {name[:-1]}."
    return method


def _view_in_place(fn: Callable, name: str) -> Callable:
    """name_ for view ops: self becomes the view (same storage, new sizes and strides)."""
    def method(self: Tensor, *args: Any) -> Tensor:
        v = fn(self, *args)
        return self.set_(self.storage(), v.storage_offset(), v.size(), v.stride())
    method.__name__ = name
    method.__doc__ = f"In-place {name[:-1]}: self becomes that view of its storage."
    return method


def _as_strided_(self: Tensor, size: Any, stride: Any, storage_offset: int | None = None) -> Tensor:
    """self re-viewed with the given sizes, strides and offset."""
    off = self.storage_offset() if storage_offset is None else storage_offset
    return self.set_(self.storage(), off, tuple(size), tuple(stride))


FUNCTIONS: dict[str, Callable] = {
    "asinh": asinh, "arcsinh": asinh, "acosh": acosh, "arccosh": acosh, "atanh": atanh,
    "arctanh": atanh, "arccos": P["acos"], "arcsin": P["asin"], "arctan": P["atan"],
    "exp2": exp2, "ldexp": ldexp, "frexp": frexp, "mvlgamma": mvlgamma,
}

METHODS: dict[str, Any] = {n: as_method(f) for n, f in FUNCTIONS.items()}
for _n in ("asinh", "arcsinh", "acosh", "arccosh", "atanh", "arctanh", "exp2", "ldexp",
           "mvlgamma"):
    METHODS[_n + "_"] = _in_place(FUNCTIONS[_n], _n + "_")
for _n, _base in (("arccos_", "acos_"), ("arcsin_", "asin_"), ("arctan_", "atan_"),
                  ("arctan2_", "atan2_"), ("absolute_", "abs_"), ("divide_", "div_"),
                  ("fix_", "trunc_"), ("greater_", "gt_"), ("greater_equal_", "ge_"),
                  ("less_", "lt_"), ("less_equal_", "le_"), ("multiply_", "mul_"),
                  ("negative_", "neg_"), ("not_equal_", "ne_"), ("subtract_", "sub_"),
                  ("true_divide_", "div_")):
    METHODS[_n] = getattr(Tensor, _base)
METHODS.update({
    "clamp_min_": lambda self, min: self.clamp_(min=min),
    "clamp_max_": lambda self, max: self.clamp_(max=max),
    "t_": _view_in_place(Tensor.t, "t_"),
    "transpose_": _view_in_place(Tensor.transpose, "transpose_"),
    "swapaxes_": _view_in_place(Tensor.transpose, "swapaxes_"),
    "swapdims_": _view_in_place(Tensor.transpose, "swapdims_"),
    "unsqueeze_": _view_in_place(Tensor.unsqueeze, "unsqueeze_"),
    "as_strided_": _as_strided_,
    "new": _new, "map2_": _map2_, "is_signed": _is_signed, "is_same_size": _is_same_size,
    "sum_to_size": _sum_to_size, "H": property(_H), "is_shared": _is_shared,
    "nonzero_static": _nonzero_static, "split_with_sizes": _split_with_sizes,
    "unsafe_split": lambda self, split_size, dim=0: self.split(split_size, dim),
    "unsafe_chunk": lambda self, chunks, dim=0: self.chunk(chunks, dim),
    "unsafe_split_with_sizes": _split_with_sizes, "resize": _resize, "resize_as": _resize_as,
    "is_distributed": lambda self: False,
    "const_data_ptr": lambda self: self.data_ptr(),
})


def _squeeze_(self: Tensor, *dim: Any) -> Tensor:
    """In-place squeeze: self becomes the view without the size-1 dims (or those in dim)."""
    v = self.squeeze(*dim)
    return self.set_(self.storage(), v.storage_offset(), v.size(), v.stride())


METHODS["squeeze_"] = _squeeze_


def _share_memory_(self: Tensor) -> Tensor:
    """Move the storage to POSIX shared memory (no-op when it already is there)."""
    st = self.storage()
    if not st.is_shared():
        st.share_memory_()
    return self


def _new_empty_strided(self: Tensor, size: Any, stride: Any, *, dtype: Any = None,
                       **kwargs: Any) -> Tensor:
    """An uninitialised tensor with the given sizes and strides, self's dtype by default."""
    from .creation_memory import empty_strided
    return empty_strided(size, stride, dtype=dtype or self.dtype, **kwargs)


def _dim_order(self: Tensor) -> tuple:
    """The dims from outermost to innermost in memory (by decreasing stride)."""
    return tuple(sorted(range(self.dim()), key=lambda d: -self.stride(d)))


METHODS.update({
    "nbytes": property(lambda self: self.numel() * self.dtype.itemsize),
    "itemsize": property(lambda self: self.dtype.itemsize),
    "dim_order": _dim_order, "new_empty_strided": _new_empty_strided,
    "storage_type": lambda self: type(self.storage()),
    "share_memory_": _share_memory_, "is_inference": lambda self: False,
    "get_device": lambda self: -1,
})
for _n in ("is_meta", "is_mkldnn", "is_mps", "is_xpu", "is_ipu", "is_vulkan", "is_xla",
           "is_mtia", "is_maia", "is_nested", "is_quantized", "is_sparse"):
    METHODS[_n] = property(lambda self: False)
METHODS["is_pinned"] = lambda self: False

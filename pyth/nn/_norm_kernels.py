"""batch_norm, layer_norm and group_norm on the THNN kernels (generic/THNNNormalization.c),
recorded as the NORMALIZATION row.

The forward is one C call (it also gives the mean and 1/std it used); the first-order backward
(`first`) is one C call giving the input, weight and bias gradients together. Under
create_graph the row's formula differentiates the composed arithmetic (`_COMPOSED` below, the
same computation written with tensor ops) instead, so higher-order gradients stay exact.
"""

from __future__ import annotations

from typing import Any, Callable

from .. import dtypes as _dt
from .._errors import check
from .._ops import new_result
from .._th import ffi, lib
from ..autograd import enable_grad, no_grad
from ..autograd.record import Op, next_edges, record_node
from ..tensor import Tensor

_COMPUTE = {_dt.float32: "Float", _dt.float64: "Double"}


def _compute_dtype(x: Tensor, op: str) -> _dt.dtype:
    if not x.dtype.is_floating_point:
        raise RuntimeError(f"{op}(): expected a floating point input, got {x.dtype.real}")
    return x.dtype if x.dtype in _COMPUTE else _dt.float32


def _fn(name: str, dt: _dt.dtype) -> Callable:
    return getattr(lib, f"THNN_{_COMPUTE[dt]}{name}")


def _as(t: Tensor | None, dt: _dt.dtype) -> Tensor | None:
    """t for a kernel computing in dt: itself when of dtype dt (a kernel reads the handle and
    records nothing), else a detached converted copy."""
    if t is None or t.dtype is dt:
        return t
    return t.detach().to(dt)


def _h(t: Tensor | None) -> Any:
    return ffi.NULL if t is None else t._h


# ---- kernel calls ------------------------------------------------------------------------------
# kind -> (C name, extra forward arguments, extra backward arguments) from the kind's args

def _bn_arguments(args: tuple, dt: _dt.dtype) -> tuple:
    running_mean, running_var, training, momentum, eps = args
    return (_h(running_mean), _h(running_var), int(training), float(momentum), float(eps))


_KERNELS: dict[str, tuple[str, Callable, Callable]] = {
    "batch_norm": ("BatchNormalization", _bn_arguments, lambda a: (int(a[2]),)),
    "layer_norm": ("LayerNormalization",
                   lambda a, dt: (_numel(a[0]), float(a[1])), lambda a: (_numel(a[0]),)),
    "group_norm": ("GroupNormalization",
                   lambda a, dt: (int(a[0]), float(a[1])), lambda a: (int(a[0]),)),
}


def _numel(shape: tuple) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def _running(t: Tensor | None, dt: _dt.dtype) -> Tensor | None:
    """A running statistic the kernel can update in place (t itself when it can)."""
    if t is None:
        return None
    return t if t.dtype is dt and t.is_contiguous() else t.detach().to(dt).contiguous()


def run_forward(kind: str, x: Tensor, weight: Tensor | None, bias: Tensor | None,
                args: tuple) -> tuple:
    """(y, mean, invstd) from the forward kernel; batch norm's running statistics (args[0:2])
    are updated in place."""
    name, extra, _ = _KERNELS[kind]
    dt = _compute_dtype(x, kind)
    if kind == "batch_norm":
        rm, rv = _running(args[0], dt), _running(args[1], dt)
        run_args = (rm, rv, *args[2:])
    else:
        run_args = args
    y, mean, invstd = new_result(dt), new_result(dt), new_result(dt)
    check(_fn(f"{name}_updateOutput", dt)(
        y._h, mean._h, invstd._h, _as(x, dt)._h, _h(_as(weight, dt)), _h(_as(bias, dt)),
        *extra(run_args, dt)))
    if kind == "batch_norm":
        with no_grad():
            for src, dst in ((rm, args[0]), (rv, args[1])):
                if dst is not None and src is not dst:
                    dst.copy_(src)
    return (y if y.dtype is x.dtype else y.to(x.dtype)), mean, invstd


def run_backward(kind: str, g: Tensor, x: Tensor, weight: Tensor | None, bias: Tensor | None,
                 stats: tuple, args: tuple, need: tuple) -> tuple:
    """(grad_input, grad_weight, grad_bias), None where need says not wanted (or the tensor is
    absent)."""
    name, _, extra = _KERNELS[kind]
    dt = _compute_dtype(x, kind)
    gi, gw, gb = (new_result(dt) if n and t is not None else None
                  for n, t in zip(need, (x, weight, bias)))
    check(_fn(f"{name}_backward", dt)(
        _h(gi), _h(gw), _h(gb), _as(g, dt)._h, _as(x, dt)._h, _h(_as(weight, dt)),
        stats[0]._h, stats[1]._h, *extra(args)))
    out = []
    for r, like in ((gi, x), (gw, weight), (gb, bias)):
        if r is not None and r.dtype is not like.dtype:
            r = r.to(like.dtype)
        out.append(None if r is None else r.reshape(like.shape))
    return tuple(out)


# ---- the composed formulas (for create_graph) ----------------------------------------------------

def _affine(y: Tensor, weight: Tensor | None, bias: Tensor | None, shape: list) -> Tensor:
    if weight is not None:
        y = y * weight.reshape(shape)
    if bias is not None:
        y = y + bias.reshape(shape)
    return y


def _normalize(x: Tensor, dims: list, eps: float) -> Tensor:
    mean = x.mean(dims, keepdim=True)
    d = x - mean
    return d / ((d * d).mean(dims, keepdim=True) + eps).sqrt()


def _bn_composed(x: Tensor, w: Tensor | None, b: Tensor | None, stats: tuple,
                 args: tuple) -> Tensor:
    shape = [1, x.size(1)] + [1] * (x.dim() - 2)
    if args[2]:  # batch statistics
        y = _normalize(x, [0] + list(range(2, x.dim())), args[4])
    else:
        y = (x - stats[0].to(x.dtype).reshape(shape)) * stats[1].to(x.dtype).reshape(shape)
    return _affine(y, w, b, shape)


def _ln_composed(x: Tensor, w: Tensor | None, b: Tensor | None, stats: tuple,
                 args: tuple) -> Tensor:
    nshape, eps = args
    dims = list(range(x.dim() - len(nshape), x.dim()))
    return _affine(_normalize(x, dims, eps), w, b, list(nshape))


def _gn_composed(x: Tensor, w: Tensor | None, b: Tensor | None, stats: tuple,
                 args: tuple) -> Tensor:
    groups, eps = args
    n = x.size(0)
    y = _normalize(x.reshape(n, groups, -1), [2], eps).reshape(x.shape)
    return _affine(y, w, b, [1, x.size(1)] + [1] * (x.dim() - 2))


_COMPOSED = {"batch_norm": _bn_composed, "layer_norm": _ln_composed,
             "group_norm": _gn_composed}


def _norm_backward(g: Tensor, a: dict) -> list:
    """The input, weight and bias gradients as the composed formula's own gradients (recorded
    ops, so they differentiate again)."""
    from ..autograd import grad
    inputs = (a["input"], a.get("weight"), a.get("bias"))
    need = a["needs"]
    wanted = [t for t, n in zip(inputs, need) if n and t is not None]
    with enable_grad():
        y = _COMPOSED[a["kind"]](*inputs, a["stats"], a["args"])
        got = iter(grad(y, wanted, g, create_graph=True, allow_unused=True))
    return [next(got) if n and t is not None else None for t, n in zip(inputs, need)]


def _norm_first(g: Tensor, a: dict) -> list:
    """The same gradients by the kernel's one backward call."""
    need = a["needs"]
    grads = run_backward(a["kind"], g, a["input"], a.get("weight"), a.get("bias"), a["stats"],
                         a["args"], need)
    return [gr if n else None for gr, n in zip(grads, need)]


# y = (x - mean) / sqrt(var + eps) * weight + bias for one kind of _KERNELS
NORMALIZATION = Op("normalization", "input weight bias", _norm_backward,
                   node="NormalizationBackward", first=_norm_first)


def normalization(kind: str, x: Tensor, weight: Tensor | None, bias: Tensor | None,
                  *args: Any) -> Tensor:
    """The normalisation through the kernels, recorded for autograd when needed."""
    edges = next_edges(x, weight, bias)
    y, mean, invstd = run_forward(kind, x, weight, bias, args)
    if edges is not None:
        record_node(NORMALIZATION, edges, y, {"input": x, "weight": weight, "bias": bias},
                    {"kind": kind, "args": args, "stats": (mean, invstd)})
    return y

"""linear on the THNN kernels (generic/THNNLinear.c): the forward is one GEMM over the bias
rows, the backward one GEMM per gradient and a column sum for the bias, recorded as one
LinearBackward node (PyTorch records AddmmBackward0 and TBackward0)."""

from __future__ import annotations

from .. import dtypes as _dt
from .._errors import check
from .._ops import new_result
from .._th import ffi, lib
from ..autograd.record import Op, next_edges, record_node
from ..tensor import Tensor

# dtype -> (updateOutput, updateGradInput, accGradParameters)
KERNELS: dict[_dt.dtype, tuple] = {
    dt: tuple(getattr(lib, f"THNN_{name}Linear_{verb}") for verb in (
        "updateOutput", "updateGradInput", "accGradParameters"))
    for dt, name in ((_dt.float32, "Float"), (_dt.float64, "Double"))}
_NULL = ffi.NULL


def _linear_backward(g: Tensor, a: dict) -> list:
    """Gradients of y = x W^T + b for a 2-D x: g W, g^T x and g's column sums (recorded ops,
    so they differentiate again)."""
    need_x, need_w, need_b = a["needs"]
    return [g.matmul(a["weight"]) if need_x else None,
            g.t().matmul(a["input"]) if need_w else None, g.sum(0) if need_b else None]


def _linear_first(g: Tensor, a: dict) -> list:
    """The same gradients by the kernel's two backward verbs."""
    need_x, need_w, need_b = a["needs"]
    _, grad_input, acc = a["kernels"]
    dt = a["dtype"]
    if g.dtype is not dt:
        g = g.to(dt)
    gi = gw = gb = None
    if need_x:
        gi = new_result(dt)
        check(grad_input(gi._h, g._h, a["weight"]._h))
    if need_w or need_b:
        gw = new_result(dt) if need_w else None
        gb = new_result(dt) if need_b else None
        check(acc(gw._h if need_w else _NULL, gb._h if need_b else _NULL,
                  a["input"]._h if need_w else g._h, g._h, 1.0, 0))
    return [gi, gw, gb]


# x is saved when the weight needs a gradient, the weight when x does; nothing for the bias alone
LINEAR = Op("linear", "input weight bias", _linear_backward, node="LinearBackward",
            first=_linear_first)


def linear2d(x: Tensor, weight: Tensor, bias: Tensor | None, kernels: tuple) -> Tensor:
    """x (N, in) @ weight^T + bias through the kernel, recorded when something requires grad;
    outside autograd x may have more leading dims (the kernel takes its rows), as F.linear
    passes it (a recorded call keeps PyTorch's graph: the product of the (rows, in) view)."""
    y = new_result(x.dtype)
    check(kernels[0](y._h, x._h, weight._h, bias._h if bias is not None else _NULL))
    edges = next_edges(x, weight, bias)
    if edges is not None:
        record_node(LINEAR, edges, y,
                    {"input": x if edges[1][0] is not None else None,
                     "weight": weight if edges[0][0] is not None else None},
                    {"kernels": kernels, "dtype": x.dtype})
    return y


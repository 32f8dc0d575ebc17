"""Formulas of the matrix products."""


from __future__ import annotations

from typing import Any, Callable

from ...tensor import Tensor
from ..record import Op
from ._common import TABLE, defop, recorded


# ---- matrix products -----------------------------------------------------------------------

def _mT(t: Tensor) -> Tensor:
    return t.transpose(-1, -2)


@defop("mm", "input mat2", "input@mat2 mat2@input")
def _mm(g: Tensor, a: dict) -> tuple:
    n = a["needs"]
    return (g.mm(_mT(a["mat2"])) if n[0] else None, _mT(a["input"]).mm(g) if n[1] else None)


@defop("bmm", "input mat2", "input@mat2 mat2@input")
def _bmm(g: Tensor, a: dict) -> tuple:
    n = a["needs"]
    return (g.bmm(_mT(a["mat2"])) if n[0] else None, _mT(a["input"]).bmm(g) if n[1] else None)


defop("mv", "input vec", "input@vec vec@input")(lambda g, a: (
    recorded.outer(g, a["vec"]) if a["needs"][0] else None,
    a["input"].t().mv(g) if a["needs"][1] else None))
defop("dot", "input tensor", "input@tensor tensor@input")(lambda g, a: (
    g * a["tensor"] if a["needs"][0] else None, g * a["input"] if a["needs"][1] else None))
defop("outer", "input vec2", "input@vec2 vec2@input")(lambda g, a: (
    g.mv(a["vec2"]) if a["needs"][0] else None, g.t().mv(a["input"]) if a["needs"][1] else None))


@defop("matmul", "input other", "input@other other@input")
def _matmul(g: Tensor, a: dict) -> tuple:
    x, y = a["input"], a["other"]
    n = a["needs"]
    if x.dim() == 1 and y.dim() == 1:
        return (g * y if n[0] else None), (g * x if n[1] else None)
    if y.dim() == 1:
        gx = recorded.matmul(g.unsqueeze(-1), y.unsqueeze(0)) if n[0] else None
        gy = recorded.matmul(_mT(x), g.unsqueeze(-1)).squeeze(-1) if n[1] else None
        return gx, gy
    if x.dim() == 1:
        gx = recorded.matmul(g.unsqueeze(-2), _mT(y)).squeeze(-2) if n[0] else None
        gy = recorded.matmul(x.unsqueeze(-1), g.unsqueeze(-2)) if n[1] else None
        return gx, gy
    return (recorded.matmul(g, _mT(y)) if n[0] else None,
            recorded.matmul(_mT(x), g) if n[1] else None)


def _scaled(g: Tensor, s: Any) -> Tensor:
    return g if s == 1 else g * s


def _add_product(product: Callable) -> Callable:
    def f(g: Tensor, a: dict) -> tuple:
        n, x, y = a["needs"], a["_a"], a["_b"]
        gx, gy = product(_scaled(g, a["alpha"]), a[x], a[y], n[1], n[2])
        return _scaled(g, a["beta"]), gx, gy
    return f


def _addmm_pieces(g, m1, m2, n1, n2):
    return (g.mm(_mT(m2)) if n1 else None, _mT(m1).mm(g) if n2 else None)


def _addmv_pieces(g, m, v, n1, n2):
    return (recorded.outer(g, v) if n1 else None, m.t().mv(g) if n2 else None)


def _addr_pieces(g, v1, v2, n1, n2):
    # addr promotes mixed operands (the others refuse them): products in the result's dtype
    v1, v2 = v1.to(g.dtype), v2.to(g.dtype)
    return (g.mv(v2) if n1 else None, g.t().mv(v1) if n2 else None)


def _baddbmm_pieces(g, b1, b2, n1, n2):
    return (g.bmm(_mT(b2)) if n1 else None, _mT(b1).bmm(g) if n2 else None)


def _addbmm_pieces(g, b1, b2, n1, n2):
    ge = g.unsqueeze(0).expand(b1.shape[0], *g.shape)
    return (ge.bmm(_mT(b2)) if n1 else None, _mT(b1).bmm(ge) if n2 else None)


for _n, _x, _y, _pieces in (("addmm", "mat1", "mat2", _addmm_pieces),
                            ("addmv", "mat", "vec", _addmv_pieces),
                            ("addr", "vec1", "vec2", _addr_pieces),
                            ("baddbmm", "batch1", "batch2", _baddbmm_pieces),
                            ("addbmm", "batch1", "batch2", _addbmm_pieces)):
    TABLE[_n] = Op(_n, f"input {_x} {_y}",
                   (lambda p, x, y: lambda g, a: _add_product(p)(g, {**a, "_a": x, "_b": y}))(
                       _pieces, _x, _y), f"{_x}@{_y} {_y}@{_x}")



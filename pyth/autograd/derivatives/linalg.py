"""Formulas of the linear algebra ops (PyTorch's derivations)."""


from __future__ import annotations

from typing import Any, Callable

from ..._prims.creation import eye
from ...tensor import Tensor
from ..record import Op
from ._common import TABLE, defop, recorded
from .matmul import _mT
from .reductions import _exclusive_prod


# ---- linear algebra --------------------------------------------------------------------------

def _diag_embed(v: Tensor) -> Tensor:
    n = v.shape[-1]
    return v.unsqueeze(-1) * eye(n, dtype=v.dtype)


def _outer_last(g: Tensor) -> Tensor:
    return g.unsqueeze(-1).unsqueeze(-1)


defop("inv", "A", "result")(lambda g, a: -recorded.matmul(recorded.matmul(_mT(a["result"]), g),
                                                          _mT(a["result"])))
def _adjugate_t(A: Tensor) -> Tensor:
    """adj(A)^T, the derivative of det at any A (singular too), through the SVD A = U S Vh:
    det(U) det(Vh) U diag(prod of the other singular values) Vh."""
    U, S, Vh = recorded.svd(A)
    sign = recorded.det(U) * recorded.det(Vh)
    others = _exclusive_prod(S, S.dim() - 1) * sign.unsqueeze(-1)
    return recorded.matmul(U * others.unsqueeze(-2), Vh)


def _singular(d: Tensor) -> bool:
    return d.numel() > 0 and bool((d == 0).any())


@defop("det", "A", "A result")
def _det(g: Tensor, a: dict) -> Tensor:
    """g det(A) A^-T; at a singular A (det exactly 0) the adjugate, from the SVD (PyTorch's
    singular path, which its first-order backward skips and returns 0)."""
    A, d = a["A"], a["result"]
    if _singular(d):
        return _outer_last(g) * _adjugate_t(A)
    return _outer_last(g * d) * _mT(recorded.inv(A))


@defop("slogdet", "A", "A result", outputs=(1,))
def _slogdet(gs: list, a: dict) -> Tensor:
    """g A^-T; infinite at a singular A (adj(A)^T / det, as PyTorch's values)."""
    A, (sign, logabs) = a["A"], a["result"]
    if _singular(sign):
        return _outer_last(gs[1]) * _adjugate_t(A) / _outer_last(sign * logabs.exp())
    return _outer_last(gs[1]) * _mT(recorded.inv(A))


def pinv_backward(g: Tensor, pA: Tensor, A: Tensor) -> Tensor:
    """The gradient through A+ = pinv(A), from the derivative of the pseudo-inverse (rank kept):
    -A+^T g A+^T + (I - A A+) g^T A+ A+^T + A+^T A+ g^T (I - A+ A)."""
    pAt, gt = _mT(pA), _mT(g)
    mm = recorded.matmul
    mid = mm(gt, mm(pA, pAt))                 # g^T A+ A+^T          (m x n)
    left = mm(mm(pAt, pA), gt)                # A+^T A+ g^T          (m x n)
    return -mm(mm(pAt, g), pAt) + mid - mm(A, mm(pA, mid)) + left - mm(mm(left, pA), A)


defop("pinv", "A", "A result", node="LinalgPinvBackward0")(
    lambda g, a: pinv_backward(g, a["result"], a["A"]))


@defop("lstsq", "A B", "A B", outputs=(0,), node="LinalgLstsqBackward0")
def _lstsq(gs: Any, a: dict) -> tuple:
    """The solution's gradient as PyTorch's: X = pinv(A) B (residuals, rank and singular values
    are not differentiable)."""
    gX = gs[0] if isinstance(gs, list) else gs
    A, B, needs = a["A"], a["B"], a["needs"]
    vector = B.dim() == A.dim() - 1
    if vector:
        gX, B = gX.unsqueeze(-1), B.unsqueeze(-1)
    pA = recorded.pinv(A)
    gA = pinv_backward(recorded.matmul(gX, _mT(B)), pA, A) if needs[0] else None
    gB = recorded.matmul(_mT(pA), gX) if needs[1] else None
    if gB is not None and vector:
        gB = gB.squeeze(-1)
    return gA, gB


@defop("solve", "A B", "A result")
def _solve(g: Tensor, a: dict) -> tuple:
    A, X = a["A"], a["result"]
    if not a.get("left", True):
        gB = recorded.solve(_mT(A), g, left=False)
        return -recorded.matmul(_mT(X), gB), gB
    gB = recorded.solve(_mT(A), g)
    if X.dim() == A.dim() - 1:       # B a (batch of) vector(s)
        gA = -recorded.matmul(gB.unsqueeze(-1), X.unsqueeze(-2))
    else:
        gA = -recorded.matmul(gB, _mT(X))
    return gA, gB


@defop("cholesky", "A", "result")
def _cholesky(g: Tensor, a: dict) -> Tensor:
    L = a["result"]
    if a.get("upper"):
        L, g = _mT(L), _mT(g)
    phi = recorded.matmul(_mT(L), g).tril()
    phi = phi - 0.5 * _diag_embed(phi.diagonal(0, -2, -1))
    Linv = recorded.inv(L)
    gA = recorded.matmul(recorded.matmul(_mT(Linv), phi), Linv)
    return 0.5 * (gA + _mT(gA))


def _copyltu(M: Tensor) -> Tensor:
    return M.tril() + _mT(M.tril(-1))


def _qr_tall(gQ: Tensor, gR: Tensor, Q: Tensor, R: Tensor) -> Tensor:
    """A = QR with m >= n (R square): (gQ + Q copyltu(R gR^T - gQ^T Q)) R^-T."""
    M = recorded.matmul(R, _mT(gR)) - recorded.matmul(_mT(gQ), Q)
    return recorded.matmul(gQ + recorded.matmul(Q, _copyltu(M)), _mT(recorded.inv(R)))


@defop("qr", "A", "result", outputs=(0, 1))
def _qr(gs: list, a: dict) -> Tensor:
    """As PyTorch: defined for mode 'reduced', and for 'complete' when m <= n. With m < n,
    A = [X | Y] and R = [U | V] (X, U square): X = QU is a square QR, Y = QV, so Y's gradient
    is Q gV and X's the square formula with gQ + Y gV^T."""
    (Q, R), (gQ, gR) = a["result"], gs
    mode = a.get("mode", "reduced")
    m, n = a["A"].shape[-2], a["A"].shape[-1]
    if mode == "r":
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when "
                           "mode='r'. Please use linalg.qr(A, mode='reduced') if you are going "
                           "to differentiate through linalg.qr.")
    if mode == "complete" and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and "
                           "nrows > ncols.")
    if m >= n:
        return _qr_tall(gQ, gR, Q, R)
    U, V = R.narrow(-1, 0, m), R.narrow(-1, m, n - m)
    gU, gV = gR.narrow(-1, 0, m), gR.narrow(-1, m, n - m)
    Y = recorded.matmul(Q, V)
    gX = _qr_tall(gQ + recorded.matmul(Y, _mT(gV)), gU, Q, U)
    return recorded.cat([gX, recorded.matmul(Q, gV)], -1)


def _eigh_backward(gw: Tensor, gV: Any, w: Tensor, V: Tensor) -> Tensor:
    inner = _diag_embed(gw)
    if gV is not None:
        VhgV = recorded.matmul(_mT(V), gV)
        VhgV = 0.5 * (VhgV - _mT(VhgV))
        E = w.unsqueeze(-2) - w.unsqueeze(-1)
        identity = eye(w.shape[-1], dtype=w.dtype)
        E = E + identity
        inner = inner + (VhgV / E) * (1 - identity)
    return recorded.matmul(recorded.matmul(V, inner), _mT(V))


@defop("eigh", "A", "result", outputs=(0, 1))
def _eigh(gs: list, a: dict) -> Tensor:
    (w, V), (gw, gV) = a["result"], gs
    return _eigh_backward(gw, gV, w, V)


@defop("eigvalsh", "A", "A")
def _eigvalsh(g: Tensor, a: dict) -> Tensor:
    w, V = recorded.eigh(a["A"], a.get("UPLO", "L"))
    return _eigh_backward(g, None, w, V)


def _svd_backward(gU: Any, gS: Tensor, gVh: Any, U: Tensor, S: Tensor, Vh: Tensor) -> Tensor:
    m, n, k = U.shape[-2], Vh.shape[-1], S.shape[-1]
    U, Vh = U.narrow(-1, 0, k), Vh.narrow(-2, 0, k)
    if gU is not None:
        gU = gU.narrow(-1, 0, k)
    if gVh is not None:
        gVh = gVh.narrow(-2, 0, k)
    if gU is None and gVh is None:
        return recorded.matmul(U * gS.unsqueeze(-2), Vh)
    V = _mT(Vh)
    S2 = S * S
    identity = eye(k, dtype=S.dtype)
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + identity
    gA = _diag_embed(gS)
    if gU is not None:
        UhgU = recorded.matmul(_mT(U), gU)
        gA = gA + ((UhgU - _mT(UhgU)) * S.unsqueeze(-2)) / E
    if gVh is not None:
        VhgV = recorded.matmul(Vh, _mT(gVh))
        gA = gA + (S.unsqueeze(-1) * (VhgV - _mT(VhgV))) / E
    if m > k and gU is not None:
        gA = recorded.matmul(U, gA)
        gUSinv = gU / S.unsqueeze(-2)
        gA = gA + gUSinv - recorded.matmul(U, recorded.matmul(_mT(U), gUSinv))
        gA = recorded.matmul(gA, Vh)
    elif n > k and gVh is not None:
        gA = recorded.matmul(gA, Vh)
        SinvgVh = gVh / S.unsqueeze(-1)
        gA = gA + SinvgVh - recorded.matmul(recorded.matmul(SinvgVh, V), Vh)
        gA = recorded.matmul(U, gA)
    else:
        gA = recorded.matmul(recorded.matmul(U, gA), Vh)
    return gA


@defop("svd", "A", "result", outputs=(0, 1, 2))
def _svd(gs: list, a: dict) -> Tensor:
    U, S, Vh = a["result"]
    return _svd_backward(gs[0], gs[1], gs[2], U, S, Vh)


@defop("svdvals", "A", "A")
def _svdvals(g: Tensor, a: dict) -> Tensor:
    U, S, Vh = recorded.svd(a["A"], full_matrices=False)
    return _svd_backward(None, g, None, U, S, Vh)


def _on_result(formula: Callable) -> Callable:
    """The formula of op for its _ex form, whose result is (result, info)."""
    def f(gs: Any, a: dict) -> Any:
        g = gs[0] if isinstance(gs, list) else gs
        return formula(g, {**a, "result": a["result"][0]})
    return f


TABLE["inv_ex"] = Op("inv_ex", "A", _on_result(TABLE["inv"].backward), "result", outputs=(0,))
TABLE["cholesky_ex"] = Op("cholesky_ex", "A", _on_result(_cholesky), "result", outputs=(0,))
TABLE["solve_ex"] = Op("solve_ex", "A B", _on_result(_solve), "A result", outputs=(0,))


@defop("cholesky_solve", "B L", "L result")
def _cholesky_solve(g: Tensor, a: dict) -> tuple:
    L, X, upper = a["L"], a["result"], a.get("upper", False)
    gB = recorded.cholesky_solve(g, L, upper)
    common = recorded.matmul(gB, _mT(X))
    common = common + _mT(common)
    gL = -recorded.matmul(L, common) if upper else -recorded.matmul(common, L)
    return gB, gL



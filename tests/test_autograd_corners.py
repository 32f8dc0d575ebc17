"""Autograd corners checked against PyTorch: in-place ops through views of tensors outside the
graph (CopySlices), out= and the version counter, linalg derivatives PyTorch defines (qr with
m < n, det at singular matrices, lstsq, pinv) or refuses, the repr's autograd note, and the
pointwise derivative kernels (one C call per first-order step)."""

from __future__ import annotations

import numpy as np
import pytest
from _support import grad_pair

import pyth
from pyth.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(7)


def close(p, t, rtol=1e-7, atol=1e-9):
    assert tuple(p.shape) == tuple(t.shape)
    np.testing.assert_allclose(np.asarray(p.detach().tolist(), dtype=np.float64).reshape(
        tuple(t.shape)), t.detach().numpy().astype(np.float64), rtol=rtol, atol=atol)


# ---- 1. in-place ops through views of a base outside the graph ------------------------------

def _copy_into_element(L, buf, x):
    buf[0].copy_(x[1])


def _add_into_tail(L, buf, x):
    buf[1:].add_(x)


def _mul_into_transposed_row(L, buf, x):
    buf.t()[1].mul_(x[:2])


def _view_of_view(L, buf, x):
    buf[1:][1:].copy_(x[:2] * 3)


def _reshaped_view(L, buf, x):
    buf.view(2, 2)[1].addcmul_(x[:2], x[1:])


def _strided_slice(L, buf, x):
    buf[::2].copy_(x[:2].exp())


def _mask_put(L, buf, x):
    buf[L.tensor([True, False, True, False])] = x[:2]


def _basic_setitem(L, buf, x):
    buf[1] = x[0] * 2


def _two_writes(L, buf, x):
    buf[0].copy_(x[0])
    buf[2:].mul_(x[1:])


def _through_transposes(L, buf, x):   # .T, t(), permute: the view methods' direct path
    buf.T[:, 0].mul_(x)
    buf.t()[1].add_(x[1:])
    buf.permute(1, 0)[2].mul_(x[:2])


def _through_narrow_select(L, buf, x):
    buf.narrow(0, 1, 2).select(0, 1).add_(x)
    buf.view(12).narrow(0, 0, 3).mul_(x)


def _through_unsqueeze_squeeze(L, buf, x):
    buf.unsqueeze(0).squeeze(0).unsqueeze(1).select(1, 0).mul_(x)
    buf.reshape(3, 1).expand(3, 1).flatten().add_(x)


# (name, base shape, writer)
VIEW_WRITES = [
    ("through_transposes", (2, 3), _through_transposes),
    ("through_narrow_select", (4, 3), _through_narrow_select),
    ("through_unsqueeze_squeeze", (3,), _through_unsqueeze_squeeze),
    ("copy_into_element", (3,), _copy_into_element),
    ("add_into_tail", (4,), _add_into_tail),
    ("mul_into_transposed_row", (2, 3), _mul_into_transposed_row),
    ("view_of_view", (4,), _view_of_view),
    ("reshaped_view", (4,), _reshaped_view),
    ("strided_slice", (4,), _strided_slice),
    ("mask_put", (4,), _mask_put),
    ("basic_setitem", (4,), _basic_setitem),
    ("two_writes", (4,), _two_writes),
]


@pytest.mark.parametrize("name,shape,write", VIEW_WRITES, ids=[c[0] for c in VIEW_WRITES])
def test_inplace_through_view_of_untracked_base_matches_torch(name, shape, write):
    a = RNG.uniform(0.5, 1.5, 3)
    x, tx = grad_pair(a)
    init = RNG.uniform(-1, 1, shape)
    buf, tbuf = grad_pair(init, requires_grad=False)
    write(pyth, buf, x)
    write(torch, tbuf, tx)
    assert buf.requires_grad and tbuf.requires_grad
    assert not buf.is_leaf
    close(buf, tbuf)
    w = RNG.uniform(-1, 1, shape)
    (buf * pyth.tensor(w)).sum().backward()
    (tbuf * torch.tensor(w)).sum().backward()
    close(x.grad, tx.grad)


@pytest.mark.parametrize("name,shape,write", VIEW_WRITES, ids=[c[0] for c in VIEW_WRITES])
def test_inplace_through_view_of_untracked_base_gradcheck(name, shape, write):
    init = RNG.uniform(-1, 1, shape)

    def f(x):
        buf = pyth.tensor(init)
        write(pyth, buf, x)
        return buf * buf

    x = pyth.tensor(RNG.uniform(0.5, 1.5, 3)).requires_grad_()
    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


def test_copyslices_node_names_and_view_state_as_torch():
    x, tx = grad_pair([1.0, 2.0, 3.0])
    buf, tbuf = pyth.zeros(3, dtype=pyth.float64), torch.zeros(3, dtype=torch.float64)
    v, tv = buf[1:], tbuf[1:]
    assert v._base is buf and tv._base is tbuf
    assert buf[1:][1:]._base is buf
    v.add_(x[:2])
    tv.add_(tx[:2])
    assert type(buf.grad_fn).__name__ == type(tbuf.grad_fn).__name__ == "CopySlices"
    assert type(v.grad_fn).__name__ == type(tv.grad_fn).__name__ == "AsStridedBackward0"
    assert buf.grad_fn.next_functions[0][0] is None
    # the view and the base both lead to x; gradients meet
    (v.sum() + (buf * 2).sum()).backward()
    (tv.sum() + (tbuf * 2).sum()).backward()
    close(x.grad, tx.grad)


def test_full_copy_is_copybackwards_as_torch():
    x, tx = grad_pair([1.0, 2.0])
    buf, tbuf = pyth.zeros(2, dtype=pyth.float64), torch.zeros(2, dtype=torch.float64)
    buf.copy_(x)
    tbuf.copy_(tx)
    assert type(buf.grad_fn).__name__ == type(tbuf.grad_fn).__name__ == "CopyBackwards"


def test_view_made_in_no_grad_refuses_a_recorded_inplace_op():
    x = pyth.ones(2, requires_grad=True)
    tx = torch.ones(2, requires_grad=True)
    with pyth.no_grad():
        buf = pyth.zeros(3)
        v = buf[1:]
    with torch.no_grad():
        tbuf = torch.zeros(3)
        tv = tbuf[1:]
    with pytest.raises(RuntimeError) as theirs:
        tv.add_(tx)
    with pytest.raises(RuntimeError) as ours:
        v.add_(x)
    assert str(ours.value) == str(theirs.value)
    v.add_(1)          # nothing requires grad: nothing recorded, no error (as torch)
    tv.add_(1)
    with pyth.no_grad():
        v.add_(x)      # both in no_grad: not tracked
    assert buf.grad_fn is None


def test_view_made_in_grad_mode_of_a_base_made_in_no_grad_is_tracked():
    x = pyth.ones(2, dtype=pyth.float64, requires_grad=True)
    with pyth.no_grad():
        buf = pyth.zeros(3, dtype=pyth.float64)
    v = buf[1:]
    v.mul_(2).add_(x)
    buf.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


def test_view_of_leaf_requiring_grad_still_refuses():
    w = pyth.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="view of a leaf Variable"):
        w[1:].add_(pyth.ones(2, requires_grad=True))


def test_untracked_views_cost_nothing_and_keep_no_graph():
    buf = pyth.zeros(4)
    v = buf[1:]
    v.add_(1)
    assert buf._ag is None and v._ag is None and not buf.requires_grad
    assert v._base is buf and buf._base is None
    assert buf.contiguous()._base is None


# ---- 2. out= ----------------------------------------------------------------------------------

OUT_CALLS = [
    ("add", lambda L, o: L.add(L.ones(3, dtype=o.dtype), 1, out=o)),
    ("exp", lambda L, o: L.exp(L.ones(3, dtype=o.dtype), out=o)),
    ("mul", lambda L, o: L.mul(L.ones(3, dtype=o.dtype), 2, out=o)),
    ("sum", lambda L, o: L.sum(L.ones(2, 3, dtype=o.dtype), 0, out=o)),
    ("cumsum", lambda L, o: L.cumsum(L.ones(3, dtype=o.dtype), 0, out=o)),
    ("matmul", lambda L, o: L.matmul(L.ones(3, 2, dtype=o.dtype), L.ones(2, dtype=o.dtype),
                                     out=o)),
    ("cat", lambda L, o: L.cat([L.ones(1, dtype=o.dtype), L.ones(2, dtype=o.dtype)], out=o)),
    ("kron", lambda L, o: L.kron(L.ones(3, dtype=o.dtype), L.ones(1, dtype=o.dtype), out=o)),
    ("clamp", lambda L, o: L.clamp(L.ones(3, dtype=o.dtype), 0, 0.5, out=o)),
    ("where", lambda L, o: L.where(L.ones(3, dtype=L.bool), L.ones(3, dtype=o.dtype),
                                   L.zeros(3, dtype=o.dtype), out=o)),
]


@pytest.mark.parametrize("name,call", OUT_CALLS, ids=[c[0] for c in OUT_CALLS])
def test_out_bumps_version_so_saved_tensor_check_fires(name, call):
    # (torch's kron writes its out= without counting a version: pyth counts it)
    for L in (pyth,) if name == "kron" else (pyth, torch):
        x = L.ones(3, dtype=L.float64, requires_grad=True)
        o = L.zeros(3, dtype=L.float64)
        y = x * o                  # saves o
        v0 = o._version
        call(L, o)
        assert o._version > v0
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


def test_out_overwriting_a_saved_result_is_caught():
    x = pyth.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()                     # saves its result
    pyth.add(pyth.ones(2), pyth.ones(2), out=y.detach())
    with pytest.raises(RuntimeError, match="which is output 0 of Exp,"):
        y.sum().backward()


def test_out_pair_bumps_both():
    x = pyth.ones(3, dtype=pyth.float64, requires_grad=True)
    vals, idx = pyth.zeros(1, dtype=pyth.float64), pyth.zeros(1, dtype=pyth.int64)
    y = x * vals
    pyth.max(pyth.ones(2, 3, dtype=pyth.float64), 0, out=(vals, idx))
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


# (name of the op in PyTorch's message, call(L, x, out))
GRAD_OUT_CALLS = [
    ("add", lambda L, x, o: L.add(x, 1, out=o)),
    ("exp", lambda L, x, o: L.exp(x, out=o)),
    ("sum", lambda L, x, o: L.sum(x, 0, out=o)),
    ("mm", lambda L, x, o: L.mm(x.view(3, 1), x.view(1, 3), out=o)),
    ("cat", lambda L, x, o: L.cat([x, x], out=o)),
    ("kron", lambda L, x, o: L.kron(x, x, out=o)),
    ("logit", lambda L, x, o: L.logit(x / 10, out=o)),
    ("nansum", lambda L, x, o: L.nansum(x, out=o)),
    ("pinv", lambda L, x, o: L.linalg.pinv(x.view(1, 3), out=o)),
    ("cummax", lambda L, x, o: L.cummax(x, 0, out=(o, L.zeros(0, dtype=L.int64)))),
]


@pytest.mark.parametrize("name,call", GRAD_OUT_CALLS, ids=[c[0] for c in GRAD_OUT_CALLS])
def test_out_refuses_inputs_that_require_grad(name, call):
    msg = ("functions with out=... arguments don't support automatic differentiation, but one "
           "of the arguments requires grad")
    for L in (pyth, torch):
        x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
        with pytest.raises(RuntimeError, match=msg.replace(".", r"\.")):
            call(L, x, L.zeros(0))
        with L.no_grad():
            call(L, x, L.zeros(0))     # fine without grad mode


def test_out_that_requires_grad_refuses_as_torch():
    for L in (pyth, torch):
        o = L.zeros(3, requires_grad=True)
        with pytest.raises(RuntimeError, match="out=... arguments don't support"):
            L.add(L.ones(3), 1, out=o)
        with L.no_grad():
            L.add(L.ones(3), 1, out=o)     # an optimizer's step
        assert o.tolist() == [2.0, 2.0, 2.0]


def test_out_of_non_differentiable_ops_is_allowed_as_torch():
    for L in (pyth, torch):
        x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
        o = L.zeros(3, dtype=L.bool)
        L.eq(x, 2.0, out=o)
        assert o.tolist() == [False, True, False]
        i = L.zeros((), dtype=L.int64)
        L.argmax(x, out=i)
        assert i.item() == 2


# ---- 3. linalg --------------------------------------------------------------------------------

def _qr_sum(L, mode, which=(0, 1)):
    def f(A):
        Q, R = L.linalg.qr(A, mode=mode)
        parts = (Q, R)
        w = [L.tensor(np.linspace(-1, 1, p.numel()).reshape(tuple(p.shape)), dtype=A.dtype)
             for p in parts]
        return sum((parts[i] * w[i]).sum() for i in which)
    return f


@pytest.mark.parametrize("shape", [(2, 4), (3, 5), (2, 3, 5), (3, 3), (5, 3)])
@pytest.mark.parametrize("mode", ["reduced", "complete"])
@pytest.mark.parametrize("which", [(0, 1), (0,), (1,)])
def test_qr_gradients_match_torch(shape, mode, which):
    if mode == "complete" and shape[-2] > shape[-1]:
        pytest.skip("not differentiable (checked below)")
    a = RNG.standard_normal(shape)
    A, tA = grad_pair(a)
    _qr_sum(pyth, mode, which)(A).backward()
    _qr_sum(torch, mode, which)(tA).backward()
    close(A.grad, tA.grad, rtol=1e-6, atol=1e-8)
    assert gradcheck(_qr_sum(pyth, mode, which), (A.detach().requires_grad_(),))


def test_qr_wide_gradgradcheck():
    A = pyth.tensor(RNG.standard_normal((2, 3))).requires_grad_()
    assert gradgradcheck(_qr_sum(pyth, "reduced"), (A,))


def test_qr_refuses_where_torch_refuses():
    for mode, shape, match in (("complete", (4, 3), "mode='complete' and nrows > ncols"),
                               ("r", (4, 3), "depends on Q, which is not computed when mode='r'")):
        a = RNG.standard_normal(shape)
        A, tA = grad_pair(a)
        for L, X in ((pyth, A), (torch, tA)):
            with pytest.raises(RuntimeError, match=match.replace("(", r"\(")):
                L.linalg.qr(X, mode=mode)[1].sum().backward()


SINGULAR = [
    [[1.0, 2.0], [2.0, 4.0]],
    [[1.0, 0.0], [0.0, 0.0]],
    [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]],
    [[1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 2.0]],
    np.zeros((3, 3)).tolist(),
    [[[1.0, 2.0], [2.0, 4.0]], [[2.0, 1.0], [1.0, 3.0]]],     # a batch: singular and not
]


@pytest.mark.parametrize("m", SINGULAR, ids=range(len(SINGULAR)))
def test_det_at_singular_matrices_is_the_adjugate(m):
    A, tA = grad_pair(m)
    pyth.linalg.det(A).sum().backward()
    # torch's SVD path (its first-order backward shortcuts singular inputs to 0; under
    # create_graph it takes the SVD path, the true derivative)
    g, = torch.autograd.grad(torch.linalg.det(tA).sum(), tA, create_graph=True)
    close(A.grad, g, rtol=1e-7, atol=1e-9)
    assert gradcheck(lambda X: pyth.linalg.det(X), (A.detach().requires_grad_(),))


def test_det_nonsingular_gradgradcheck_and_torch():
    a = RNG.standard_normal((2, 3, 3))
    A, tA = grad_pair(a)
    pyth.linalg.det(A).sum().backward()
    torch.linalg.det(tA).sum().backward()
    close(A.grad, tA.grad)
    assert gradgradcheck(lambda X: pyth.linalg.det(X), (A.detach().requires_grad_(),))


def test_slogdet_at_singular_matrix_is_infinite_as_torch():
    A, tA = grad_pair([[1.0, 2.0], [2.0, 4.0]])
    pyth.linalg.slogdet(A)[1].backward()
    torch.linalg.slogdet(tA)[1].backward()
    g, tg = np.array(A.grad.tolist()), tA.grad.numpy()
    assert np.isinf(g).all() and np.isinf(tg).all()


@pytest.mark.parametrize("ashape,bshape", [((5, 3), (5, 2)), ((5, 3), (5,)), ((3, 5), (3, 2)),
                                           ((2, 4, 3), (2, 4, 2)), ((1, 4, 3), (2, 4, 1))])
def test_lstsq_gradients_match_torch(ashape, bshape):
    a, b = RNG.standard_normal(ashape), RNG.standard_normal(bshape)
    A, tA = grad_pair(a)
    B, tB = grad_pair(b)
    w = RNG.standard_normal(tuple(torch.linalg.lstsq(tA, tB).solution.shape))
    (pyth.linalg.lstsq(A, B).solution * pyth.tensor(w)).sum().backward()
    (torch.linalg.lstsq(tA, tB).solution * torch.tensor(w)).sum().backward()
    close(A.grad, tA.grad, rtol=1e-6, atol=1e-8)
    close(B.grad, tB.grad, rtol=1e-6, atol=1e-8)
    assert type(pyth.linalg.lstsq(A, B).solution.grad_fn).__name__ == "LinalgLstsqBackward0"
    assert gradcheck(lambda X, Y: pyth.linalg.lstsq(X, Y).solution,
                     (A.detach().requires_grad_(), B.detach().requires_grad_()))


def test_lstsq_only_solution_is_differentiable():
    A, _ = grad_pair(RNG.standard_normal((5, 3)))
    B, _ = grad_pair(RNG.standard_normal((5, 2)))
    r = pyth.linalg.lstsq(A, B, driver="gelsd")
    assert r.solution.requires_grad
    assert not r.rank.requires_grad


@pytest.mark.parametrize("m", [RNG.standard_normal((4, 3)).tolist(),
                               RNG.standard_normal((3, 5)).tolist(),
                               [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]],   # rank 2
                               RNG.standard_normal((2, 3, 2)).tolist()])
def test_pinv_gradients_match_torch(m):
    A, tA = grad_pair(m)
    w = RNG.standard_normal(tuple(torch.linalg.pinv(tA).shape))
    (pyth.linalg.pinv(A) * pyth.tensor(w)).sum().backward()
    (torch.linalg.pinv(tA) * torch.tensor(w)).sum().backward()
    close(A.grad, tA.grad, rtol=1e-6, atol=1e-8)
    assert type(pyth.linalg.pinv(A).grad_fn).__name__ == "LinalgPinvBackward0"


def test_pinv_gradcheck_full_rank():
    A = pyth.tensor(RNG.standard_normal((4, 3))).requires_grad_()
    assert gradcheck(pyth.linalg.pinv, (A,))
    assert gradgradcheck(pyth.linalg.pinv, (A,))


def test_matrix_rank_is_not_differentiable():
    A, tA = grad_pair(RNG.standard_normal((4, 3)))
    r, tr = pyth.linalg.matrix_rank(A), torch.linalg.matrix_rank(tA)
    assert r.grad_fn is None and tr.grad_fn is None
    assert not r.requires_grad and r.item() == tr.item() == 3


# ---- 4. repr -----------------------------------------------------------------------------------

def test_repr_shows_autograd_state_as_torch():
    x = pyth.tensor([1.0, 2.0], requires_grad=True)
    tx = torch.tensor([1.0, 2.0], requires_grad=True)
    assert repr(x).endswith("[pyth.FloatTensor of size 2, requires_grad=True]")
    assert "requires_grad=True" in repr(tx)
    y, ty = x * 2, tx * 2
    assert repr(y).endswith("[pyth.FloatTensor of size 2, grad_fn=<MulBackward0>]")
    assert "grad_fn=<MulBackward0>" in repr(ty)
    s = x.sum()
    assert repr(s).endswith("[pyth.FloatTensor of size (), grad_fn=<SumBackward0>]")
    assert str(y) == repr(y)
    assert repr(x.detach()).endswith("[pyth.FloatTensor of size 2]")
    assert repr(pyth.zeros(0, requires_grad=True)) == \
        "[pyth.FloatTensor of size 0, requires_grad=True]"
    with pyth.no_grad():
        z = x * 2
    assert repr(z).endswith("[pyth.FloatTensor of size 2]")


def test_repr_records_nothing():
    x = pyth.randn(3, 3, requires_grad=True)
    y = x * 2
    fn = y.grad_fn
    repr(y)
    assert y.grad_fn is fn
    repr(pyth.randn(3, dtype=pyth.float16, requires_grad=True))


# ---- 5. pointwise derivatives as C kernels ---------------------------------------------------

KERNEL_UNARY = ["exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "sin", "cos", "abs",
                "reciprocal", "expm1", "log1p", "sinh", "cosh", "atan", "asin", "acos", "erf",
                "relu", "neg"]


def _domain(name, shape):
    a = RNG.uniform(-0.9, 0.9, shape)
    if name in ("log", "sqrt", "rsqrt", "log1p", "reciprocal"):
        a = np.abs(a) + 0.2
    if name in ("abs", "relu") and a.size:
        a.flat[0] = 0.0     # PyTorch's values at the kink: 0
    return a


@pytest.mark.parametrize("name", KERNEL_UNARY)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "empty"])
def test_unary_kernels_match_torch(name, layout):
    shape = (0, 3) if layout == "empty" else (4, 3)
    a = _domain(name, shape)
    x, tx = grad_pair(a)
    if layout == "transposed":
        px, ptx = x.t(), tx.t()
    else:
        px, ptx = x, tx
    w = RNG.standard_normal(tuple(ptx.shape))
    (getattr(pyth, name)(px) * pyth.tensor(w)).sum().backward()
    (getattr(torch, name)(ptx) * torch.tensor(w)).sum().backward()
    close(x.grad, tx.grad, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", KERNEL_UNARY)
def test_unary_kernels_float32_and_gradgrad(name):
    a = _domain(name, (5,))
    x, tx = grad_pair(a, dtype="float32")
    getattr(pyth, name)(x).sum().backward()
    getattr(torch, name)(tx).sum().backward()
    close(x.grad, tx.grad, rtol=1e-5, atol=1e-6)
    a[0] = 0.3          # away from kinks for finite differences
    x64 = pyth.tensor(a).requires_grad_()
    assert gradcheck(getattr(pyth, name), (x64,))
    assert gradgradcheck(getattr(pyth, name), (x64,))


def test_relu_node_and_nan_as_torch():
    x, tx = grad_pair([-1.0, 0.0, 2.0, float("nan")])
    y, ty = pyth.relu(x), torch.relu(tx)
    assert type(y.grad_fn).__name__ == type(ty.grad_fn).__name__ == "ReluBackward0"
    assert type(x.relu().grad_fn).__name__ == "ReluBackward0"
    y.sum().backward()
    ty.sum().backward()
    assert x.grad.tolist() == tx.grad.tolist() == [0.0, 0.0, 1.0, 1.0]


@pytest.mark.parametrize("case", ["pow_scalar", "pow_tensor", "div", "rdiv"])
def test_binary_kernels_match_torch(case):
    a, b = RNG.uniform(0.5, 2.0, (3, 4)), RNG.uniform(0.5, 2.0, (4,))
    x, tx = grad_pair(a)
    y, ty = grad_pair(b)
    f = {"pow_scalar": lambda u, v: u ** 2.5, "pow_tensor": lambda u, v: u ** v,
         "div": lambda u, v: u / v, "rdiv": lambda u, v: 3.0 / u + v}[case]
    f(x, y).sum().backward()
    f(tx, ty).sum().backward()
    close(x.grad, tx.grad)
    if case in ("pow_tensor", "div", "rdiv"):
        close(y.grad, ty.grad)


def test_first_order_step_is_one_c_call(monkeypatch):
    """A first-order backward step of a kernel op calls its stamped derivative, not the
    composed formula (which create_graph uses)."""
    from pyth.autograd import pointwise_nodes
    from pyth.autograd.derivatives import pointwise as derivatives
    calls = []
    real = derivatives.c_grad

    def spy(name, g, saved):
        calls.append(name)
        return real(name, g, saved)
    monkeypatch.setattr(derivatives, "c_grad", spy)

    def c_spy(name, fn):   # the lean nodes call the C derivative themselves
        def call(*a):
            calls.append(name)
            return fn(*a)
        return call
    for name, table in pointwise_nodes.C_GRADS.items():
        monkeypatch.setitem(table, pyth.float64, c_spy(name, table[pyth.float64]))
    for name in ("abs", "relu", "tanh", "exp"):
        x = pyth.randn(4, dtype=pyth.float64, requires_grad=True)
        getattr(pyth, name)(x).sum().backward()
        assert calls[-1] == name
        n = len(calls)
        g, = pyth.autograd.grad(getattr(pyth, name)(x).sum(), x, create_graph=True)
        assert len(calls) == n        # composed formula: differentiable again


@pytest.mark.parametrize("index,value,node", [
    (0, 5.0, "CopySlices"), (slice(1, None), "tensor", "CopySlices"),
    (None, "tensor3", "CopySlices"), ((Ellipsis,), "tensor3", "CopyBackwards"),
    (slice(None), "tensor3", "CopyBackwards")])
def test_setitem_with_basic_index_is_copyslices_as_torch(index, value, node):
    for L in (pyth, torch):
        x = L.tensor([1.0, 2.0, 3.0], dtype=L.float64, requires_grad=True)
        y = x * 2
        v = {"tensor": x[:2] * 3, "tensor3": x.flip(0)}.get(value, value)
        y[index] = v
        assert type(y.grad_fn).__name__ == node
        (y * L.tensor([1.0, 2.0, 3.0], dtype=L.float64)).sum().backward()
        if L is pyth:
            ours, got = x.grad.tolist(), y.tolist()
        else:
            assert ours == x.grad.tolist() and got == y.tolist()


def test_setitem_with_advanced_index_is_indexput_as_torch():
    for L in (pyth, torch):
        x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 2
        y[L.tensor([0, 2])] = x[:2]
        assert type(y.grad_fn).__name__ == "IndexPutBackward0"


def test_base_modified_after_an_untracked_view_was_taken_is_a_known_gap():
    """PyTorch regenerates the grad_fn of every earlier view of a base that joins the graph;
    pyth does so only for views taken of tensors already in the graph (a view of an untracked
    tensor carries no autograd state, so that ops on it stay on the fast path)."""
    x = pyth.ones(3, requires_grad=True)
    buf = pyth.zeros(3)
    v = buf[1:]
    buf.add_(x)
    assert buf.requires_grad and not v.requires_grad
    w = buf[1:]       # a view taken afterwards is in the graph
    assert w.requires_grad


@pytest.mark.parametrize("make", [lambda b: b.view(6), lambda b: b.T, lambda b: b.t(),
                                  lambda b: b.permute(1, 0), lambda b: b.narrow(0, 0, 1),
                                  lambda b: b[0], lambda b: b.unsqueeze(0), lambda b: b.reshape(3, 2)])
def test_view_made_without_grad_refuses_a_recorded_write(make):
    """A view of an untracked tensor made in no_grad mode (by the view methods' direct path)
    refuses an in-place op recorded later, as PyTorch's; made with grad mode on it records
    CopySlices on the base."""
    x, tx = grad_pair([1.0, 2.0, 3.0])
    base, tbase = pyth.zeros(2, 3, dtype=pyth.float64), torch.zeros(2, 3, dtype=torch.float64)
    with pyth.no_grad():
        v = make(base)
    with torch.no_grad():
        tv = make(tbase)
    for view, xx in ((v, x), (tv, tx)):
        with pytest.raises(RuntimeError, match="A view was created in no_grad mode"):
            view.mul_(xx.sum())
    w, tw = make(base), make(tbase)
    w.mul_(x.sum())
    tw.mul_(tx.sum())
    assert type(base.grad_fn).__name__ == type(tbase.grad_fn).__name__ == "CopySlices"

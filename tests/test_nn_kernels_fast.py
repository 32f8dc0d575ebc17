"""The training-speed kernels against oracles: F.linear / nn.Linear on the THNN Linear kernels
(one LinearBackward node), cross_entropy of class indices fused into one CrossEntropyBackward
node, the kernels called directly through the cffi lib, and the engine's backward() fast path
(_run_all) on graphs with shared nodes and every kind of hook. PyTorch is the oracle where it is
installed (each such test skips without it), numpy and gradcheck/gradgradcheck otherwise."""

from __future__ import annotations

import numpy as np
import pytest
from pyth._th import ffi, lib

import pyth
from pyth import nn
from pyth._errors import check
from pyth._ops import new_result
from pyth.autograd import gradcheck, gradgradcheck
from pyth.nn import functional as F

RNG = np.random.default_rng(14)
DTYPES = [("float32", 1e-5), ("float64", 1e-12)]


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape)


def pt(a: np.ndarray, dtype: str = "float64", grad: bool = False):
    return pyth.tensor(a, dtype=getattr(pyth, dtype)).requires_grad_(grad)


def tt(torch, a: np.ndarray, dtype: str = "float64", grad: bool = False):
    return torch.tensor(a, dtype=getattr(torch, dtype)).requires_grad_(grad)


def npy(t) -> np.ndarray:
    return t.detach().numpy()


def close(p, t, tol: float = 1e-12) -> None:
    if t is None:
        assert p is None
        return
    assert p is not None
    assert tuple(p.shape) == tuple(t.shape)
    np.testing.assert_allclose(npy(p), npy(t), rtol=tol, atol=tol)


def backward_both(torch, y, ty, dtype: str = "float64") -> None:
    """y.backward and ty.backward with the same random gradient."""
    g = rand(*ty.shape)
    y.backward(pt(g, dtype))
    ty.backward(tt(torch, g, dtype))


def linear_node(y):
    """The LinearBackward under y (directly, or under the reshape of a non-2-D input)."""
    n = y.grad_fn
    return n if type(n).__name__ == "LinearBackward" else n.next_functions[0][0]


def kernels(dtype: str) -> tuple:
    name = {"float32": "Float", "float64": "Double"}[dtype]
    return tuple(getattr(lib, f"THNN_{name}Linear_{verb}")
                 for verb in ("updateOutput", "updateGradInput", "accGradParameters"))


# ---- F.linear through the kernel: values and gradients ---------------------------------------

LAYOUTS = {   # name: input shape (weight (3, 4))
    "1d": (4,),
    "2d": (5, 4),
    "3d": (2, 3, 4),
    "4d": (2, 1, 3, 4),
    "batch0": (0, 4),
    "batch0_3d": (0, 3, 4),
}


@pytest.mark.parametrize("dtype,tol", DTYPES)
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_linear_values_and_grads_vs_torch(torch, dtype, tol, bias, layout):
    shape = LAYOUTS[layout]
    a, wa, ba = rand(*shape), rand(3, 4), rand(3)
    x, w = pt(a, dtype, True), pt(wa, dtype, True)
    b = pt(ba, dtype, True) if bias else None
    tx, tw = tt(torch, a, dtype, True), tt(torch, wa, dtype, True)
    tb = tt(torch, ba, dtype, True) if bias else None
    y, ty = F.linear(x, w, b), torch.nn.functional.linear(tx, tw, tb)
    assert type(linear_node(y)).__name__ == "LinearBackward"
    assert y.dtype is getattr(pyth, dtype)
    close(y, ty, tol)
    backward_both(torch, y, ty, dtype)
    close(x.grad, tx.grad, tol)
    close(w.grad, tw.grad, tol)
    if bias:
        close(b.grad, tb.grad, tol)


def test_linear_2d_records_one_linear_node():
    x, w, b = pt(rand(5, 4), grad=True), pt(rand(3, 4), grad=True), pt(rand(3), grad=True)
    y = F.linear(x, w, b)
    assert type(y.grad_fn).__name__ == "LinearBackward"
    assert [type(n).__name__ for n, _ in y.grad_fn.next_functions] == ["AccumulateGrad"] * 3


@pytest.mark.parametrize("dtype,tol", DTYPES)
def test_linear_values_and_grads_vs_numpy(dtype, tol):
    a, wa, ba, g = rand(6, 4), rand(3, 4), rand(3), rand(6, 3)
    x, w, b = pt(a, dtype, True), pt(wa, dtype, True), pt(ba, dtype, True)
    y = F.linear(x, w, b)
    np.testing.assert_allclose(npy(y), a @ wa.T + ba, rtol=tol * 10, atol=tol * 10)
    y.backward(pt(g, dtype))
    np.testing.assert_allclose(npy(x.grad), g @ wa, rtol=tol * 10, atol=tol * 10)
    np.testing.assert_allclose(npy(w.grad), g.T @ a, rtol=tol * 10, atol=tol * 10)
    np.testing.assert_allclose(npy(b.grad), g.sum(0), rtol=tol * 10, atol=tol * 10)


def _strided(mod, leaves: dict, kind: str):
    """Non-contiguous views of leaves: transposed weight, stepped/transposed/expanded input."""
    xl, wl, bl = leaves["x"], leaves["w"], leaves["b"]
    if kind == "weight_t":            # weight (3, 4) as the .t() of a contiguous (4, 3)
        return xl, wl.t(), bl
    if kind == "input_step":          # input rows and columns taken with a step
        return xl[::2, ::2], wl, bl
    if kind == "input_t":             # input (5, 4) as the .t() of a contiguous (4, 5)
        return xl.t(), wl, bl
    if kind == "expanded":            # broadcast input rows, weight rows and bias
        return xl[:1].expand(5, 4), wl[:1].expand(3, 4), bl[:1].expand(3)
    if kind == "input_3d_permuted":   # (2, 5, 4) from a (4, 2, 5) leaf: a copy to reshape
        return xl.permute(1, 2, 0), wl, bl
    raise AssertionError(kind)


STRIDED_SHAPES = {"weight_t": ((5, 4), (4, 3)), "input_step": ((10, 8), (3, 4)),
                  "input_t": ((4, 5), (3, 4)), "expanded": ((5, 4), (3, 4)),
                  "input_3d_permuted": ((4, 2, 5), (3, 4))}


@pytest.mark.parametrize("dtype,tol", DTYPES)
@pytest.mark.parametrize("kind", list(STRIDED_SHAPES))
def test_linear_noncontiguous_vs_torch(torch, dtype, tol, kind):
    xs, ws = STRIDED_SHAPES[kind]
    arrays = {"x": rand(*xs), "w": rand(*ws), "b": rand(3)}
    pl = {k: pt(v, dtype, True) for k, v in arrays.items()}
    tl = {k: tt(torch, v, dtype, True) for k, v in arrays.items()}
    px, pw, pb = _strided(pyth, pl, kind)
    assert not (px.is_contiguous() and pw.is_contiguous())
    tx_, tw_, tb_ = _strided(torch, tl, kind)
    y, ty = F.linear(px, pw, pb), torch.nn.functional.linear(tx_, tw_, tb_)
    close(y, ty, tol)
    backward_both(torch, y, ty, dtype)
    for k in arrays:
        close(pl[k].grad, tl[k].grad, tol)


def test_linear_noncontiguous_gradient_and_shared_operand(torch):
    """A non-contiguous incoming gradient (from .t()) and the same tensor as input and weight."""
    a = rand(4, 4)
    x, tx = pt(a, grad=True), tt(torch, a, grad=True)
    m = rand(4, 4)
    y = F.linear(x, x).t() * pt(m)
    ty = torch.nn.functional.linear(tx, tx).t() * tt(torch, m)
    close(y, ty)
    y.sum().backward()
    ty.sum().backward()
    close(x.grad, tx.grad)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", ["in0", "out0", "in0_nobias", "batch0", "batch0_nobias",
                                  "batch0_in0", "batch0_in0_nobias", "batch0_out0", "in0_out0"])
def test_linear_zero_sizes_vs_torch(torch, dtype, case):
    """Every empty corner of (N, in, out); under UBSan these also catch memcpy/memset on the
    NULL data of empty tensors."""
    n, i, o = {"in0": (3, 0, 2), "out0": (3, 4, 0), "in0_nobias": (3, 0, 2),
               "batch0": (0, 4, 2), "batch0_nobias": (0, 4, 2), "batch0_in0": (0, 0, 2),
               "batch0_in0_nobias": (0, 0, 2), "batch0_out0": (0, 4, 0),
               "in0_out0": (3, 0, 0)}[case]
    bias = not case.endswith("nobias")
    a, wa, ba = rand(n, i), rand(o, i), rand(o)
    x, w = pt(a, dtype, True), pt(wa, dtype, True)
    b = pt(ba, dtype, True) if bias else None
    tx, tw = tt(torch, a, dtype, True), tt(torch, wa, dtype, True)
    tb = tt(torch, ba, dtype, True) if bias else None
    y, ty = F.linear(x, w, b), torch.nn.functional.linear(tx, tw, tb)
    close(y, ty)
    y.sum().backward()
    ty.sum().backward()
    close(x.grad, tx.grad)
    close(w.grad, tw.grad)
    if bias:
        close(b.grad, tb.grad)


@pytest.mark.parametrize("shape", [(0,), (2, 5, 0)])
def test_linear_in_features_zero_not_2d(shape):
    x, w, b = pt(rand(*shape), grad=True), pt(rand(4, 0), grad=True), pt(rand(4), grad=True)
    y = F.linear(x, w, b)
    assert tuple(y.shape) == shape[:-1] + (4,)
    np.testing.assert_array_equal(npy(y), np.broadcast_to(npy(b), shape[:-1] + (4,)))


def test_linear_broadcast_bias_of_size_one(torch):
    a, wa, ba = rand(2, 3), rand(4, 3), rand(1)
    y = F.linear(pt(a), pt(wa), pt(ba))
    close(y, torch.nn.functional.linear(tt(torch, a), tt(torch, wa), tt(torch, ba)))


def test_linear_gradcheck_and_gradgradcheck():
    x, w, b = pt(rand(3, 4), grad=True), pt(rand(2, 4), grad=True), pt(rand(2), grad=True)
    tight = {"atol": 1e-7, "rtol": 1e-5}
    assert gradcheck(F.linear, (x, w, b), **tight)
    assert gradgradcheck(F.linear, (x, w, b), **tight)
    x3 = pt(rand(2, 2, 3), grad=True)
    wt = pt(rand(3, 2), grad=True)          # weight (2, 3) as a transpose
    assert gradcheck(lambda x, w: F.linear(x, w.t()), (x3, wt))
    assert gradgradcheck(lambda x, w: F.linear(x, w.t()), (x3, wt))
    assert gradgradcheck(lambda x: F.linear(x, w.detach(), b.detach()), (x,))
    assert gradgradcheck(lambda w: F.linear(x.detach(), w), (w,))


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph")
def test_linear_create_graph_through_backward_vs_torch(torch):
    """backward(create_graph=True) (the engine's fast path) through LinearBackward, then the
    gradient's own gradient."""
    a, wa, ba = rand(3, 4), rand(2, 4), rand(2)
    res = []
    for mod, f, mk in ((pyth, F, lambda v: pt(v, grad=True)),
                       (torch, torch.nn.functional, lambda v: tt(torch, v, grad=True))):
        x, w, b = mk(a), mk(wa), mk(ba)
        (f.linear(x, w, b).tanh() ** 2).sum().backward(create_graph=True)
        gx, gw, gb = x.grad, w.grad, b.grad
        x.grad = w.grad = b.grad = None
        ((gx * gx).sum() + (gw ** 3).sum() + (gb * x[0, :2]).sum()).backward()
        res.append((x.grad, w.grad, b.grad))
    for p, t in zip(*res):
        close(p, t, 1e-10)


@pytest.mark.parametrize("which", ["input", "weight"])
def test_linear_saved_operand_modified_in_place_raises(torch, which):
    """LinearBackward saves x (for the weight's gradient) and the weight (for x's), as
    PyTorch's AddmmBackward0 does: changing either in place after the forward is caught."""
    for mod, f in ((pyth, F), (torch, torch.nn.functional)):
        x = mod.ones(2, 3, dtype=mod.float64, requires_grad=True) * 1
        w = mod.ones(4, 3, dtype=mod.float64, requires_grad=True) * 1
        y = f.linear(x, w, mod.ones(4, dtype=mod.float64))
        (x if which == "input" else w).add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


def test_linear_bias_only_backward_twice_as_torch(torch):
    res = []
    for mod, f in ((pyth, F), (torch, torch.nn.functional)):
        b = mod.ones(4, dtype=mod.float64, requires_grad=True)
        y = f.linear(mod.ones(2, 3, dtype=mod.float64), mod.ones(4, 3, dtype=mod.float64), b)
        y.sum().backward()
        y.sum().backward()
        res.append(b.grad)
    close(*res)


@pytest.mark.parametrize("flags", [(True, False, False), (False, True, False),
                                   (False, False, True), (True, False, True),
                                   (False, True, True), (True, True, False)])
def test_linear_partial_requires_grad(torch, flags):
    arrays = rand(5, 4), rand(3, 4), rand(3)
    ps = [pt(v, grad=f) for v, f in zip(arrays, flags)]
    ts = [tt(torch, v, grad=f) for v, f in zip(arrays, flags)]
    y, ty = F.linear(*ps), torch.nn.functional.linear(*ts)
    assert y.requires_grad and y.grad_fn is not None
    (y * y).sum().backward()
    (ty * ty).sum().backward()
    for p, t, f in zip(ps, ts, flags):
        if f:
            close(p.grad, t.grad)
        else:
            assert p.grad is None and t.grad is None


def test_linear_nothing_requires_grad_and_no_grad():
    x, w, b = pt(rand(5, 4)), pt(rand(3, 4)), pt(rand(3))
    y = F.linear(x, w, b)
    assert y.grad_fn is None and not y.requires_grad
    xg, wg = pt(rand(2, 5, 4), grad=True), pt(rand(3, 4), grad=True)
    with pyth.no_grad():
        y = F.linear(xg, wg, b)
        m = nn.Linear(4, 3).double()
        z = m(xg)
    assert y.grad_fn is None and not y.requires_grad
    assert z.grad_fn is None and not z.requires_grad
    np.testing.assert_allclose(npy(y), npy(xg) @ npy(wg).T + npy(b), rtol=1e-12)


@pytest.mark.parametrize("dtype,tol", DTYPES)
def test_nn_linear_module_vs_torch(torch, dtype, tol):
    pm = nn.Linear(4, 3).to(getattr(pyth, dtype))
    tm = torch.nn.Linear(4, 3).to(getattr(torch, dtype))
    with torch.no_grad():
        tm.weight.copy_(torch.from_numpy(npy(pm.weight)))
        tm.bias.copy_(torch.from_numpy(npy(pm.bias)))
    a = rand(2, 5, 4)
    y, ty = pm(pt(a, dtype)), tm(tt(torch, a, dtype))
    close(y, ty, tol)
    (y ** 2).mean().backward()
    (ty ** 2).mean().backward()
    close(pm.weight.grad, tm.weight.grad, tol)
    close(pm.bias.grad, tm.bias.grad, tol)


@pytest.mark.parametrize("xd,wd", [("float32", "float64"), ("float64", "float32")])
def test_linear_mixed_dtypes_raise_as_torch(torch, xd, wd):
    a, wa = rand(2, 3), rand(4, 3)
    with pytest.raises(RuntimeError) as te:
        torch.nn.functional.linear(tt(torch, a, xd), tt(torch, wa, wd))
    with pytest.raises(RuntimeError, match="dtype") as pe:
        F.linear(pt(a, xd, True), pt(wa, wd, True))
    assert type(pe.value) is type(te.value)


@pytest.mark.parametrize("bd", ["float64", "float32"])
def test_linear_mixed_bias_dtype_raises_as_torch(torch, bd):
    xd = "float32" if bd == "float64" else "float64"
    a, wa, ba = rand(2, 3), rand(4, 3), rand(4)
    with pytest.raises(RuntimeError):
        torch.nn.functional.linear(tt(torch, a, xd), tt(torch, wa, xd), tt(torch, ba, bd))
    with pytest.raises(RuntimeError):
        F.linear(pt(a, xd), pt(wa, xd), pt(ba, bd))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_linear_bad_shapes_raise(dtype):
    x, w = pt(rand(2, 3), dtype), pt(rand(4, 3), dtype)
    with pytest.raises(RuntimeError, match=r"linear\(\).*\(3\).*\(5\)"):
        F.linear(x, pt(rand(4, 5), dtype))
    with pytest.raises(RuntimeError, match=r"linear\(\).*bias.*\(4\).*\[5\]"):
        F.linear(x, w, pt(rand(5), dtype))
    with pytest.raises(RuntimeError, match=r"linear\(\).*\[2, 4, 3\]"):
        F.linear(pt(rand(2, 4, 3), dtype), pt(rand(4, 2), dtype))
    with pytest.raises(RuntimeError, match=r"linear\(\)"):
        F.linear(pt(np.array(1.0), dtype), w)
    with pytest.raises(RuntimeError, match=r"in_features"):
        nn.Linear(3, 2).to(getattr(pyth, dtype))(pt(rand(5, 4), dtype))


# ---- the C kernels through the lib -----------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_linear_kernels_direct_match_numpy(dtype):
    uo, ugi, _ = kernels(dtype)
    tol = 1e-5 if dtype == "float32" else 1e-12
    a, wa, ba, g = rand(5, 4), rand(3, 4), rand(3), rand(5, 3)
    x, w, b, go = (pt(v, dtype) for v in (a, wa, ba, g))
    y, gi = new_result(x.dtype), new_result(x.dtype)
    check(uo(y._h, x._h, w._h, b._h))
    np.testing.assert_allclose(npy(y), a @ wa.T + ba, rtol=tol, atol=tol)
    check(uo(y._h, x._h, w._h, ffi.NULL))
    np.testing.assert_allclose(npy(y), a @ wa.T, rtol=tol, atol=tol)
    check(ugi(gi._h, go._h, w._h))
    np.testing.assert_allclose(npy(gi), g @ wa, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_linear_acc_grad_parameters_accumulate_and_scale(dtype):
    *_, agp = kernels(dtype)
    tol = 1e-5 if dtype == "float32" else 1e-12
    a, g = rand(5, 4), rand(5, 3)
    x, go = pt(a, dtype), pt(g, dtype)
    w0, b0 = rand(3, 4), rand(3)
    gw, gb = pt(w0.copy(), dtype), pt(b0.copy(), dtype)
    check(agp(gw._h, gb._h, x._h, go._h, 0.5, 1))       # adds 0.5 * ... to the contents
    np.testing.assert_allclose(npy(gw), w0 + 0.5 * g.T @ a, rtol=tol, atol=tol)
    np.testing.assert_allclose(npy(gb), b0 + 0.5 * g.sum(0), rtol=tol, atol=tol)
    check(agp(gw._h, gb._h, x._h, go._h, -2.0, 1))
    np.testing.assert_allclose(npy(gw), w0 - 1.5 * g.T @ a, rtol=tol, atol=tol)
    np.testing.assert_allclose(npy(gb), b0 - 1.5 * g.sum(0), rtol=tol, atol=tol)
    # accumulate=0 overwrites (and resizes a wrong-sized or empty result)
    gw, gb = pt(rand(2, 2), dtype), new_result(x.dtype)
    check(agp(gw._h, gb._h, x._h, go._h, 3.0, 0))
    assert tuple(gw.shape) == (3, 4) and tuple(gb.shape) == (3,)
    np.testing.assert_allclose(npy(gw), 3.0 * g.T @ a, rtol=tol, atol=tol)
    np.testing.assert_allclose(npy(gb), 3.0 * g.sum(0), rtol=tol, atol=tol)
    # only one of the two, the other NULL
    gb = pt(b0.copy(), dtype)
    check(agp(ffi.NULL, gb._h, go._h, go._h, 1.0, 1))
    np.testing.assert_allclose(npy(gb), b0 + g.sum(0), rtol=tol, atol=tol)
    gw = pt(w0.copy(), dtype)
    check(agp(gw._h, ffi.NULL, x._h, go._h, 1.0, 0))
    np.testing.assert_allclose(npy(gw), g.T @ a, rtol=tol, atol=tol)
    # an empty batch: accumulate keeps the contents, overwrite gives zeros
    x0, g0 = pt(rand(0, 4), dtype), pt(rand(0, 3), dtype)
    gw, gb = pt(w0.copy(), dtype), pt(b0.copy(), dtype)
    check(agp(gw._h, gb._h, x0._h, g0._h, 1.0, 1))
    np.testing.assert_allclose(npy(gw), w0, rtol=tol, atol=tol)
    np.testing.assert_allclose(npy(gb), b0, rtol=tol, atol=tol)
    check(agp(gw._h, gb._h, x0._h, g0._h, 1.0, 0))
    assert not npy(gw).any() and not npy(gb).any()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_linear_kernels_direct_bad_arguments_raise(dtype):
    uo, ugi, agp = kernels(dtype)
    x, w, go = pt(rand(5, 3), dtype), pt(rand(4, 3), dtype), pt(rand(5, 4), dtype)
    y = new_result(x.dtype)
    calls = [
        (lambda: uo(y._h, x._h, pt(rand(4, 2), dtype)._h, ffi.NULL), r"\[5, 3\].*\[4, 2\]"),
        (lambda: uo(y._h, x._h, w._h, pt(rand(3), dtype)._h), r"bias of size \(4\)"),
        (lambda: uo(y._h, pt(rand(3), dtype)._h, w._h, ffi.NULL), r"input \[3\]"),
        (lambda: uo(pt(rand(5, 8), dtype)[:, ::2]._h, x._h, w._h, ffi.NULL), "contiguous"),
        (lambda: ugi(y._h, pt(rand(5, 3), dtype)._h, w._h), r"\[5, 3\].*\[4, 3\]"),
        (lambda: ugi(pt(rand(3, 5), dtype).t()._h, go._h, w._h), "contiguous"),
        (lambda: agp(y._h, ffi.NULL, pt(rand(6, 3), dtype)._h, go._h, 1.0, 0),
         r"\[6, 3\].*\[5, 4\]"),
        (lambda: agp(pt(rand(4, 2), dtype)._h, ffi.NULL, x._h, go._h, 1.0, 1),
         r"gradWeight.*\(4, 3\)"),
        (lambda: agp(ffi.NULL, pt(rand(3), dtype)._h, x._h, go._h, 1.0, 1),
         r"gradBias.*\(4\)"),
        (lambda: agp(pt(rand(3, 4), dtype).t()._h, ffi.NULL, x._h, go._h, 1.0, 1),
         "contiguous"),
    ]
    for call, pattern in calls:
        with pytest.raises(RuntimeError, match=r"linear\(\)") as e:
            check(call())
        assert e.match(pattern)
    check(uo(y._h, x._h, w._h, ffi.NULL))      # the error state was cleared: a good call works
    assert tuple(y.shape) == (5, 4)


@pytest.mark.parametrize("which", ["weight", "bias"])
def test_linear_acc_grad_parameters_noncontiguous_result_overwrite(which):
    *_, agp = kernels("float64")
    a, g = rand(5, 3), rand(5, 4)
    x, go = pt(a), pt(g)
    if which == "weight":
        res, want = pt(np.zeros((3, 4))).t(), g.T @ a          # (4, 3), strides (1, 4)
        args = (res._h, ffi.NULL)
    else:
        res, want = pt(np.zeros(8))[::2], g.sum(0)               # (4,), stride 2
        args = (ffi.NULL, res._h)
    assert not res.is_contiguous()
    try:
        check(agp(*args, x._h, go._h, 1.0, 0))
    except RuntimeError:
        return                     # refusing, as updateOutput/updateGradInput do, is fine
    np.testing.assert_allclose(npy(res), want, rtol=1e-12, atol=1e-12)


# ---- cross_entropy of class indices: the fused node ------------------------------------------

def _ce_inputs(n: int = 6, c: int = 4, ignore: int = -100):
    a = rand(n, c)
    t = RNG.integers(0, c, n)
    if n > 2:
        t[1] = ignore if ignore >= 0 or ignore == -100 else t[1]
        # at least one target counts: with every one ignored the mean is 0/0 (NaN, its own
        # test below), and which draw a test gets depends on the tests run before it
        if (t == ignore).all():
            t[0] = (ignore + 1) % c
    return a, t


def ce_numpy(a: np.ndarray, t: np.ndarray, reduction: str, ignore: int) -> np.ndarray:
    m = a.max(1, keepdims=True)
    logp = a - m - np.log(np.exp(a - m).sum(1, keepdims=True))
    keep = t != ignore
    per = np.where(keep, -logp[np.arange(len(t)), np.where(keep, t, 0)], 0.0)
    if reduction == "none":
        return per
    if reduction == "sum":
        return np.array(per.sum())
    return np.array(per.sum() / keep.sum())


@pytest.mark.parametrize("dtype,tol", DTYPES)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("ignore", [-100, 2])
def test_cross_entropy_fused_vs_torch(torch, dtype, tol, reduction, ignore):
    a, t = _ce_inputs(ignore=ignore)
    x, tx = pt(a, dtype, True), tt(torch, a, dtype, True)
    y = F.cross_entropy(x, pyth.tensor(t), reduction=reduction, ignore_index=ignore)
    ty = torch.nn.functional.cross_entropy(tx, torch.tensor(t), reduction=reduction,
                                           ignore_index=ignore)
    assert type(y.grad_fn).__name__ == "CrossEntropyBackward"
    assert y.dtype is getattr(pyth, dtype)
    close(y, ty, tol)
    backward_both(torch, y, ty, dtype)
    close(x.grad, tx.grad, tol)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_fused_vs_numpy(dtype, reduction):
    a, t = _ce_inputs(ignore=-100)
    y = F.cross_entropy(pt(a, dtype), pyth.tensor(t), reduction=reduction)
    assert y.grad_fn is None
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(npy(y), ce_numpy(a, t, reduction, -100), rtol=tol, atol=tol)


@pytest.mark.parametrize("kind", ["transposed", "stepped", "expanded"])
def test_cross_entropy_noncontiguous_input_vs_torch(torch, kind):
    base = {"transposed": rand(4, 6), "stepped": rand(6, 8), "expanded": rand(1, 4)}[kind]
    t = RNG.integers(0, 4, 6)
    res = []
    for mod, f, mk in ((pyth, F, lambda v: pt(v, grad=True)),
                       (torch, torch.nn.functional, lambda v: tt(torch, v, grad=True))):
        leaf = mk(base)
        x = {"transposed": leaf.t, "stepped": lambda lf=leaf: lf[:, ::2],
             "expanded": lambda lf=leaf: lf.expand(6, 4)}[kind]()
        assert not x.is_contiguous()
        y = f.cross_entropy(x, mod.tensor(t), reduction="sum")
        y.backward()
        res.append((y, leaf.grad))
    close(res[0][0], res[1][0])
    close(res[0][1], res[1][1])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cross_entropy_all_ignored_and_empty_vs_torch(torch, dtype):
    a = rand(4, 3)
    x, tx = pt(a, dtype, True), tt(torch, a, dtype, True)
    y = F.cross_entropy(x, pyth.full((4,), -100, dtype=pyth.int64))
    ty = torch.nn.functional.cross_entropy(tx, torch.full((4,), -100))
    assert np.isnan(npy(y)) and np.isnan(npy(ty))
    y.backward()
    ty.backward()
    close(x.grad, tx.grad)
    for reduction in ("mean", "sum", "none"):
        e = F.cross_entropy(pt(rand(0, 3), dtype), pyth.zeros(0, dtype=pyth.int64),
                            reduction=reduction)
        te = torch.nn.functional.cross_entropy(tt(torch, rand(0, 3), dtype),
                                               torch.zeros(0, dtype=torch.int64),
                                               reduction=reduction)
        assert tuple(e.shape) == tuple(te.shape)
        np.testing.assert_array_equal(npy(e), npy(te))


def test_cross_entropy_bad_targets_raise():
    a = pt(rand(4, 3), grad=True)
    for bad in ([0, 3, 1, 2], [0, -1, 1, 2]):
        with pytest.raises(IndexError, match=f"target {bad[1]} is out of bounds"):
            F.cross_entropy(a, pyth.tensor(bad))
    with pytest.raises(RuntimeError, match=r"\[4, 3\].*\[4, 1\]"):
        F.cross_entropy(a, pyth.tensor([[0], [1], [1], [0]]))
    with pytest.raises(ValueError, match="reduction"):
        F.cross_entropy(a, pyth.tensor([0, 1, 1, 0]), reduction="avg")


def test_cross_entropy_target_batch_mismatch_is_value_error(torch):
    a = rand(4, 3)
    with pytest.raises(ValueError):
        torch.nn.functional.cross_entropy(tt(torch, a), torch.tensor([0, 1, 1]))
    with pytest.raises(ValueError, match="batch"):
        F.cross_entropy(pt(a), pyth.tensor([0, 1, 1]))


def test_cross_entropy_strided_target_and_gradient_vs_torch(torch):
    """A stepped target, an incoming gradient that is a strided/expanded mix (from slicing and
    sum), and a float64 gradient into the float32 node (cast back, as PyTorch)."""
    a, t = rand(6, 4), RNG.integers(0, 4, 12)
    res = []
    for mod, f in ((pyth, F), (torch, torch.nn.functional)):
        x = mod.tensor(a, dtype=mod.float64, requires_grad=True)
        target = mod.tensor(t)[::2]
        loss = f.cross_entropy(x, target, reduction="none")
        (loss[::2].sum() + loss.sum() * 2).backward()
        x32 = mod.tensor(a, dtype=mod.float32, requires_grad=True)
        f.cross_entropy(x32, target, reduction="none").backward(mod.ones(6, dtype=mod.float64))
        y32 = f.linear(x32, mod.ones(3, 4))
        y32.backward(mod.ones(6, 3, dtype=mod.float64))
        assert x32.grad.dtype is mod.float32
        res.append((loss, x.grad, x32.grad))
    for p_, t_ in zip(*res):
        close(p_, t_, 1e-6)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_gradcheck_and_gradgradcheck(reduction):
    a, t = _ce_inputs(n=4, c=3, ignore=1)
    target = pyth.tensor(t)
    x = pt(a, grad=True)

    def f(x):
        return F.cross_entropy(x, target, reduction=reduction, ignore_index=1)
    assert type(f(x).grad_fn).__name__ == "CrossEntropyBackward"
    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph")
def test_cross_entropy_double_backward_vs_torch(torch):
    """create_graph through CrossEntropyBackward with backward() (the engine's fast path)."""
    a, t = _ce_inputs(n=5, c=4, ignore=-100)
    res = []
    for mod, f, mk in ((pyth, F, lambda v: pt(v, grad=True)),
                       (torch, torch.nn.functional, lambda v: tt(torch, v, grad=True))):
        x = mk(a)
        f.cross_entropy(x * 1.5, mod.tensor(t)).backward(create_graph=True)
        gx = x.grad
        x.grad = None
        (gx * gx).sum().backward()
        res.append(x.grad)
    close(*res, tol=1e-10)


def test_cross_entropy_backward_twice(torch):
    a, t = _ce_inputs()
    x = pt(a, grad=True)
    y = F.cross_entropy(x, pyth.tensor(t))
    y.backward()
    with pytest.raises(RuntimeError, match="second time|freed"):
        y.backward()
    tx = tt(torch, a, grad=True)
    ty = torch.nn.functional.cross_entropy(tx, torch.tensor(t))
    x.grad = None
    y = F.cross_entropy(x, pyth.tensor(t))
    y.backward(retain_graph=True)
    y.backward()
    ty.backward(retain_graph=True)
    ty.backward()
    close(x.grad, tx.grad)


def test_cross_entropy_target_modified_in_place_raises(torch):
    a, t = _ce_inputs()
    x, target = pt(a, grad=True), pyth.tensor(t)
    y = F.cross_entropy(x, target)
    target.add_(0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()
    tx, ttarget = tt(torch, a, grad=True), torch.tensor(t)
    ty = torch.nn.functional.cross_entropy(tx, ttarget)
    ttarget.add_(0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        ty.backward()


def test_cross_entropy_input_modified_in_place_after_forward(torch):
    a, t = _ce_inputs()
    res = []
    for mod, f, mk in ((pyth, F, lambda v: pt(v, grad=True)),
                       (torch, torch.nn.functional, lambda v: tt(torch, v, grad=True))):
        leaf = mk(a)
        x = leaf * 2
        y = f.cross_entropy(x, mod.tensor(t))
        x.add_(1)
        y.backward()
        res.append(leaf.grad)
    close(*res)


def test_cross_entropy_unfused_cases_still_match(torch):
    """weight, label smoothing, a 1-D input and float targets keep the composed path."""
    a, t = rand(5, 3), RNG.integers(0, 3, 5)
    wv = np.abs(rand(3)) + 0.1
    cases = [{"weight": wv}, {"label_smoothing": 0.2}]
    for kw in cases:
        x, tx = pt(a, grad=True), tt(torch, a, grad=True)
        pkw = {k: (pt(v) if k == "weight" else v) for k, v in kw.items()}
        tkw = {k: (tt(torch, v) if k == "weight" else v) for k, v in kw.items()}
        y = F.cross_entropy(x, pyth.tensor(t), **pkw)
        ty = torch.nn.functional.cross_entropy(tx, torch.tensor(t), **tkw)
        assert type(y.grad_fn).__name__ != "CrossEntropyBackward"
        close(y, ty)
        y.backward()
        ty.backward()
        close(x.grad, tx.grad)


# ---- the engine's fast path (backward() without inputs=) -------------------------------------

def _program(mod, leaves: list, log: list):
    """One graph with a shared subexpression, a leaf used twice, tensor hooks, retain_grad,
    Node hooks and pre-hooks, post-accumulate hooks; the same calls in pyth and torch."""
    f = F if mod is pyth else mod.nn.functional
    a, b, w = leaves
    for name, leaf in (("a", a), ("w", w)):
        leaf.register_post_accumulate_grad_hook(
            lambda t, name=name: log.append(("post", name, npy(t.grad).copy())))
    b.register_hook(lambda g: g + 1)   # a leaf's tensor hook changes what accumulates
    s = a * b                      # shared: feeds two consumers
    s.retain_grad()
    s.register_hook(lambda g: log.append(("s", npy(g).copy())))
    u = s.sin() + s * a            # a used twice (here and in s)
    v = f.linear(s, w)             # through the kernel
    v.register_hook(lambda g: g * 2)
    v.register_hook(lambda g: g * 100).remove()   # a removed hook never runs
    # LinearBackward's inputs are (x, weight, bias), PyTorch's MmBackward0's (x, weight.t()):
    # the gradient of x is the first of both
    v.grad_fn.register_hook(lambda gi, go: log.append(
        ("node", [npy(gi[0]).copy()], [npy(g).copy() for g in go])))
    v.grad_fn.register_prehook(lambda go: log.append(("pre", [npy(g).copy() for g in go])))
    u.grad_fn.register_prehook(lambda go: (go[0] * 3,))
    u.grad_fn.register_hook(lambda gi, go: (gi[0] * 0.5, gi[1]))   # replaces grad_inputs
    return (u.sum(1, keepdim=True) * v).sum() + (u * u).mean(), s


def _run_both(torch, arrays, body):
    res = []
    for mod in (pyth, torch):
        leaves = [(pt(v, grad=True) if mod is pyth else tt(torch, v, grad=True)) for v in arrays]
        log: list = []
        extra = body(mod, leaves, log)
        res.append(([lf.grad for lf in leaves], log, extra))
    return res


def _compare_logs(lp: list, lt: list) -> None:
    assert [e[0] for e in lp] == [e[0] for e in lt]
    for ep, et in zip(lp, lt):
        for xp, xt in zip(ep[1:], et[1:]):
            if isinstance(xp, list):
                assert len(xp) == len(xt)
                for yp, yt in zip(xp, xt):
                    if yt is None:
                        assert yp is None
                    else:
                        np.testing.assert_allclose(yp, yt, rtol=1e-12, atol=1e-12)
            elif isinstance(xp, str):
                assert xp == xt
            else:
                np.testing.assert_allclose(xp, xt, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("twice", [False, True])
def test_engine_fast_path_hooks_and_shared_nodes_vs_torch(torch, twice):
    """One backward, or retain_graph then a second backward accumulating into .grad (and a
    third, after the graph was freed, refused)."""
    arrays = [rand(3, 4), rand(3, 4), rand(2, 4)]

    def body(mod, leaves, log):
        loss, s = _program(mod, leaves, log)
        loss.backward(retain_graph=twice)
        if twice:
            first = leaves[0].grad
            loss.backward()
            log.append(("same .grad object", leaves[0].grad is first))
        with pytest.raises(RuntimeError):
            loss.backward()       # freed: LinearBackward and the rest saved tensors
        return s.grad

    (gp, lp, sp), (gt, lt, st) = _run_both(torch, arrays, body)
    for p, t in zip(gp, gt):
        close(p, t, 1e-12)
    close(sp, st, 1e-12)
    _compare_logs(lp, lt)
    assert [e[0] for e in lp].count("post") == (4 if twice else 2)


def test_engine_fast_path_non_scalar_roots_vs_torch(torch):
    arrays = [rand(3, 4), rand(3, 4), rand(2, 4)]
    g1, g2 = rand(3, 2), rand(3, 4)

    def body(mod, leaves, log):
        f = F if mod is pyth else mod.nn.functional
        a, b, w = leaves
        mk = (lambda v: pt(v)) if mod is pyth else (lambda v: tt(torch, v))
        h = a.exp() * b
        y = f.linear(h, w)
        z = h * a
        y.backward(mk(g1), retain_graph=True)       # non-scalar with a gradient
        mod.autograd.backward([y, z], [mk(g1), mk(g2)])   # two roots sharing h
        a.backward(mk(g2))                          # a leaf as the root

    (gp, _, _), (gt, _, _) = _run_both(torch, arrays, body)
    for p, t in zip(gp, gt):
        close(p, t, 1e-12)


def test_engine_fast_path_root_depends_on_other_root_vs_torch(torch):
    arrays = [rand(4), rand(4)]

    def body(mod, leaves, log):
        a, b = leaves
        y = a * b
        y.retain_grad()
        z = (y * y).sum()
        mod.autograd.backward([z, y], [None, (a * 0 + 1).detach()])
        return y.grad

    (gp, _, yp), (gt, _, yt) = _run_both(torch, arrays, body)
    for p, t in zip(gp, gt):
        close(p, t, 1e-12)
    close(yp, yt, 1e-12)


def test_engine_fast_path_mlp_step_vs_torch(torch):
    """The training step the fast path exists for: linear, relu, linear, cross_entropy."""
    w1, b1, w2, b2 = rand(8, 5), rand(8), rand(3, 8), rand(3)
    xa, t = rand(6, 5), RNG.integers(0, 3, 6)
    res = []
    for mod, f, mk in ((pyth, F, lambda v: pt(v, grad=True)),
                       (torch, torch.nn.functional, lambda v: tt(torch, v, grad=True))):
        ps = [mk(v) for v in (w1, b1, w2, b2)]
        x = mk(xa).detach()
        for _ in range(2):            # second step accumulates into .grad
            h = f.relu(f.linear(x, ps[0], ps[1]))
            f.cross_entropy(f.linear(h, ps[2], ps[3]), mod.tensor(t)).backward()
        res.append([p.grad for p in ps])
    for p, t_ in zip(*res):
        close(p, t_, 1e-12)


def _two_outputs(mod):
    class Two(mod.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2, x.exp()

        @staticmethod
        def backward(ctx, g1, g2):
            x, = ctx.saved_tensors
            r = 0
            if g1 is not None:
                r = r + g1 * 2
            if g2 is not None:
                r = r + g2 * x.exp()
            return r
    return Two


def _product(p, q):
    return (p * q).sum()


MULTI = {   # nodes with several outputs of which only some receive a gradient
    "split_second": lambda m, x: (x.split(2)[1] * 3).sum(),
    "split_both": lambda m, x: (x.split(2)[1] * 3).sum() + x.split(2)[0].exp().sum(),
    "unbind": lambda m, x: x.unbind(0)[2].sum() * 2 + x.unbind(0)[0].sin().sum(),
    "sort_values": lambda m, x: (x.sort(1)[0] * m.arange(6.0, dtype=m.float64)).sum(),
    "function_first": lambda m, x: _two_outputs(m).apply(x)[0].sum(),
    "function_second": lambda m, x: (_two_outputs(m).apply(x)[1] * 3).sum(),
    "function_both": lambda m, x: _product(*_two_outputs(m).apply(x)),
}


@pytest.mark.parametrize("case", list(MULTI))
def test_engine_fast_path_multi_output_nodes_vs_torch(torch, case):
    a = rand(4, 6)
    x, tx = pt(a, grad=True), tt(torch, a, grad=True)
    MULTI[case](pyth, x).backward()
    MULTI[case](torch, tx).backward()
    close(x.grad, tx.grad)


# ---- softmax over a contiguous last dim: the vectorised row (generic/THNNSoftMax.c) --------

def _softmax_ref(x: np.ndarray, log: bool) -> np.ndarray:
    """float64 reference with PyTorch's special values: a NaN, or a +inf, in a row makes the row
    NaN; a row of -inf is NaN too (0/0)."""
    with np.errstate(all="ignore"):
        m = np.max(x, axis=-1, keepdims=True)
        m = np.where(np.isneginf(m), 0.0, m)
        e = np.exp(x - m)
        s = e.sum(axis=-1, keepdims=True)
        return x - m - np.log(s) if log else e / s


@pytest.mark.parametrize("n", [1, 7, 15, 16, 17, 33, 128, 1000])
@pytest.mark.parametrize("dtype,tol", DTYPES)
@pytest.mark.parametrize("log", [False, True])
def test_softmax_rows_of_every_length_against_float64(n, dtype, tol, log):
    x = rand(5, n) * 4
    x[0, -1] = 1000.0    # the maximum last (a row's tail): exp without subtracting it overflows
    x[1, n // 2] = np.nan
    x[2, 0] = np.inf
    x[3, :] = -np.inf
    if n > 1:
        x[4, -1] = -np.inf   # one -inf: exp 0, its log_softmax -inf
    fn = F.log_softmax if log else F.softmax
    for got in (fn(pyth.from_numpy(x.astype(dtype)), -1),
                (pyth.from_numpy(x.astype(dtype)).log_softmax(1) if log
                 else pyth.from_numpy(x.astype(dtype)).softmax(1))):
        ref = _softmax_ref(x.astype(dtype).astype(np.float64), log)
        np.testing.assert_allclose(got.numpy(), ref, rtol=max(tol, 1e-6) * 10,
                                   atol=max(tol, 1e-6) * 10)
        assert got.dtype == getattr(pyth, dtype)


@pytest.mark.parametrize("log", [False, True])
def test_softmax_method_is_one_node_and_matches_torch(torch, log):
    x = rand(6, 40)
    px = pyth.from_numpy(x).requires_grad_()
    tx = torch.from_numpy(x).requires_grad_()
    py = px.log_softmax(1) if log else px.softmax(1)
    ty = tx.log_softmax(1) if log else tx.softmax(1)
    g = rand(6, 40)
    py.backward(pyth.from_numpy(g))
    ty.backward(torch.from_numpy(g))
    np.testing.assert_allclose(py.detach().numpy(), ty.detach().numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(px.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)
    # one recorded node, whose inputs lead straight to the leaf
    assert py.grad_fn.next_functions[0][0].__class__.__name__ == "AccumulateGrad"


def test_softmax_method_gradgradcheck():
    x = pyth.from_numpy(rand(3, 5)).requires_grad_()
    assert gradcheck(lambda t: t.softmax(1), (x,))
    assert gradgradcheck(lambda t: t.log_softmax(0), (x,))


def test_softmax_of_a_transposed_tensor_and_half_dtype_still_agree():
    x = rand(20, 9)
    t = pyth.from_numpy(x).t()   # non-contiguous: the kernel copies, the row runs on the copy
    np.testing.assert_allclose(t.softmax(1).numpy(), _softmax_ref(x.T, False), rtol=1e-12)
    h = pyth.from_numpy(x.astype(np.float32)).to(pyth.float16)   # composition in float16
    np.testing.assert_allclose(h.softmax(1).float().numpy(), _softmax_ref(x, False), atol=2e-3)


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_node_matches_torch_first_and_second_order(torch, log, dim):
    x = rand(4, 5, 3)
    px = pyth.from_numpy(x).requires_grad_()
    tx = torch.from_numpy(x).requires_grad_()
    fp, ft = (F.log_softmax, torch.log_softmax) if log else (F.softmax, torch.softmax)
    py, ty = fp(px, dim), ft(tx, dim)
    assert type(py.grad_fn).__name__ == type(ty.grad_fn).__name__
    g = rand(4, 5, 3)
    (gp,) = pyth.autograd.grad(py, px, pyth.from_numpy(g), create_graph=True)
    (gt,) = torch.autograd.grad(ty, tx, torch.from_numpy(g), create_graph=True)
    np.testing.assert_allclose(gp.detach().numpy(), gt.detach().numpy(), rtol=1e-10, atol=1e-12)
    (gp * gp).sum().backward()
    (gt * gt).sum().backward()
    np.testing.assert_allclose(px.grad.numpy(), tx.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_softmax_output_written_in_place_is_caught():
    x = pyth.from_numpy(rand(3, 4)).requires_grad_()
    y = F.softmax(x, 1)
    y.mul_(2.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


@pytest.mark.parametrize("log", [False, True])
def test_softmax_kernel_with_its_output_over_its_input(log):
    """Through the C API an output may be the input itself: the kernel then takes the walk that
    reads each element before writing it (the vectorised row writes exp first)."""
    x = rand(6, 37)
    t = pyth.from_numpy(x.copy())
    name = "THNN_DoubleLogSoftMax_updateOutput" if log else "THNN_DoubleSoftMax_updateOutput"
    check(getattr(lib, name)(t._h, t._h, 1))
    np.testing.assert_allclose(t.numpy(), _softmax_ref(x, log), rtol=1e-12, atol=1e-12)

"""The cheap paths of autograd.Function.apply, Module.__call__ and no_grad forwards behave as
PyTorch's: the bookkeeping they skip is bookkeeping nothing would have read."""

import numpy as np
import pytest

import pyth

torch = pytest.importorskip("torch")


def _functions(lib):
    class Scale(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.save_for_backward(x)
            ctx.k = k
            return x * k

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * ctx.k + 0 * x, None

    class ArgMaxAndValue(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            idx = x.argmax(-1, keepdim=True)
            ctx.mark_non_differentiable(idx)
            ctx.save_for_backward(idx)
            ctx.shape = x.shape
            return x.gather(-1, idx), idx

        @staticmethod
        def backward(ctx, g, gidx):
            idx, = ctx.saved_tensors
            return lib.zeros(ctx.shape).scatter(-1, idx, g)

    class AddInPlace(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.mark_dirty(x)
            return x.add_(y)

        @staticmethod
        def backward(ctx, g):
            return g, g

    class Same(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return 3 * g

    class Split(lib.autograd.Function):   # the setup_context style
        @staticmethod
        def forward(x, n):
            return x * 2, n + 1

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.needs = ctx.needs_input_grad

        @staticmethod
        def backward(ctx, g, _):
            return 2 * g, None

    return Scale, ArgMaxAndValue, AddInPlace, Same, Split


def _run(lib, case):
    Scale, ArgMax, AddInPlace, Same, Split = _functions(lib)
    x = lib.tensor(np.arange(12, dtype=np.float32).reshape(3, 4) / 7, requires_grad=True)
    if case == "save":
        y = Scale.apply(x[:, ::2], 3.0)
    elif case == "non_diff":
        v, idx = ArgMax.apply(x)
        assert not idx.requires_grad and idx.grad_fn is None
        y = v
    elif case == "dirty":
        a = x * 1
        y = AddInPlace.apply(a, x)
        assert y is a
    elif case == "same":
        y = Same.apply(x)
        assert y is not x and y.grad_fn is not None
    else:
        y, n = Split.apply(x, 4)
        assert n == 5
    (y * y).sum().backward()
    return y.detach().numpy(), x.grad.numpy(), type(y.grad_fn).__name__


@pytest.mark.parametrize("case", ["save", "non_diff", "dirty", "same", "split"])
def test_function_apply_matches_torch(case):
    py, pg, pname = _run(pyth, case)
    ty, tg, tname = _run(torch, case)
    np.testing.assert_allclose(py, ty, rtol=1e-6)
    np.testing.assert_allclose(pg, tg, rtol=1e-6)
    assert pname == tname


@pytest.mark.parametrize("lib", [pyth, torch], ids=["pyth", "torch"])
def test_function_apply_outside_graph(lib):
    Scale, _, AddInPlace, _, Split = _functions(lib)
    x = lib.ones(3, requires_grad=True)
    with lib.no_grad():
        y = Scale.apply(x, 2.0)
    assert not y.requires_grad and y.grad_fn is None
    plain = lib.ones(3)
    y = Scale.apply(plain, 2.0)
    assert not y.requires_grad
    v0 = plain._version
    AddInPlace.apply(plain, lib.ones(3))   # add_ and mark_dirty each count, as in PyTorch
    assert plain._version == v0 + 2
    leaf = lib.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        AddInPlace.apply(leaf, lib.ones(3))


def test_function_needs_input_grad_and_gradcheck():
    Scale, _, _, _, Split = _functions(pyth)
    seen = {}

    class Probe(pyth.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, k):
            seen["needs"] = ctx.needs_input_grad
            return a * b * k

        @staticmethod
        def backward(ctx, g):
            return g, g, None

    Probe.apply(pyth.ones(2, requires_grad=True), pyth.ones(2), 2)
    assert seen["needs"] == (True, False, False)
    x = pyth.randn(4, dtype=pyth.float64, generator=pyth.Generator().manual_seed(0),
                   requires_grad=True)
    assert pyth.autograd.gradcheck(lambda t: Scale.apply(t, 1.5), (x,))
    assert pyth.autograd.gradgradcheck(lambda t: Scale.apply(t, 1.5), (x,))


# ---- Module.__call__: hooks still fire in PyTorch's order ----------------------------------------

def _hook_trace(lib):
    mm = lib.nn.modules.module
    lin = lib.nn.Linear(3, 2)
    with lib.no_grad():
        lin.weight.copy_(lib.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]]))
        lin.bias.fill_(0.25)
    seen = []
    handles = [
        mm.register_module_forward_pre_hook(lambda m, a: seen.append("global pre")),
        mm.register_module_forward_hook(lambda m, a, o: seen.append("global post")),
        mm.register_module_forward_hook(lambda m, a, k, o: seen.append(("global kw", k)),
                                        with_kwargs=True),
        lin.register_forward_pre_hook(lambda m, a: (a[0] * 2,)),
        lin.register_forward_hook(lambda m, a, o: o + 1),
    ]
    out = lin(lib.ones(1, 3))
    for h in handles:
        h.remove()
    plain = lin(lib.ones(1, 3))
    return seen, out.detach().numpy(), plain.detach().numpy()


def test_module_hooks_fire_as_in_torch():
    ps, po, pp = _hook_trace(pyth)
    ts, to, tp = _hook_trace(torch)
    assert ps == ts
    np.testing.assert_allclose(po, to, rtol=1e-6)
    np.testing.assert_allclose(pp, tp, rtol=1e-6)


@pytest.mark.parametrize("lib", [pyth, torch], ids=["pyth", "torch"])
def test_global_always_call_hook_runs_when_forward_raises(lib):
    seen = []
    h = lib.nn.modules.module.register_module_forward_hook(
        lambda m, a, o: seen.append(o), always_call=True)
    try:
        with pytest.raises(RuntimeError):
            lib.nn.Linear(3, 2)(lib.ones(4))
            raise RuntimeError("forward did not raise")
    finally:
        h.remove()
    assert seen[-1] is None
    n = len(seen)
    lib.nn.Linear(3, 2)(lib.ones(3))
    assert len(seen) == n   # removed: no longer called


def test_module_attributes_after_reassignment():
    m = pyth.nn.Linear(2, 2)
    w = m.weight
    assert m.weight is w and "weight" not in m.__dict__
    m.weight = pyth.nn.Parameter(pyth.zeros(2, 2))
    assert m.weight is not w and float(m.weight.sum()) == 0.0
    with pytest.raises(AttributeError, match="'Linear' object has no attribute 'nope'"):
        m.nope


# ---- no_grad / inference_mode forwards ----------------------------------------------------------

def _no_grad_views(lib, case):
    base = lib.arange(6.0).reshape(2, 3)
    w = lib.ones(3, requires_grad=True)
    with lib.no_grad():
        v = base[0]
        vv = v.view(3)[:]   # a view of a view made under no_grad
        y = lib.nn.functional.linear(base.view(1, 2, 3), lib.ones(4, 3))
    assert not y.requires_grad and y.grad_fn is None and tuple(y.shape) == (1, 2, 4)
    target = {"view": v, "chain": vv}[case]
    try:
        target.mul_(w)
    except RuntimeError as e:
        return str(e)
    return None


@pytest.mark.parametrize("case", ["view", "chain"])
def test_no_grad_view_modified_in_place_later(case):
    msg = _no_grad_views(pyth, case)
    assert msg is not None and msg == _no_grad_views(torch, case)


@pytest.mark.parametrize("lib", [pyth, torch], ids=["pyth", "torch"])
def test_no_grad_views_in_place_inside_no_grad(lib):
    base = lib.arange(6.0)
    with lib.no_grad():
        v = base[1:4].view(3)
        v.mul_(lib.ones(3, requires_grad=True) * 2)
    assert base.tolist() == [0.0, 2.0, 4.0, 6.0, 4.0, 5.0]
    assert not base.requires_grad


def test_inference_mode_forward_matches_torch():
    rs = []
    for lib in (pyth, torch):
        lin = lib.nn.Linear(4, 2)
        with lib.no_grad():
            lin.weight.copy_(lib.arange(8.0).reshape(2, 4) / 8)
            lin.bias.fill_(-1.0)
        with lib.inference_mode():
            y = lin(lib.arange(24.0).reshape(2, 3, 4)[:, ::2])   # non-contiguous input
            z = y[:, 1].reshape(2, 2)
        assert not y.requires_grad and not z.requires_grad and z.grad_fn is None
        rs.append((y.numpy(), z.numpy()))
    for a, b in zip(*rs):
        np.testing.assert_allclose(a, b, rtol=1e-6)


@pytest.mark.parametrize("shape", [(2, 3, 5), (2, 1, 3, 5), (0, 4, 5), (3, 0, 5), (1, 32, 5)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("bias", [True, False])
def test_no_grad_linear_of_many_dims_is_one_kernel_call(shape, dtype, bias):
    """Under no_grad an (..., in) input goes to the kernel whole (its rows), with PyTorch's
    result; a transposed input is copied first."""
    rng = np.random.default_rng(3)
    x, w, b = rng.standard_normal(shape), rng.standard_normal((4, 5)), rng.standard_normal(4)
    got = []
    for lib in (pyth, torch):
        dt = getattr(lib, dtype)
        xs = lib.tensor(x, dtype=dt)
        ws, bs = lib.tensor(w, dtype=dt), lib.tensor(b, dtype=dt) if bias else None
        with lib.no_grad():
            y = lib.nn.functional.linear(xs, ws, bs)
            yt = lib.nn.functional.linear(xs.transpose(0, -2), ws, bs)
        assert tuple(y.shape) == shape[:-1] + (4,) and y.dtype == dt
        got.append((y.numpy(), yt.numpy()))
    tol = 1e-5 if dtype == "float32" else 1e-12
    for a, b_ in zip(*got):
        np.testing.assert_allclose(a, b_, rtol=tol, atol=tol)


def test_linear_kernel_verbs_take_leading_dims():
    """THNN Linear's three verbs read (..., in) / (..., out) tensors as their rows and refuse
    mismatched leading sizes with a RuntimeError."""
    from pyth.nn import _linear_kernels as K
    fwd, gin, acc = K.KERNELS[pyth.float64]
    x, w, g = pyth.randn(2, 3, 5, dtype=pyth.float64), pyth.randn(4, 5, dtype=pyth.float64), \
        pyth.randn(2, 3, 4, dtype=pyth.float64)
    y, gi = pyth.empty(0, dtype=pyth.float64), pyth.empty(0, dtype=pyth.float64)
    gw, gb = pyth.empty(0, dtype=pyth.float64), pyth.empty(0, dtype=pyth.float64)
    from pyth._errors import check
    check(fwd(y._h, x._h, w._h, K.ffi.NULL))
    check(gin(gi._h, g._h, w._h))
    check(acc(gw._h, gb._h, x._h, g._h, 1.0, 0))
    xn, wn, gn = x.numpy(), w.numpy(), g.numpy()
    np.testing.assert_allclose(y.numpy(), xn @ wn.T, rtol=1e-12)
    np.testing.assert_allclose(gi.numpy(), gn @ wn, rtol=1e-12)
    np.testing.assert_allclose(gw.numpy(), gn.reshape(6, 4).T @ xn.reshape(6, 5), rtol=1e-12)
    np.testing.assert_allclose(gb.numpy(), gn.reshape(6, 4).sum(0), rtol=1e-12)
    with pytest.raises(RuntimeError, match=r"expected input \(\.\.\., in\) and gradOutput"):
        check(acc(gw._h, gb._h, x._h, pyth.randn(3, 2, 4, dtype=pyth.float64)._h, 1.0, 0))
    with pytest.raises(RuntimeError, match=r"expected input \(\.\.\., in\) and weight"):
        check(fwd(y._h, pyth.randn(5, dtype=pyth.float64)._h, w._h, K.ffi.NULL))


def test_size_dim_fast_path_errors_match():
    t = pyth.zeros(2, 3)
    assert (t.size(0), t.size(-1), t.size(1)) == (2, 3, 3)
    for bad, err in ((2, IndexError), (-3, IndexError), (True, TypeError), (1.0, TypeError)):
        with pytest.raises(err):
            t.size(bad)
    with pytest.raises(IndexError):
        pyth.zeros(()).size(0)


# ---- slice gradients accumulate into one buffer ------------------------------------------------

def _slices(lib, case, x0):
    x = lib.tensor(x0, requires_grad=True)
    base = x.t() if case == "noncontig" else x
    T = base.shape[0]
    if case == "overlap":
        y = sum((base[t:t + 3] * (t + 1)).sum() for t in range(T - 2))
    elif case == "repeated":
        y = sum((base[[t, t, 0]] * (t + 1)).sum() for t in range(T))
    elif case == "mixed":
        y = (base * 2).sum() + sum((base[t, 1:] ** 2).sum() + base[..., t % 3].sum()
                                   for t in range(T))
    else:
        y = sum((base[t] * (t + 1)).sum() for t in range(T))
    y.backward()
    return x.grad.numpy()


@pytest.mark.parametrize("case", ["rows", "overlap", "repeated", "mixed", "noncontig"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_slice_gradients_match_torch(case, dtype):
    x0 = np.random.default_rng(3).standard_normal((6, 5)).astype(dtype)
    p = _slices(pyth, case, x0)
    t = _slices(torch, case, x0)
    assert p.dtype == t.dtype
    np.testing.assert_allclose(p, t, rtol=1e-6 if dtype == np.float32 else 1e-12)


@pytest.mark.parametrize("lib", [pyth, torch], ids=["pyth", "torch"])
def test_slice_gradients_second_order_and_retain_graph(lib):
    x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=lib.float64, requires_grad=True)
    y = sum((x[t] ** 3).sum() for t in range(2)) + (x[:, 1:] ** 2).sum()
    g, = lib.autograd.grad(y, x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), 3 * x.detach().numpy() ** 2 +
                               np.array([[0, 2, 3], [0, 5, 6]]) * 2)
    g.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 6 * x.detach().numpy() +
                               np.array([[0, 2, 2], [0, 2, 2]]))
    z = sum(x[t].sum() * (t + 1) for t in range(2))
    z.backward(retain_graph=True)
    first = x.grad.clone()
    z.backward()
    np.testing.assert_allclose((x.grad - first).numpy(), [[1, 1, 1], [2, 2, 2]])


@pytest.mark.parametrize("lib", [pyth, torch], ids=["pyth", "torch"])
def test_slice_gradients_with_hooks(lib):
    x = lib.ones(3, 2, requires_grad=True)
    seen = []
    x.register_hook(lambda g: seen.append(g.clone()))
    rows = [x[t] for t in range(3)]
    rows[1].register_hook(lambda g: g * 10)
    rows[2].retain_grad()
    sum((r * (i + 1)).sum() for i, r in enumerate(rows)).backward()
    assert len(seen) == 1
    np.testing.assert_allclose(x.grad.numpy(), [[1, 1], [20, 20], [3, 3]])
    np.testing.assert_allclose(rows[2].grad.numpy(), [3, 3])


def test_slice_gradients_zero_fill_is_linear(monkeypatch):
    """The gradient of x reached through T slices is zero-filled once, not once a slice."""
    from pyth.autograd.derivatives import _common
    filled = [0]
    zeros = _common.zeros

    def counting(*args, **kwargs):
        r = zeros(*args, **kwargs)
        filled[0] += r.numel()
        return r
    monkeypatch.setattr(_common, "zeros", counting)
    for T in (50, 200):
        filled[0] = 0
        x = pyth.ones(T, 8, requires_grad=True)
        sum(x[t].sum() for t in range(T)).backward()
        assert filled[0] == T * 8
        np.testing.assert_array_equal(x.grad.numpy(), np.ones((T, 8), np.float32))

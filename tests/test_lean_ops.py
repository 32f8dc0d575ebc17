"""The short paths of small ops give the general path's results and errors: in-place
binary methods calling their C op directly, unary methods inlined outside autograd, the lean
record of full reductions, and saved outputs kept by their C handle alone."""

from __future__ import annotations

import numpy as np
import pytest

import pyth
from pyth.autograd import engine, gradcheck, gradgradcheck

FLOATS = [pyth.float32, pyth.float64]
INTS = [pyth.int8, pyth.int16, pyth.int32, pyth.int64, pyth.uint8]
NP_OPS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide}


def _layouts(dt: pyth.dtype) -> list:
    """(self, other) pairs: contiguous, transposed, expanded other, zero-size, non-contiguous."""
    base = pyth.arange(1, 13, dtype=dt).reshape(3, 4)
    other = pyth.arange(2, 14, dtype=dt).reshape(3, 4)
    return [(base.clone(), other),
            (base.clone().t(), other.t()),
            (base.clone(), pyth.arange(1, 5, dtype=dt).expand(3, 4)),
            (pyth.ones(0, 4, dtype=dt), pyth.ones(0, 4, dtype=dt)),
            (pyth.arange(1, 25, dtype=dt).reshape(3, 8)[:, ::2], other)]


@pytest.mark.parametrize("name, dt", [(n, d) for n in ("add", "sub", "mul", "div")
                                       for d in FLOATS + INTS
                                       if n != "div" or d.is_floating_point],   # int / int: float
                         ids=lambda v: v if isinstance(v, str) else v.name)
def test_inplace_binary_matches_numpy(name, dt):
    for a, b in _layouts(dt):
        want = NP_OPS[name](a.numpy(), b.numpy()).astype(a.numpy().dtype)
        r = getattr(a, name + "_")(b)
        assert r is a
        np.testing.assert_array_equal(a.numpy(), want)


@pytest.mark.parametrize("dt", FLOATS, ids=lambda d: d.name)
@pytest.mark.parametrize("scalar", [0.5, 3, -2])
def test_inplace_with_a_number_and_alpha(dt, scalar):
    a = pyth.arange(6, dtype=dt).reshape(2, 3)
    want = a.numpy() + scalar
    a.add_(scalar)
    np.testing.assert_allclose(a.numpy(), want)
    b = pyth.arange(6, dtype=dt).reshape(2, 3)
    want = a.numpy() - 0.25 * b.numpy()
    a.sub_(b, alpha=0.25)
    np.testing.assert_allclose(a.numpy(), want, rtol=1e-6)
    want = a.numpy() + 2 * b.numpy()
    a.add_(b, alpha=2)
    np.testing.assert_allclose(a.numpy(), want, rtol=1e-6)


def test_inplace_errors_are_the_general_paths():
    a = pyth.ones(3)
    with pytest.raises(RuntimeError, match=r"add\(\).*shape \[3\].*broadcast shape \[2, 3\]"):
        a.add_(pyth.ones(2, 3))
    with pytest.raises(RuntimeError):   # an expanded self cannot be written
        pyth.ones(1).expand(3).add_(pyth.ones(3))
    with pytest.raises(RuntimeError):
        a.add_(pyth.ones(3), alpha=True)
    i = pyth.ones(3, dtype=pyth.int32)
    with pytest.raises(RuntimeError):
        i.add_(0.5)                      # an int tensor cannot hold the float result
    with pytest.raises(RuntimeError):
        i.floor_divide_(pyth.zeros(3, dtype=pyth.int32))
    with pytest.raises(RuntimeError):
        a.add_(10 ** 400)                # no double holds it
    assert a.tolist() == [1.0, 1.0, 1.0]


def test_inplace_on_a_saved_tensor_is_caught():
    x = pyth.randn(4, requires_grad=True)
    y = x * 2
    z = y * y                            # saves y
    with pyth.no_grad():
        y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_inplace_matches_torch():
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(0).standard_normal((5, 7)).astype(np.float32)
    b = np.random.default_rng(1).standard_normal((5, 7)).astype(np.float32)
    p, t = pyth.from_numpy(a.copy()), torch.from_numpy(a.copy())
    for op, arg, kw in [("add_", b, {}), ("sub_", b, {"alpha": 0.5}), ("mul_", b, {}),
                        ("div_", b, {}), ("add_", 1.5, {}), ("mul_", -3, {})]:
        pa = pyth.from_numpy(arg) if isinstance(arg, np.ndarray) else arg
        ta = torch.from_numpy(arg) if isinstance(arg, np.ndarray) else arg
        getattr(p, op)(pa, **kw)
        getattr(t, op)(ta, **kw)
        np.testing.assert_allclose(p.numpy(), t.numpy(), rtol=1e-6, atol=1e-6)


UNARY = ["exp", "tanh", "sigmoid", "sqrt", "abs", "neg", "floor", "sin", "log1p"]


@pytest.mark.parametrize("dt", FLOATS + INTS, ids=lambda d: d.name)
@pytest.mark.parametrize("name", UNARY)
def test_unary_methods_match_their_functions(name, dt):
    base = pyth.arange(1, 13, dtype=dt).reshape(3, 4)
    for x in (base, base.t(), base[:, ::2], pyth.arange(1, 5, dtype=dt).expand(3, 4),
              pyth.ones(0, 3, dtype=dt)):
        if name in ("abs", "neg") and dt is pyth.uint8:
            continue
        r = getattr(x, name)()
        want = getattr(pyth, name)(x)
        assert r.dtype is want.dtype and tuple(r.shape) == tuple(x.shape)
        np.testing.assert_array_equal(r.numpy(), want.numpy())
        assert r.is_contiguous()


def test_unary_method_arguments_and_grad_take_the_general_path():
    x = pyth.tensor([1.26, -2.5, 3.14159])
    assert x.round(decimals=1).tolist() == pytest.approx([1.3, -2.5, 3.1])
    w = pyth.tensor([0.5, 1.0], dtype=pyth.float64, requires_grad=True)
    y = w.exp()
    assert type(y.grad_fn).__name__ == "ExpBackward0"
    y.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), np.exp([0.5, 1.0]))


@pytest.mark.parametrize("name", ["sum", "mean"])
def test_full_reduction_records_a_lean_node(name):
    x = pyth.randn(3, 4, dtype=pyth.float64, requires_grad=True)
    y = getattr(x, name)()
    assert type(y.grad_fn).__name__ == name.capitalize() + "Backward0"
    y.backward()
    n = 12 if name == "mean" else 1
    np.testing.assert_allclose(x.grad.numpy(), np.full((3, 4), 1 / n))
    assert gradcheck(lambda t: getattr(t, name)(), (x,))
    assert gradgradcheck(lambda t: getattr(t * t, name)(), (x,))
    xt = x.t()                       # a transposed input: the gradient keeps x's layout
    x.grad = None
    getattr(xt, name)().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full((3, 4), 1 / n))


def test_full_reductions_match_torch():
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(2).standard_normal((4, 5)).astype(np.float32)
    for name in ("sum", "mean"):
        p = pyth.from_numpy(a.copy()).requires_grad_()
        t = torch.from_numpy(a.copy()).requires_grad_()
        yp, yt = getattr(p.tanh() * p, name)(), getattr(t.tanh() * t, name)()
        np.testing.assert_allclose(yp.item(), yt.item(), rtol=1e-5)
        yp.backward()
        yt.backward()
        np.testing.assert_allclose(p.grad.numpy(), t.grad.numpy(), rtol=1e-5, atol=1e-7)


def test_zero_size_full_reduction_gradient():
    x = pyth.ones(0, 3, requires_grad=True)
    x.sum().backward()
    assert tuple(x.grad.shape) == (0, 3)


@pytest.mark.parametrize("change", ["add_", "set_", "resize_", "t_", "data"])
def test_saved_output_changed_after_the_forward_is_caught(change):
    x = pyth.randn(2, 2, dtype=pyth.float64, requires_grad=True)
    y = x.exp()                      # ExpBackward0 saves its output y
    with pyth.no_grad():
        if change == "add_":
            y.add_(1)
        elif change == "set_":
            y.set_(pyth.zeros(2, 2, dtype=pyth.float64))
        elif change == "resize_":
            y.resize_(4)
        elif change == "t_":
            y.t_()
    if change == "data":
        y.data = pyth.zeros(2, 2, dtype=pyth.float64)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.grad_fn(pyth.ones(2, 2, dtype=pyth.float64))


def test_saved_output_outlives_its_tensor():
    x = pyth.tensor([0.0, 1.0], dtype=pyth.float64, requires_grad=True)
    loss = x.exp().sum()             # the exp result has no Python tensor left
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([0.0, 1.0]))
    y = x.tanh()
    g = y.grad_fn(pyth.ones(2, dtype=pyth.float64))
    np.testing.assert_allclose(g.detach().numpy(), 1 - np.tanh([0.0, 1.0]) ** 2)
    assert y.detach().tolist() == pytest.approx(np.tanh([0.0, 1.0]).tolist())


def test_a_tensor_sharing_a_saved_handle_is_not_stolen():
    x = pyth.randn(3)
    twin = object.__new__(type(x))   # a second wrapper on x's handle, as a saved output's
    twin._h, twin._ag, twin._vb = x._h, None, None
    assert not engine._owned(twin)
    del twin
    fresh = x * 1
    assert engine._owned(fresh)


def test_double_backward_through_saved_outputs():
    x = pyth.tensor([0.3, -0.7], dtype=pyth.float64, requires_grad=True)
    assert gradgradcheck(lambda t: (t.tanh() + t.exp() * 0.1).sum(), (x,))
    torch = pytest.importorskip("torch")
    t = torch.tensor([0.3, -0.7], dtype=torch.float64, requires_grad=True)
    (gp,) = pyth.autograd.grad((x.tanh() * x.exp()).sum(), x, create_graph=True)
    (gt,) = torch.autograd.grad((t.tanh() * t.exp()).sum(), t, create_graph=True)
    np.testing.assert_allclose(gp.detach().numpy(), gt.detach().numpy())
    gp.sum().backward()
    gt.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy())


def test_operators_with_grad_mode_off_record_nothing():
    x = pyth.tensor([1.0, 2.0], requires_grad=True)
    w = pyth.tensor([3.0, 4.0], requires_grad=True)
    with pyth.no_grad():
        for r in (x * w, x * 2.0, 2.0 * x, x + w, x - 1, x.exp(), x.tanh()):
            assert r.grad_fn is None and not r.requires_grad
        assert (x * w).tolist() == [3.0, 8.0]
    r = x * w                        # the lean record once grad mode is back on
    assert type(r.grad_fn).__name__ == "MulBackward0"
    with pyth.autograd.detect_anomaly():   # anomaly mode takes the general record
        s = x * w
        assert type(s.grad_fn).__name__ == "MulBackward0"
        s.sum().backward()
    assert x.grad.tolist() == [3.0, 4.0] and w.grad.tolist() == [1.0, 2.0]


@pytest.mark.parametrize("hooked", ["y", "z", None])
def test_gradients_meeting_are_summed_without_touching_kept_ones(hooked):
    x = pyth.randn(3, requires_grad=True)
    y, z = x * 2, x * 3              # z's node runs first: its gradient reaches x's buffer first
    kept = []
    if hooked is not None:
        node = (y if hooked == "y" else z).grad_fn
        node.register_hook(lambda gi, go: kept.append(gi[0]))
    (y + z).sum().backward()
    assert x.grad.tolist() == [5.0, 5.0, 5.0]
    if hooked is not None:
        assert kept[0].tolist() == ([2.0] * 3 if hooked == "y" else [3.0] * 3)
    x.grad = None
    w = x * 1
    (w + w).sum().backward()         # one tensor reaches both of add's inputs' buffers
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div"])
def test_lean_binary_gradients(name):
    x = pyth.tensor([0.5, -1.5, 2.0], dtype=pyth.float64, requires_grad=True)
    y = pyth.tensor([1.25, 0.75, -3.0], dtype=pyth.float64, requires_grad=True)
    op = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
          "div": lambda a, b: a / b}[name]
    assert type(op(x, y).grad_fn).__name__ == name.capitalize() + "Backward0"   # div: general
    assert gradcheck(op, (x, y)) and gradgradcheck(op, (x, y))
    assert gradcheck(lambda a: op(a, 2.5), (x,)) and gradcheck(lambda a: op(a, -2), (x,))
    const = pyth.tensor([2.0, 4.0, 8.0], dtype=pyth.float64)   # needs no gradient
    assert gradcheck(lambda a: op(a, const), (x,)) and gradcheck(lambda b: op(const, b), (y,))
    torch = pytest.importorskip("torch")
    tx = torch.tensor([0.5, -1.5, 2.0], dtype=torch.float64, requires_grad=True)
    ty = torch.tensor([1.25, 0.75, -3.0], dtype=torch.float64, requires_grad=True)
    (op(x, y) * op(x, 3.0)).sum().backward()
    (op(tx, ty) * op(tx, 3.0)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy())
    np.testing.assert_allclose(y.grad.numpy(), ty.grad.numpy())


BROADCASTS = [((2, 3), ()), ((), (4,)), ((2, 3), (3,)), ((2, 1, 3), (4, 1)), ((1, 3), (2, 1)),
              ((0, 3), (3,)), ((2, 3), (1, 1, 1))]


@pytest.mark.parametrize("shapes", BROADCASTS, ids=str)
@pytest.mark.parametrize("name", ["add", "sub", "mul"])
def test_lean_binary_broadcast_gradients_match_torch(name, shapes):
    """Two tensors of different shapes take the lean node too (AddBackward0 ...), whose
    gradients are summed back to each input's shape: as torch, to every order."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal(shapes[0]), rng.standard_normal(shapes[1])
    op = {"add": lambda u, v: u + v, "sub": lambda u, v: u - v, "mul": lambda u, v: u * v}[name]
    got = []
    for lib in (pyth, torch):
        x = lib.tensor(a, dtype=lib.float64, requires_grad=True)
        y = lib.tensor(b, dtype=lib.float64, requires_grad=True)
        z = op(x, y)
        assert z.grad_fn.name() == name.capitalize() + "Backward0"
        gx, gy = lib.autograd.grad((z * z).sum(), (x, y), create_graph=True)
        (gx.sum() + (gy * gy).sum()).backward()
        got.append([t.detach().numpy() for t in (z, gx, gy, x.grad, y.grad)])
    for p_, t_ in zip(*got):
        assert p_.shape == t_.shape
        np.testing.assert_allclose(p_, t_, rtol=1e-12, atol=1e-12)
    x = pyth.tensor(a, dtype=pyth.float64, requires_grad=True)
    y = pyth.tensor(b, dtype=pyth.float64, requires_grad=True)
    if x.numel() and y.numel():
        assert gradcheck(op, (x, y)) and gradgradcheck(op, (x, y))


C_DERIVATIVES = ["abs", "cos", "cosh", "erf", "exp", "expm1", "log", "log1p", "reciprocal",
                 "rsqrt", "sigmoid", "sin", "sinh", "sqrt", "tan", "tanh"]


@pytest.mark.parametrize("dt", FLOATS, ids=lambda d: d.name)
@pytest.mark.parametrize("name", C_DERIVATIVES)
def test_lean_unary_backward_matches_torch(name, dt):
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(3).uniform(0.2, 1.2, (3, 4)).astype(dt.name)
    tdt = getattr(torch, dt.name)
    for layout in ("contiguous", "transposed"):
        p = pyth.from_numpy(a.copy()).requires_grad_()
        t = torch.from_numpy(a.copy()).requires_grad_()
        pi, ti = (p.t(), t.t()) if layout == "transposed" else (p, t)
        yp, yt = getattr(pi, name)(), getattr(ti, name)()
        assert type(yp.grad_fn).__name__ == type(yt.grad_fn).__name__
        w = np.arange(12, dtype=dt.name).reshape(yp.shape)
        (yp * pyth.from_numpy(w)).sum().backward()      # a non-uniform gradient
        (yt * torch.from_numpy(w).to(tdt)).sum().backward()
        tol = 1e-5 if dt is pyth.float32 else 1e-12
        np.testing.assert_allclose(p.grad.numpy(), t.grad.numpy(), rtol=tol, atol=tol)
        q = pyth.from_numpy(a.copy()).requires_grad_()
        getattr(q, name)().sum().backward()              # an expanded (stride 0) gradient
        t.grad = None
        getattr(t, name)().sum().backward()
        np.testing.assert_allclose(q.grad.numpy(), t.grad.numpy(), rtol=tol, atol=tol)


MULTI_VIEWS = {"unbind": lambda y: y.unbind(), "chunk2": lambda y: y.chunk(2),
               "chunk1": lambda y: y.chunk(1), "split": lambda y: y.split(3),
               "split_dim1": lambda y: y.split(2, 1), "split_sizes": lambda y: y.split([1, 3]),
               "split_with_sizes": lambda y: y.split_with_sizes([2, 1], dim=-1)}


@pytest.mark.parametrize("how", sorted(MULTI_VIEWS))
def test_inplace_on_a_multi_view_output_is_refused_as_torch(how):
    def views(lib):
        y = lib.zeros(4, 3, requires_grad=True).clone()
        return MULTI_VIEWS[how](y)
    outs = views(pyth)
    with pytest.raises(RuntimeError, match=r"Output \d of \w+ is a view and is being modified "
                                           "inplace. This view is the output of a function "
                                           "that returns multiple views"):
        outs[-1].add_(1)
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as theirs:
        views(torch)[-1].add_(1)
    with pytest.raises(RuntimeError) as ours:
        views(pyth)[-1].add_(1)
    assert str(ours.value) == str(theirs.value)


def test_fill_of_a_stride_zero_view_writes_each_element_once():
    b = pyth.arange(3.0)
    v = b.as_strided([2**40, 3], [0, 1], 0)     # 3 * 2^40 elements over 3: instant
    v.fill_(7)
    assert b.tolist() == [7.0, 7.0, 7.0]
    e = pyth.arange(6.0).view(2, 3)[:, :1].expand(2, 5)
    e.zero_()
    assert e.tolist() == [[0.0] * 5] * 2
    z = pyth.ones(2).as_strided([0, 2**40], [0, 0])   # no elements: nothing written
    z.fill_(5)
    torch = pytest.importorskip("torch")
    t = torch.arange(6.0).view(2, 3)
    t[:, :1].expand(2, 5).fill_(3)
    p = pyth.arange(6.0).view(2, 3)
    p[:, :1].expand(2, 5).fill_(3)
    np.testing.assert_array_equal(p.numpy(), t.numpy())


# ---- the per-class operators: t + u for two tensors of one class or a tensor and a float ----

OPERATORS = {"add": (lambda a, b: a + b, np.add), "sub": (lambda a, b: a - b, np.subtract),
             "mul": (lambda a, b: a * b, np.multiply), "div": (lambda a, b: a / b, np.true_divide),
             "mod": (lambda a, b: a % b, np.fmod), "pow": (lambda a, b: a ** b, np.power)}


@pytest.mark.parametrize("name", sorted(OPERATORS))
@pytest.mark.parametrize("dt", FLOATS + INTS, ids=lambda d: d.name)
def test_class_operators_match_numpy(name, dt):
    op, ref = OPERATORS[name]
    for a, b in _layouts(dt):
        an, bn = a.numpy(), b.numpy()
        r = op(a, b)
        with np.errstate(all="ignore"):
            want = ref(an, bn)
        if name in ("mod", "pow") and not dt.is_floating_point:
            want = {"mod": np.remainder, "pow": np.power}[name](an, bn)
        if name == "div" and not dt.is_floating_point:
            assert r.dtype is pyth.float32     # int / int promotes to the default float
        else:
            assert r.dtype is dt
        assert type(r) is r.dtype.tensor_class and r.grad_fn is None and not r.requires_grad
        np.testing.assert_allclose(r.numpy(), want.astype(r.numpy().dtype), rtol=1e-6)
        if dt.is_floating_point:     # a Python float on the right: the scalar C call
            with np.errstate(all="ignore"):
                want = ref(an, np.asarray(1.5, an.dtype))
            np.testing.assert_allclose(op(a, 1.5).numpy(), want, rtol=1e-6)


def test_class_operators_leave_every_other_case_to_the_general_path():
    torch = pytest.importorskip("torch")
    x = pyth.tensor([1.0, 2.0, 3.0])
    assert (x + pyth.tensor([1, 2, 3])).dtype is pyth.float32          # promotion
    assert (pyth.tensor([1, 2, 3]) + 0.5).dtype is pyth.float32        # int tensor, float
    assert (x.double() + x).dtype is pyth.float64
    assert (x + 2).tolist() == [3.0, 4.0, 5.0]                           # a Python int
    assert (x + np.float32(2)).tolist() == [3.0, 4.0, 5.0]               # a numpy scalar
    assert (x * True).tolist() == [1.0, 2.0, 3.0]                        # a bool
    assert (x + pyth.ones(2, 1)).shape == (2, 3)                         # broadcasting

    class Sub(type(x)):
        __slots__ = ()
    s = object.__new__(Sub)
    s._h, s._ag, s._vb = x.clone()._h, None, None
    assert type(s) is Sub and (s + x).tolist() == [2.0, 4.0, 6.0]
    for left in (s, pyth.nn.Parameter(x.clone(), requires_grad=False)):   # subclasses
        for r, want in ((left + x, [2.0, 4.0, 6.0]), (left * 2.0, [2.0, 4.0, 6.0])):
            assert type(r) is type(x) and r.tolist() == want and r._base is None
    # errors are the general path's, same type and message as before the short path
    with pytest.raises(RuntimeError, match="size of tensor a \\(3\\) must match"):
        x + pyth.ones(4)
    with pytest.raises(RuntimeError, match="size of tensor a \\(3\\) must match"):
        torch.ones(3) + torch.ones(4)
    # autograd inputs are recorded as before
    w = pyth.ones(3, requires_grad=True)
    y = x * w
    assert y.grad_fn.name() == "MulBackward0"
    (x * w * 2.0).sum().backward()
    assert w.grad.tolist() == [2.0, 4.0, 6.0]
    with pyth.no_grad():
        assert (w + x).grad_fn is None and (w * 2.0).grad_fn is None


@pytest.mark.parametrize("how", sorted(MULTI_VIEWS))
def test_multi_view_nodes_and_gradients_match_torch(how):
    """Each output's node is PyTorch's (SplitBackward0, SplitWithSizesBackward0, ...) and the
    gradient through some of the outputs (the others unused) is PyTorch's."""
    torch = pytest.importorskip("torch")
    data = np.arange(12.0).reshape(4, 3)
    grads = []
    for lib, make in ((pyth, pyth.from_numpy), (torch, torch.from_numpy)):
        x = make(data.copy()).requires_grad_()
        outs = MULTI_VIEWS[how](x * 1)
        grads.append([o.grad_fn.name() for o in outs])
        (outs[0] * 2).sum().backward()
        grads.append(x.grad.numpy().copy())
    assert grads[0] == grads[2]
    np.testing.assert_array_equal(grads[1], grads[3])


@pytest.mark.parametrize("how", sorted(MULTI_VIEWS))
def test_multi_view_gradcheck(how):
    x = pyth.from_numpy(np.random.default_rng(0).standard_normal((4, 3))).requires_grad_()
    assert gradcheck(lambda t: MULTI_VIEWS[how](t), (x,))
    assert gradcheck(lambda t: MULTI_VIEWS[how](t.t().t())[-1], (x,))   # one output used
    assert gradgradcheck(lambda t: [o * o for o in MULTI_VIEWS[how](t)], (x,))


@pytest.mark.parametrize("reduce", ["sum", "mean"])
def test_full_reduction_gradient_is_an_expanded_view_as_torch(reduce):
    """The plain backward of sum() hands on a stride-0 view (made without the recorded expand)
    that cannot be written, mean() a new tensor: a hook sees PyTorch's strides and values."""
    torch = pytest.importorskip("torch")
    seen = {}
    for lib in (pyth, torch):
        x = lib.arange(1.0, 4.0, requires_grad=True)
        y = x * 2
        got = []

        def hook(g, got=got):
            got.append((tuple(g.stride()), g.tolist()))
            if reduce == "sum":
                with pytest.raises(RuntimeError, match="more than one element of the written"):
                    g.add_(1)
            else:     # mean's gradient is a new tensor: a hook may change it
                g.add_(1)
        y.register_hook(hook)
        getattr(y, reduce)().backward()
        seen[lib.__name__] = (got, x.grad.tolist())
        z = x * x                                     # and under create_graph: recorded
        (g,) = lib.autograd.grad(getattr(z, reduce)(), x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        seen[lib.__name__ + " 2nd"] = (g.tolist(), gg.tolist())
    assert seen["pyth"][0] == seen["torch"][0]
    np.testing.assert_allclose(seen["pyth"][1], seen["torch"][1], rtol=1e-6)
    np.testing.assert_allclose(seen["pyth 2nd"], seen["torch 2nd"], rtol=1e-6)


# ---- the plain backward's short paths (engine order, first-order C calls, versions) ------------

def _order_of_nodes(lib, x, w):
    """Names of the nodes of a branching graph in the order backward runs them."""
    a = x * w
    b = a.exp()
    c = a.tanh() * b
    loss = (c + b * 2.0 + x.sigmoid()).sum()
    ran = []
    seen, todo = set(), [loss.grad_fn]
    while todo:
        n = todo.pop()
        if n is None or n in seen:
            continue
        seen.add(n)
        name = n.name().replace("torch::autograd::", "")
        n.register_prehook(lambda g, name=name: ran.append(name))   # no node <-> hook cycle
        todo += [f for f, _ in n.next_functions]
    loss.backward()
    return ran


def test_backward_runs_nodes_in_torchs_order():
    torch = pytest.importorskip("torch")
    x = pyth.tensor([0.5, -1.0, 2.0], requires_grad=True)
    w = pyth.tensor([1.5, 0.25, -0.5], requires_grad=True)
    tx = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    tw = torch.tensor([1.5, 0.25, -0.5], requires_grad=True)
    assert _order_of_nodes(pyth, x, w) == _order_of_nodes(torch, tx, tw)
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())
    np.testing.assert_array_equal(w.grad.numpy(), tw.grad.numpy())


def test_a_graph_whose_order_is_broken_is_refused_not_run_twice():
    """The engine runs pending nodes by creation number; a node leading to one created later
    (only possible by rewiring internals) raises rather than running a node twice."""
    from pyth.autograd.graph import AccumulateGrad
    x = pyth.ones(2, requires_grad=True)
    y = x * 2.0
    late = AccumulateGrad(pyth.ones(2, requires_grad=True))
    y.grad_fn.next_functions = ((late, 0), (None, 0))
    with pytest.raises(RuntimeError, match="created after"):
        y.sum().backward()


@pytest.mark.parametrize("dt", FLOATS, ids=lambda d: d.name)
def test_first_order_mul_sum_mean_match_torch_exactly(dt):
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(5).uniform(-2, 2, (3, 4)).astype(dt.name)
    b = np.random.default_rng(6).uniform(-2, 2, (3, 4)).astype(dt.name)
    cases = {"x*w": lambda x, w: (x * w).sum(), "x*x": lambda x, w: (x * x).mean(),
             "x*int": lambda x, w: (x * 3).sum(), "x*float": lambda x, w: (x * -0.3).mean(),
             "w needs none": lambda x, w: (x * w.detach()).sum(),
             "transposed": lambda x, w: (x.t() * w.t()).mean(),
             "zero-size": lambda x, w: (x[:0] * w[:0]).mean()}
    for name, f in cases.items():
        x, w = pyth.from_numpy(a.copy()).requires_grad_(), pyth.from_numpy(b.copy())
        tx, tw = torch.from_numpy(a.copy()).requires_grad_(), torch.from_numpy(b.copy())
        w.requires_grad_()
        tw.requires_grad_()
        f(x, w).backward()
        f(tx, tw).backward()
        assert x.grad.dtype is dt, name
        np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy().astype(dt.name))
        if tw.grad is None:
            assert w.grad is None, name
        else:
            np.testing.assert_array_equal(w.grad.numpy(), tw.grad.numpy())


def test_version_counter_lives_in_the_storage():
    """A write through any alias of a saved tensor's storage is caught, even one autograd never
    saw (a detached alias); views share the counter; a storage starts at version 0."""
    x = pyth.ones(3, requires_grad=True)
    w = pyth.full((3,), 2.0, requires_grad=True)
    y = x * w
    alias = w.detach()
    v0 = w._version
    alias.add_(1.0)
    assert w._version == v0 + 1 and alias._version == w._version
    assert w[1:]._version == w._version
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    for _ in range(3):                 # the storage structs are recycled (THStructCache)
        t = pyth.ones(3)
        assert t._version == 0 and pyth.zeros_like(t)._version == 0 and pyth.eye(2)._version == 0
        t.mul_(2.0)
        t.add_(1.0)
        del t


WRITES = {"mul_": lambda y: y.mul_(2), "add_": lambda y: y.add_(1),
          "another view": lambda y: y[1:].mul_(3), "no_grad": None}


@pytest.mark.parametrize("write", sorted(WRITES))
@pytest.mark.parametrize("how", sorted(MULTI_VIEWS))
def test_multi_view_output_used_after_its_base_changed_is_refused_as_torch(how, write):
    """A piece of split / chunk / unbind is a view of its base: once the base (or another view
    of it) is written in place, using the piece raises PyTorch's error instead of giving the
    gradient of the old values."""
    def run(lib):
        x = lib.arange(12.0).reshape(4, 3).requires_grad_()
        y = x * 1
        pieces = MULTI_VIEWS[how](y)
        if write == "no_grad":
            with lib.no_grad():
                y.sub_(1)
        else:
            WRITES[write](y)
        a = pieces[0]
        msgs = []
        for use in (lambda: a.grad_fn, lambda: (a * a).sum()):
            with pytest.raises(RuntimeError) as e:
                use()
            msgs.append(str(e.value))
        return msgs
    ours = run(pyth)
    assert all("its base or another view of its base has been modified inplace" in m
               for m in ours)
    torch = pytest.importorskip("torch")
    assert ours == run(torch)


@pytest.mark.parametrize("how", sorted(MULTI_VIEWS))
def test_multi_view_outputs_unchanged_base_keep_their_gradient(how):
    """Reading the pieces (no write anywhere) is untouched by the view tracking."""
    torch = pytest.importorskip("torch")
    grads = []
    for lib in (pyth, torch):
        x = lib.arange(12.0).reshape(4, 3).requires_grad_()
        pieces = MULTI_VIEWS[how](x * 2)
        sum((p * p).sum() * (i + 1) for i, p in enumerate(pieces)).backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(*grads)


@pytest.mark.parametrize("name", ["sum", "mean"])
@pytest.mark.parametrize("dt", FLOATS + INTS + [pyth.float16], ids=lambda d: d.name)
def test_full_reduction_methods_match_their_functions(name, dt):
    """t.sum() / t.mean() with no arguments call the C reduction directly for float32 and
    float64 (other dtypes take the function): same values, dtype and errors on every layout."""
    for a, _ in _layouts(dt) + [(pyth.arange(1, 4, dtype=dt).expand(2, 3), None)]:
        if name == "mean" and not dt.is_floating_point:
            with pytest.raises(RuntimeError, match="mean"):
                a.mean()
            continue
        got, want = getattr(a, name)(), getattr(pyth, name)(a)
        assert got.dtype is want.dtype and got.dim() == 0
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        if dt.is_floating_point and a.numel():
            ref = getattr(a.numpy().astype(np.float64), name)()
            np.testing.assert_allclose(float(got), ref, rtol=1e-3 if dt is pyth.float16 else 1e-6)
    x = pyth.ones(3, requires_grad=True)
    with pyth.no_grad():
        assert getattr(x, name)().grad_fn is None
    assert type(getattr(x, name)().grad_fn).__name__ == name.capitalize() + "Backward0"


def _graph_names(loss) -> list:
    """The class names of every node reachable from loss, breadth first, as user code walks a
    graph (grad_fn, then next_functions)."""
    names, todo, seen = [], [loss.grad_fn], set()
    while todo:
        n = todo.pop(0)
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        names.append(type(n).__name__)
        todo += [f for f, _ in n.next_functions]
    return names


def test_lean_nodes_show_their_ops_classes_as_torch():
    """Lean nodes are made as one class and take their op's class when user code reaches them:
    walking a graph of lean ops shows PyTorch's node classes, in PyTorch's order."""
    torch = pytest.importorskip("torch")
    walks = []
    for lib in (pyth, torch):
        x = lib.linspace(-1, 1, 5).requires_grad_()
        w = lib.full((5,), 0.5).requires_grad_()
        loss = ((x * w).tanh() + x.exp() * 0.1 - w.sigmoid()).mean() * 3.0 + (x - w).sum()
        walks.append(_graph_names(loss))
    assert walks[0] == walks[1]
    assert "MulBackward0" in walks[0] and "AccumulateGrad" in walks[0]


def test_lean_nodes_are_one_class_until_user_code_reaches_them():
    """Inside the library a step's lean nodes share one class (the interpreter's attribute
    caches key on the exact class: about 6 % of the tiny graph's step); grad_fn and
    next_functions give a node its op's class, which changes nothing it computes."""
    from pyth.autograd.pointwise_nodes import PointwiseNode

    def run(look: bool) -> tuple:
        x = pyth.tensor([0.5, -1.0, 2.0], requires_grad=True)
        y = (x * 2.0).exp().tanh()
        node = y._ag.grad_fn
        assert type(node) is PointwiseNode and type(node._next[0][0]) is PointwiseNode
        assert node.name() == "TanhBackward0" and repr(node).startswith("<TanhBackward0 ")
        ran = []
        if look:
            fn = y.grad_fn
            assert fn is node and type(fn).__name__ == "TanhBackward0"
            assert isinstance(fn, PointwiseNode) and type(node._next[0][0]) is PointwiseNode
            child = fn.next_functions[0][0]
            assert type(child).__name__ == "ExpBackward0" and child.name() == "ExpBackward0"
            child.register_prehook(lambda g: ran.append("exp"))
        y.sum().backward()
        return x.grad.tolist(), ran

    assert run(True) == (run(False)[0], ["exp"])


# ---- the lean record of view ops (record._record_view) ------------------------------------

_VIEWS = {
    "view": lambda t: t.view(-1),
    "reshape": lambda t: t.reshape(4, 6),
    "reshape copy": lambda t: t.t().reshape(-1),          # a copy: no base to track
    "flatten": lambda t: t.flatten(),
    "t": lambda t: t.t(),
    "T": lambda t: t.T,
    "transpose": lambda t: t.transpose(0, 1),
    "permute": lambda t: t.permute(1, 0),
    "unsqueeze": lambda t: t.unsqueeze(1),
    "squeeze": lambda t: t.unsqueeze(0).squeeze(0),
    "select": lambda t: t[1],
    "slice": lambda t: t[:, 1:5],
    "narrow": lambda t: t.narrow(1, 2, 3),
    "expand": lambda t: t[:1].expand(3, 8),
    "diagonal": lambda t: t.diagonal(),
    "unfold": lambda t: t.unfold(1, 3, 2),
}


def _view_record(name: str, anomaly: bool):
    x = pyth.arange(24, dtype=pyth.float64).reshape(3, 8).requires_grad_()
    if anomaly:   # anomaly mode takes the general record
        with pyth.autograd.detect_anomaly():
            y = _VIEWS[name](x * 1.0)
    else:
        y = _VIEWS[name](x * 1.0)
    g = pyth.arange(y.numel(), dtype=pyth.float64).reshape(y.shape)
    fn = y.grad_fn
    base = y._ag.base
    info = (type(fn).__name__, type(fn.next_functions[0][0]).__name__, tuple(y.shape),
            None if base is None else tuple(base.shape), y._vb is not None)
    y.backward(g)
    return info, x.grad.numpy()


@pytest.mark.parametrize("name", sorted(_VIEWS))
def test_lean_view_record_is_the_general_one(name):
    lean, general = _view_record(name, False), _view_record(name, True)
    assert lean[0] == general[0]
    np.testing.assert_array_equal(lean[1], general[1])


@pytest.mark.parametrize("name", sorted(_VIEWS))
def test_lean_view_gradients_match_torch(name):
    torch = pytest.importorskip("torch")
    x = np.arange(24.0).reshape(3, 8)
    px, tx = pyth.from_numpy(x).requires_grad_(), torch.from_numpy(x).requires_grad_()
    py, ty = _VIEWS[name](px * 2.0), _VIEWS[name](tx * 2.0)
    g = np.arange(float(py.numel())).reshape(tuple(py.shape))
    py.backward(pyth.from_numpy(g))
    ty.backward(torch.from_numpy(g))
    np.testing.assert_array_equal(px.grad.numpy(), tx.grad.numpy())


def test_inplace_through_a_lean_view_rewrites_the_base_history():
    torch = pytest.importorskip("torch")
    out = []
    for lib in (pyth, torch):
        x = lib.ones(3, 4, dtype=lib.float64).requires_grad_()
        b = x * 2.0
        v = b.view(-1)[2:6]         # a view of a view
        v.mul_(3.0)                 # the base's history is rewritten (CopySlices)
        (b * b).sum().backward()
        out.append((type(b.grad_fn).__name__, x.grad.numpy().copy()))
    assert out[0][0] == out[1][0]
    np.testing.assert_array_equal(out[0][1], out[1][1])
    x = pyth.ones(3, 4, dtype=pyth.float64).requires_grad_()
    v = x.view(-1)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        v.add_(1.0)

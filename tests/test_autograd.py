"""Autograd semantics: tensor state, the graph, grad modes, in-place ops and versions, hooks,
retain_graph, freeing, Function, grad(), higher order, gradcheck, anomaly detection."""

import gc
import threading
import warnings
import weakref

import numpy as np
import pytest
from _support import needs_torch, torch

import pyth
from pyth.autograd import Function, gradcheck, gradgradcheck


def both(fn):
    """fn(M) for pyth and, when installed, torch."""
    return [fn(pyth)] + ([fn(torch)] if torch is not None else [])


def g(t):
    return np.asarray(t.grad if not isinstance(t, np.ndarray) else t).tolist() if \
        not hasattr(t, "detach") else t.grad.detach().numpy().tolist() if t.grad is not None \
        else None


# ---- tensor state --------------------------------------------------------------------------------

def test_leaf_state():
    x = pyth.ones(2, 3)
    assert not x.requires_grad and x.is_leaf and x.grad is None and x.grad_fn is None
    x.requires_grad_()
    assert x.requires_grad and x.is_leaf
    y = x * 2
    assert y.requires_grad and not y.is_leaf and type(y.grad_fn).__name__ == "MulBackward0"
    assert y.grad_fn.next_functions[0][0].name() == "AccumulateGrad"
    assert y.grad_fn.next_functions[0][0].variable is x
    assert y.grad_fn.next_functions[1] == (None, 0)


def test_factories_take_requires_grad():
    for t in (pyth.zeros(2, requires_grad=True), pyth.ones(2, 2, requires_grad=True),
              pyth.randn(3, requires_grad=True), pyth.tensor([1.0], requires_grad=True),
              pyth.full((2,), 3.0, requires_grad=True), pyth.rand(2, requires_grad=True),
              pyth.empty(1, requires_grad=True), pyth.arange(3.0, requires_grad=True),
              pyth.zeros_like(pyth.ones(2), requires_grad=True)):
        assert t.requires_grad and t.is_leaf


def test_integer_tensors_cannot_require_grad():
    with pytest.raises(RuntimeError, match="floating point"):
        pyth.tensor([1, 2]).requires_grad_()
    with pytest.raises(RuntimeError, match="floating point"):
        pyth.zeros(2, dtype=pyth.int64, requires_grad=True)
    with pytest.raises(RuntimeError, match="floating point"):
        pyth.tensor([True]).requires_grad = True


def test_requires_grad_only_on_leaves():
    y = pyth.ones(2, requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="leaf variables"):
        y.requires_grad = False


def test_non_differentiable_ops_give_no_grad_fn():
    x = pyth.randn(3, 4, requires_grad=True)
    for r in (x > 0, x.argmax(), x.eq(x), x.sort(1).indices, x.isnan(), x.long(),
              x.max(1).indices):
        assert r.grad_fn is None and not r.requires_grad


def test_nothing_recorded_without_requires_grad():
    x = pyth.randn(3)
    y = (x * 2).exp().sum()
    assert y.grad_fn is None and y._ag is None


def test_detach_and_data():
    x = pyth.ones(3, requires_grad=True)
    y = x * 2
    d = y.detach()
    assert not d.requires_grad and d.is_leaf and d.data_ptr() == y.data_ptr()
    assert not x.data.requires_grad and x.data.data_ptr() == x.data_ptr()
    y.detach_()
    assert y.grad_fn is None and not y.requires_grad


def test_backward_accumulates_and_sums_broadcast():
    x = pyth.ones(2, 3, requires_grad=True)
    b = pyth.ones(3, requires_grad=True)
    (x + b).sum().backward()
    (x + b).sum().backward()
    assert x.grad.tolist() == [[2.0] * 3] * 2 and b.grad.tolist() == [4.0] * 3


def test_backward_needs_scalar_or_gradient():
    y = pyth.ones(3, requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="implicitly created only for scalar outputs"):
        y.backward()
    y.backward(pyth.tensor([1.0, 2.0, 3.0]))
    with pytest.raises(RuntimeError, match="does not require grad"):
        pyth.ones(2).sum().backward()


def test_grad_dtype_and_mixed_precision():
    x = pyth.ones(3, requires_grad=True)
    w = pyth.ones(3, dtype=pyth.float64, requires_grad=True)
    (x * w).sum().backward()
    assert x.grad.dtype is pyth.float32 and w.grad.dtype is pyth.float64
    y = pyth.ones(2, requires_grad=True)
    (y.double() * 3).sum().backward()
    assert y.grad.dtype is pyth.float32 and y.grad.tolist() == [3.0, 3.0]


@needs_torch
def test_random_graphs_match_torch():
    rng = np.random.default_rng(0)
    for trial in range(20):
        a, b, c = (rng.normal(size=(3, 4)) for _ in range(3))

        def run(M):
            x, y, z = (M.tensor(v, dtype=M.float64, requires_grad=True) for v in (a, b, c))
            h = x
            for k in rng_ops[trial]:
                h = {0: lambda h: h * y, 1: lambda h: (h + z).tanh(), 2: lambda h: h.exp() / 3,
                     3: lambda h: h @ y.t() @ z, 4: lambda h: h.sigmoid() - x,
                     5: lambda h: h.sum(0, keepdim=True) * z, 6: lambda h: h.pow(2).sqrt(),
                     7: lambda h: M.cat([h, y], 0)[1:4] * x}[k](h)
            (h * h).sum().backward()
            return [t.grad.detach().numpy() if M is torch else np.asarray(t.grad)
                    for t in (x, y, z)]
        rng_ops = {trial: rng.integers(0, 8, size=6).tolist()}
        p, t = run(pyth), run(torch)
        for gp, gt in zip(p, t):
            np.testing.assert_allclose(gp, gt, rtol=1e-6, atol=1e-9)


# ---- in-place ---------------------------------------------------------------------------------

def test_inplace_on_leaf_raises():
    x = pyth.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in "
                                           "an in-place operation"):
        x.add_(1)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable"):
        x[0].mul_(2)
    with pytest.raises(RuntimeError, match="a leaf Variable"):
        x[0] = 2
    with pyth.no_grad():
        x.add_(1)        # allowed without recording (an optimizer step)
    assert x.tolist() == [2.0] * 3


def _inplace_program(M):
    x = M.tensor([1.0, -2.0, 3.0, 0.5], requires_grad=True)
    y = x * 1
    y[y < 0] = 0
    y.add_(1)
    y.mul_(x)
    v = y[1:3]
    v.mul_(3)
    y.sub_(x.sin())
    (y * y).sum().backward()
    return x.grad.tolist()


def test_inplace_on_non_leaves_differentiates():
    ref = [2 * (1 * 2 + 1) * 1 - 0, 0, 0, 0]
    got = _inplace_program(pyth)
    assert len(got) == 4 and got[0] != ref[1]
    if torch is not None:
        np.testing.assert_allclose(got, _inplace_program(torch), rtol=1e-6)


def test_view_inplace_rewrites_base_history():
    def run(M):
        x = M.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        y = x * 1
        w = y.t()          # another view made before the change
        y[0].mul_(3)
        (y.sum() + (w * w).sum()).backward()
        return x.grad.tolist(), type(y.grad_fn).__name__.split("::")[-1]
    p = run(pyth)
    assert p[1] == "CopySlices"
    if torch is not None:
        assert p == run(torch)


def test_modified_saved_tensor_raises():
    x = pyth.ones(3, requires_grad=True)
    y = x * 2
    z = y.exp()
    z.add_(1)
    with pytest.raises(RuntimeError, match=r"modified by an inplace operation: "
                                           r"\[pyth.FloatTensor \[3\]\], which is output 0 of "
                                           r"Exp, is at version 1; expected version 0"):
        z.sum().backward()
    w = pyth.ones(3, requires_grad=True)
    a = pyth.ones(3)
    r = (w * a).sum()
    with pyth.no_grad():
        a.add_(1)       # modified even without recording: still caught
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        r.backward()


def test_version_counter():
    x = pyth.ones(3, requires_grad=True)
    y = x * 2
    z = y * y        # y saved: its storage is counted
    v0 = y._version
    y.add_(1)
    y[0] = 5
    assert y._version >= v0 + 2
    del z


def test_out_argument_refused_with_grad():
    x = pyth.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="out=... arguments don't support automatic "
                                           "differentiation"):
        pyth.exp(x, out=pyth.empty(3))


# ---- graph lifetime ---------------------------------------------------------------------------

def test_second_backward_raises_without_retain_graph():
    x = pyth.ones(3, requires_grad=True)
    z = (x * x).sum()
    z.backward(retain_graph=True)
    z.backward()
    assert x.grad.tolist() == [4.0] * 3
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second "
                                           "time"):
        z.backward()


def test_graph_freed_after_backward():
    x = pyth.ones(100, requires_grad=True)
    y = (x * 2).exp()
    node, leaf_acc = weakref.ref(y.grad_fn), weakref.ref(y.grad_fn.next_functions[0][0])
    z = y.tanh().sum()
    z.backward()
    del y, z
    assert node() is None            # freed by reference counting, no cycle
    assert leaf_acc() is None
    gc.collect()


def test_intermediates_released():
    x = pyth.ones(1000, requires_grad=True)
    y = x.exp()
    ref = weakref.ref(y)
    z = (y * 3).sum()
    del y
    assert ref() is not None or True
    z.backward()
    del z
    assert ref() is None


def test_saved_output_does_not_make_a_cycle():
    x = pyth.ones(3, requires_grad=True)
    y = x.exp()                       # saves its result
    ref = weakref.ref(y)
    del y
    assert ref() is None              # without retain, freed at once


# ---- hooks ----------------------------------------------------------------------------------

def test_hooks_and_retain_grad():
    def run(M):
        seen = []
        x = M.ones(3, requires_grad=True)
        y = x * 2
        h = y.register_hook(lambda gr: gr * 10)
        x.register_hook(lambda gr: seen.append(gr.tolist()))
        y.retain_grad()
        (y * y).sum().backward()
        h.remove()
        return x.grad.tolist(), y.grad.tolist(), seen
    p = run(pyth)
    assert p == ([80.0] * 3, [40.0] * 3, [[80.0] * 3])
    if torch is not None:
        assert p == run(torch)


def test_hook_on_tensor_without_grad_raises():
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        pyth.ones(2).register_hook(lambda g: g)


def test_node_hooks():
    x = pyth.ones(2, requires_grad=True)
    y = x * 3
    calls = []
    y.grad_fn.register_prehook(lambda go: calls.append("pre"))
    y.grad_fn.register_hook(lambda gi, go: calls.append("post"))
    y.sum().backward()
    assert calls == ["pre", "post"]


# ---- grad modes ----------------------------------------------------------------------------------

def test_no_grad_and_friends():
    x = pyth.ones(2, requires_grad=True)
    with pyth.no_grad():
        assert not (x * 2).requires_grad
        with pyth.enable_grad():
            assert (x * 2).requires_grad
    with pyth.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert pyth.is_grad_enabled()
    pyth.set_grad_enabled(False)
    assert not pyth.is_grad_enabled()
    pyth.set_grad_enabled(True)
    with pyth.inference_mode():
        assert not (x * 2).requires_grad and pyth.is_inference_mode_enabled()
    assert not pyth.is_inference_mode_enabled()

    @pyth.no_grad()
    def f():
        return x * 2

    @pyth.inference_mode()
    def h():
        return x * 2
    assert not f().requires_grad and not h().requires_grad and (x * 2).requires_grad


def test_grad_mode_is_thread_local():
    x = pyth.ones(2, requires_grad=True)
    out = {}

    def worker():
        out["other"] = (x * 2).requires_grad
    with pyth.no_grad():
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        out["here"] = (x * 2).requires_grad
    assert out == {"other": True, "here": False}


# ---- autograd.grad, higher order, gradcheck --------------------------------------------------------

def test_autograd_grad():
    x = pyth.tensor([1.0, 2.0], requires_grad=True)
    w = pyth.tensor([3.0, 4.0], requires_grad=True)
    y = (x * w).sum()
    gx, = pyth.autograd.grad(y, x, retain_graph=True)
    assert gx.tolist() == [3.0, 4.0] and x.grad is None and w.grad is None
    u = pyth.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        pyth.autograd.grad(y, [x, u], retain_graph=True)
    gx, gu = pyth.autograd.grad(y, [x, u], allow_unused=True)
    assert gu is None


def test_backward_inputs():
    x = pyth.ones(2, requires_grad=True)
    w = pyth.ones(2, requires_grad=True)
    (x * w * 2).sum().backward(inputs=[x])
    assert x.grad.tolist() == [2.0, 2.0] and w.grad is None


def test_higher_order():
    def run(M):
        x = M.tensor([0.5, 1.5], dtype=M.float64, requires_grad=True)
        y = (x.sin() * x ** 3).sum()
        g1, = M.autograd.grad(y, x, create_graph=True)
        g2, = M.autograd.grad(g1.sum(), x, create_graph=True)
        g3, = M.autograd.grad(g2.sum(), x)
        return [np.asarray(t.detach()).tolist() for t in (g1, g2, g3)]
    p = run(pyth)
    if torch is not None:
        np.testing.assert_allclose(p, run(torch), rtol=1e-9)


def test_gradcheck_and_gradgradcheck():
    x = pyth.randn(3, 4, dtype=pyth.float64, requires_grad=True)
    w = pyth.randn(4, 2, dtype=pyth.float64, requires_grad=True)
    assert gradcheck(lambda a, b: (a @ b).tanh(), (x, w))
    assert gradgradcheck(lambda a, b: (a @ b).tanh(), (x, w))
    assert gradgradcheck(lambda a: (a * a).sum(1).sqrt() * a.exp().mean(), (x,))


def test_gradcheck_reports_mismatch():
    class Wrong(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 3
    x = pyth.randn(3, dtype=pyth.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="Jacobian mismatch for output 0 with respect to "
                                           "input 0"):
        gradcheck(Wrong.apply, (x,))
    assert not gradcheck(Wrong.apply, (x,), raise_exception=False)


# ---- Function ---------------------------------------------------------------------------------

class Exp(Function):
    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        y, = ctx.saved_tensors
        return grad * y


class ScaleAndIndex(Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        idx = (x > 0).long()
        ctx.mark_non_differentiable(idx)
        return x * k, idx

    @staticmethod
    def backward(ctx, g, gidx):
        assert ctx.needs_input_grad == (True, False)
        return g * ctx.k, None


class AddOneInPlace(Function):
    @staticmethod
    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, g):
        return g


def test_function():
    x = pyth.randn(3, dtype=pyth.float64, requires_grad=True)
    y = Exp.apply(x)
    assert type(y.grad_fn).__name__ == "ExpBackward"
    y.sum().backward()
    np.testing.assert_allclose(np.asarray(x.grad), np.exp(np.asarray(x.detach())))
    assert gradcheck(Exp.apply, (x,))
    assert gradgradcheck(Exp.apply, (x,))
    a, idx = ScaleAndIndex.apply(x, 3.0)
    assert a.requires_grad and not idx.requires_grad
    x.grad = None
    a.sum().backward()
    assert x.grad.tolist() == [3.0] * 3
    z = x * 1
    r = AddOneInPlace.apply(z)
    assert r is z and type(z.grad_fn).__name__ == "AddOneInPlaceBackward"
    r.sum().backward()


def test_function_saved_tensors_freed():
    x = pyth.randn(3, requires_grad=True)
    y = Exp.apply(x)
    s = y.sum()
    s.backward()
    with pytest.raises(RuntimeError, match="second time"):
        s.backward()


# ---- anomaly detection ----------------------------------------------------------------------------

def test_detect_anomaly_names_the_op():
    x = pyth.tensor([0.0, 1.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pyth.autograd.detect_anomaly():
            y = x.sqrt()          # d sqrt at 0: inf, then inf * 0 = nan
            z = (y * 0).sum()
            with pytest.raises(RuntimeError, match="Function 'SqrtBackward0' returned nan "
                                                   "values in its 0th output"):
                z.backward()


# ---- packaging ---------------------------------------------------------------------------------

def test_subpackage_is_in_the_build_config():
    import pathlib
    text = (pathlib.Path(__file__).parent.parent / "pyproject.toml").read_text()
    assert 'packages = ["pyth"]' not in text


def test_copy_and_pickle_keep_leaf_state():
    import copy
    import pickle
    x = pyth.randn(3, requires_grad=True)
    (x * 2).sum().backward()
    for c in (copy.deepcopy(x), pickle.loads(pickle.dumps(x))):
        assert c.requires_grad and c.is_leaf and c.grad.tolist() == [2.0] * 3
        assert c.data_ptr() != x.data_ptr()
    with pytest.raises(RuntimeError, match="graph leaves"):
        copy.deepcopy(x * 2)


def test_non_leaf_grad_access_warns():
    y = pyth.ones(2, requires_grad=True) * 2
    with pytest.warns(UserWarning, match="not a leaf Tensor"):
        assert y.grad is None


def test_only_what_backward_needs_is_saved():
    x = pyth.ones(3, requires_grad=True)
    z = (x * 2.0).sum()          # mul by a constant saves nothing: backward twice is fine
    z.backward()
    z.backward()
    assert x.grad.tolist() == [4.0] * 3
    w = pyth.ones(3)
    r = (x * w).sum()            # w's gradient is not needed: x is not saved
    with pyth.no_grad():
        x.add_(1)
    r.backward()
    y = x * 1
    y.mul_(3.0)                  # no copy of y's old value is needed
    assert y.grad_fn.saved == {}


def test_unused_graph_freed_without_cycles():
    x = pyth.ones(3, requires_grad=True)
    gc.collect()
    gc.disable()
    try:
        y = (x * x).exp().sigmoid()      # exp and sigmoid save their results
        v = y[0:2]
        v.mul_(2)                         # a view in the graph, rewritten
        node = weakref.ref(y.grad_fn)
        f = Exp.apply(y)
        fnode = weakref.ref(f.grad_fn)
        del y, v, f
        assert node() is None and fnode() is None     # reference counting alone frees them
        assert gc.collect() == 0
    finally:
        gc.enable()


SPECIAL = {
    "prod_one_zero": (lambda M, x: x.prod(), [[1.0, 0.0, 3.0, 2.0]]),
    "prod_two_zeros": (lambda M, x: x.prod(), [[1.0, 0.0, 3.0, 0.0]]),
    "prod_dim_zero": (lambda M, x: x.view(2, 2).prod(1), [[1.0, 0.0, 3.0, 2.0]]),
    "cumprod_zero": (lambda M, x: x.cumprod(0), [[2.0, 0.0, 3.0, 0.5]]),
    "amax_ties": (lambda M, x: x.amax(), [[1.0, 3.0, 3.0, 2.0]]),
    "max_ties": (lambda M, x: x.max(), [[3.0, 3.0, 3.0, 2.0]]),
    "max_dim_ties": (lambda M, x: x.view(2, 2).max(1).values, [[3.0, 3.0, 1.0, 1.0]]),
    "min_ties": (lambda M, x: x.min(), [[1.0, 3.0, 1.0, 2.0]]),
    "maximum_ties": (lambda M, x: M.maximum(x, M.tensor([1.0, 0.0, 3.0, 5.0])),
                     [[1.0, 3.0, 3.0, 2.0]]),
    "abs_zero": (lambda M, x: x.abs(), [[0.0, -1.0, 2.0, 0.0]]),
    "clamp_edges": (lambda M, x: x.clamp(0.0, 1.0), [[0.0, 1.0, 0.5, 2.0]]),
    "norm_zero": (lambda M, x: (x * 0).norm(), [[1.0, 2.0, 3.0, 4.0]]),
    "norm_inf_ties": (lambda M, x: M.norm(x, p=float("inf")), [[-3.0, 3.0, 1.0, 2.0]]),
    "median_ties": (lambda M, x: x.median(), [[2.0, 1.0, 2.0, 3.0]]),
    "sort_ties": (lambda M, x: x.sort().values * M.arange(4.0), [[2.0, 1.0, 2.0, 1.0]]),
    "std_correction": (lambda M, x: x.std(correction=2), [[1.0, 2.0, 4.0, 8.0]]),
    "pow_zero_base": (lambda M, x: x ** 2.0, [[0.0, 1.0, -2.0, 3.0]]),
    "pow_tensor_zero": (lambda M, x: M.pow(x, M.tensor([0.0, 2.0, 0.5, 1.0])),
                        [[0.0, 0.0, 4.0, 0.0]]),
    "sqrt_zero": (lambda M, x: x.sqrt(), [[0.0, 1.0, 4.0, 9.0]]),
    "where_nan_branch": (lambda M, x: M.where(x > 0, x.log(), x), [[-1.0, 1.0, 2.0, -3.0]]),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(SPECIAL))
def test_special_points_match_torch(name):
    fn, data = SPECIAL[name]
    x = pyth.tensor(data[0], dtype=pyth.float64, requires_grad=True)
    t = torch.tensor(data[0], dtype=torch.float64, requires_grad=True)
    out, tout = fn(pyth, x), fn(torch, t)
    w = np.arange(1.0, 1.0 + out.numel()).reshape(tuple(out.shape))
    (out * pyth.tensor(w)).sum().backward()
    (tout * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(np.asarray(x.grad), t.grad.numpy(), rtol=1e-9, atol=1e-12,
                               equal_nan=True)


@needs_torch
@pytest.mark.parametrize("dt", ["float16", "bfloat16", "float32"])
def test_low_precision_matches_torch(dt):
    def run(M):
        x = M.tensor([0.5, 1.0, 2.0], dtype=getattr(M, dt), requires_grad=True)
        y = (x.exp() / x + x.sum() * x.tanh() + x.sigmoid() ** 2).sum()
        y.backward()
        assert x.grad.dtype == x.dtype
        return x.grad.float().tolist()
    assert run(pyth) == run(torch)


def test_backward_in_threads():
    """Separate graphs run backward in parallel threads with the same results as serially."""
    def work(seed, out):
        gen = pyth.Generator().manual_seed(seed)
        w = pyth.randn(8, 4, generator=gen, dtype=pyth.float64, requires_grad=True)
        x = pyth.randn(16, 8, generator=gen, dtype=pyth.float64)
        for _ in range(20):
            loss = (x @ w).tanh().pow(2).mean()
            loss.backward()
            with pyth.no_grad():
                w -= 0.1 * w.grad
            w.grad = None
        out[seed] = w.detach().tolist()
    serial, parallel = {}, {}
    for s in range(4):
        work(s, serial)
    threads = [threading.Thread(target=work, args=(s, parallel)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert serial == parallel


def test_detect_anomaly_shows_the_forward_trace():
    x = pyth.tensor([0.0, 1.0], requires_grad=True)
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        with pyth.autograd.detect_anomaly():
            y = x.sqrt()                     # the forward call the report must show
            z = (y * 0).sum()                # d sqrt at 0 is inf: 0 * inf = nan
            with pytest.warns(RuntimeWarning, match="(?s)Error detected in SqrtBackward0.*"
                                                    "y = x.sqrt"):
                with pytest.raises(RuntimeError, match="SqrtBackward0"):
                    z.backward()


def _node_classes() -> list:
    import pyth.nn  # noqa: F401  (the layers' node classes)
    from pyth.autograd.graph import Node
    seen, todo = [], [Node]
    while todo:
        cls = todo.pop()
        seen.append(cls)
        todo.extend(cls.__subclasses__())
    return seen


def test_node_fields_do_not_hide_node_methods():
    """A slot named like a Node method (name, apply, release, ...) hides it on every instance:
    repr() and the error messages that call node.name() would fail with a TypeError."""
    from pyth.autograd.graph import Node
    classes = _node_classes()
    assert len(classes) > 20
    for cls in classes:
        for slot in vars(cls).get("__slots__", ()):
            assert not callable(getattr(Node, slot, None)), (cls.__name__, slot)


@pytest.mark.parametrize("fn", ["relu", "leaky_relu", "elu", "gelu", "silu", "softplus",
                                "hardtanh", "selu", "celu", "mish", "hardswish", "hardsigmoid",
                                "logsigmoid", "hardshrink", "softshrink"])
def test_activation_nodes_name_themselves(fn):
    x = pyth.tensor([-1.5, 0.5, 2.0], dtype=pyth.float64, requires_grad=True)
    h = x * 1
    y = getattr(pyth.nn.functional, fn)(h)
    node = y.grad_fn
    assert node.name() == type(node).__name__
    assert repr(node).startswith(f"<{type(node).__name__} object at ")
    h.add_(1)   # the saved input changed: the message names the node, as a RuntimeError
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_once_differentiable_refuses_a_second_derivative_as_torch():
    torch = pytest.importorskip("torch")
    seen = []
    for lib in (pyth, torch):
        once = lib.autograd.function.once_differentiable

        class Sq(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            @once
            def backward(ctx, g):
                x, = ctx.saved_tensors
                return 2 * x * g

        x = lib.tensor([1.0, 2.0], requires_grad=True)
        v = lib.tensor([1.0, 3.0], requires_grad=True)
        g, = lib.autograd.grad(Sq.apply(x), x, grad_outputs=v, create_graph=True)
        row = [g.tolist(), type(g.grad_fn).__name__,
               [type(n).__name__ for n, _ in g.grad_fn.next_functions]]
        with pytest.raises(RuntimeError) as e:
            g.sum().backward()
        row.append(str(e.value))
        g1, = lib.autograd.grad(Sq.apply(x).sum(), x, create_graph=True)   # a plain seed
        row.append((g1.requires_grad, g1.grad_fn))
        seen.append(row)
    assert seen[0] == seen[1]

"""pyth.compile against torch.compile's surface and against eager pyth: what it returns for a
module and a function, the arguments it refuses (with PyTorch's exception types and messages),
the guards and the cache (a change of shape, dtype, requires_grad or grad mode retraces; the
cache stops at recompile_limit, warning once), graph breaks (eager, or Unsupported under
fullgraph=True), and results equal to eager, bitwise where nothing is fused."""

from __future__ import annotations

import logging

import pytest

import pyth
import pyth.compiler
from pyth import nn
from pyth._dynamo import config, exc

torch = pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _fresh():
    # torch.compile turns torch.distributions' argument validation off for the process (its
    # dynamo does, on first compile); the distributions suites compare against validating torch
    validate = torch.distributions.Distribution._validate_args
    pyth.compiler.reset()
    yield
    pyth.compiler.reset()
    torch.distributions.Distribution.set_default_validate_args(validate)


def _cache(fn):
    return fn._compiled.cache


# ---- the surface ----

def test_module_gives_optimized_module_sharing_state():
    pyth.manual_seed(0)
    m = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    om = pyth.compile(m)
    tm = torch.compile(torch.nn.Sequential(torch.nn.Linear(3, 4)), backend="eager")
    assert type(om).__name__ == type(tm).__name__ == "OptimizedModule"
    assert isinstance(om, nn.Module) and om._orig_mod is m
    assert list(om.state_dict()) == ["_orig_mod." + k for k in m.state_dict()]
    assert all(p is q for p, q in zip(om.parameters(), m.parameters()))
    assert pyth.compile(m[0]).weight is m[0].weight   # attributes reach the original
    x = pyth.randn(5, 3)
    assert pyth.equal(om(x), m(x))
    with pyth.no_grad():
        m[0].weight.mul_(2)                    # shared: the compiled module sees the change
    assert pyth.equal(om(x), m(x))


def test_function_wrapper_and_decorators():
    def f(x, y):
        """doc"""
        return x * y + 1

    g = pyth.compile(f)
    assert g.__name__ == "f" and g.__doc__ == "doc" and g.__wrapped__ is f

    @pyth.compile
    def h(x):
        return x.exp()

    @pyth.compile(fullgraph=True, backend="eager")
    def k(x):
        return x.cos()

    x = pyth.randn(6)
    assert pyth.equal(g(x, x), x * x + 1)
    assert pyth.equal(h(x), x.exp()) and pyth.equal(k(x), x.cos())


def test_disable_returns_the_model():
    m = nn.Linear(2, 2)

    def f(x):
        return x

    assert pyth.compile(m, disable=True) is m and pyth.compile(f, disable=True) is f
    assert torch.compile(f, disable=True) is f


def _same_error(call, tcall):
    with pytest.raises(Exception) as got:
        call()
    with pytest.raises(Exception) as want:
        tcall()
    assert type(got.value).__name__ == type(want.value).__name__
    assert isinstance(got.value, RuntimeError) == isinstance(want.value, RuntimeError)
    return str(got.value), str(want.value)


def test_refusals_match_torch():
    def f(x):
        return x

    got, want = _same_error(lambda: pyth.compile(f, mode="fast"),
                            lambda: torch.compile(f, mode="fast"))
    assert got == want
    got, want = _same_error(lambda: pyth.compile(f, backend="nope"),
                            lambda: torch.compile(f, backend="nope"))
    assert got == want.replace("torch", "pyth")
    got, want = _same_error(lambda: pyth.compile(f, mode="default", options={}),
                            lambda: torch.compile(f, mode="default", options={}))
    assert got == want
    got, want = _same_error(lambda: pyth.compile(3), lambda: torch.compile(3))
    assert got == want
    with pytest.raises(RuntimeError, match="Unexpected optimization option nope"):
        pyth.compile(f, options={"nope": 1})
    with pytest.raises(TypeError):
        pyth.compile(f, modes="default")       # unknown keyword
    # a refused mode is refused with disable=True too, as torch does
    with pytest.raises(RuntimeError, match="Unrecognized mode=fast"):
        pyth.compile(f, mode="fast", disable=True)
    # the decorator form checks when it is applied
    deco = pyth.compile(mode="fast")
    with pytest.raises(RuntimeError, match="Unrecognized mode"):
        deco(f)


def test_modes_and_backends_accepted():
    x = pyth.randn(4)
    for mode in ("default", "max-autotune", "max-autotune-no-cudagraphs", "lite"):
        assert pyth.equal(pyth.compile(lambda t: t.sin(), mode=mode)(x), x.sin())
    with pytest.warns(UserWarning, match="reduce-overhead"):
        g = pyth.compile(lambda t: t.sin(), mode="reduce-overhead")
    assert pyth.equal(g(x), x.sin())
    assert pyth.compiler.list_backends() == ["inductor"]
    assert "eager" in pyth.compiler.list_backends(exclude_tags=())
    seen = []

    def backend(gm, example_inputs):
        seen.append((type(gm).__name__, [tuple(t.shape) for t in example_inputs]))
        return gm

    assert pyth.equal(pyth.compile(lambda t: t + 1, backend=backend)(x), x + 1)
    assert seen == [("<lambda>", [(4,)])]


def test_reset_names():
    assert pyth._dynamo.reset is pyth.compiler.reset
    assert hasattr(torch._dynamo, "reset") and hasattr(torch.compiler, "reset")


# ---- guards and the cache ----

def test_guards_retrace_on_each_change():
    traces = []

    def f(x):
        traces.append(1)
        return x * 2

    g = pyth.compile(f, backend="eager")
    x = pyth.randn(3)
    g(x)
    g(pyth.randn(3))
    assert len(traces) == 1                     # same guards: cached
    g(pyth.randn(4))                            # shape
    g(pyth.randn(3).double())                   # dtype
    g(pyth.randn(3, requires_grad=True))        # requires_grad
    with pyth.no_grad():                        # grad mode
        g(pyth.randn(3))
    assert len(traces) == 5 and len(_cache(g)) == 5
    pyth.compiler.reset()
    g(x)
    assert len(traces) == 6 and len(_cache(g)) == 1


def test_training_flag_is_guarded():
    class M(nn.Module):
        def forward(self, x):
            return x * 2 if self.training else x * 3

    m = M()
    om = pyth.compile(m)
    x = pyth.ones(2)
    assert om(x).tolist() == [2.0, 2.0]
    om.eval()
    assert om(x).tolist() == [3.0, 3.0]


def test_non_tensor_arguments_are_fixed_per_value():
    g = pyth.compile(lambda x, flip=False, k=2: (-x if flip else x) * k)
    x = pyth.tensor([1.0, 2.0])
    assert g(x).tolist() == [2.0, 4.0]
    assert g(x, True).tolist() == [-2.0, -4.0]
    assert g(x, flip=True, k=3).tolist() == [-3.0, -6.0]
    assert len(_cache(g)) == 3
    # a list of tensors cannot be guarded: eager every time, nothing cached
    c = pyth.compile(lambda xs: pyth.cat(xs))
    assert pyth.equal(c([x, x]), pyth.cat([x, x])) and len(_cache(c)) == 0
    with pytest.raises(exc.Unsupported, match="list"):
        pyth.compile(lambda xs: pyth.cat(xs), fullgraph=True)([x, x])
    with pytest.raises(TypeError):              # a call that does not bind fails as eager
        g()


def test_cache_limit_warns_once_and_runs_eager(caplog):
    traces = []

    def f(x):
        traces.append(1)
        return x + 1

    g = pyth.compile(f)
    assert config.cache_size_limit == config.recompile_limit == 8
    with caplog.at_level(logging.WARNING, logger="pyth._dynamo"):
        for n in range(1, 13):
            assert pyth.equal(g(pyth.ones(n)), pyth.ones(n) + 1)
    assert len(_cache(g)) == 8
    assert len(traces) == 8 + 4                 # past the limit each call runs f eagerly
    warnings = [r for r in caplog.records if "recompile_limit" in r.getMessage()]
    assert len(warnings) == 1
    assert "hit config.recompile_limit (8)" in warnings[0].getMessage()
    assert "size mismatch at index 0. expected 8, actual 9" in warnings[0].getMessage()
    strict = pyth.compile(lambda x: x + 1, fullgraph=True)
    for n in range(1, 9):
        strict(pyth.ones(n))
    with pytest.raises(exc.FailOnRecompileLimitHit, match="fullgraph=True"):
        strict(pyth.ones(9))


def test_cache_limit_setting():
    old = config.recompile_limit
    try:
        config.cache_size_limit = 2
        assert config.recompile_limit == 2
        g = pyth.compile(lambda x: x + 1)
        for n in range(1, 5):
            g(pyth.ones(n))
        assert len(_cache(g)) == 2
    finally:
        config.recompile_limit = old


# ---- graph breaks ----

def _branchy(x):
    if x.sum() > 0:
        return x * 2
    return x * 3


@pytest.mark.parametrize("fn, cause", [
    (_branchy, "control flow"),
    (lambda x: pyth.tensor(x.tolist()) + 1, ""),
    (lambda x: x + len(x), "len"),
])
def test_graph_break_runs_eager_or_raises_under_fullgraph(fn, cause):
    x = pyth.tensor([1.0, -3.0])
    g = pyth.compile(fn)
    assert pyth.equal(g(x), fn(x))
    with pytest.raises(exc.Unsupported, match="graph break") as info:
        pyth.compile(fn, fullgraph=True)(x)
    assert cause in str(info.value)
    assert isinstance(info.value, RuntimeError) and info.value.__cause__ is not None
    # a fullgraph compile of the same function raises though a plain one has a cache entry
    assert len(_cache(g)) == 1


def test_forward_hooks_and_varargs_break():
    m = nn.Linear(2, 2)
    calls = []
    m.register_forward_hook(lambda mod, args, out: calls.append(1))
    om = pyth.compile(m)
    x = pyth.randn(3, 2)
    assert pyth.equal(om(x), m(x)) and len(calls) == 2
    with pytest.raises(exc.Unsupported, match="hooks"):
        pyth.compile(m, fullgraph=True)(x)
    v = pyth.compile(lambda *xs: xs[0] + xs[1])
    assert pyth.equal(v(x, x), x + x)


# ---- results ----

def test_results_bitwise_equal_without_fusion_and_gradients():
    pyth.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 3))
    om = pyth.compile(model, backend="eager")
    x = pyth.randn(4, 8)
    assert pyth.equal(om(x), model(x))
    om(x).sum().backward()
    grads = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    model(x).sum().backward()
    assert all(pyth.equal(a, p.grad) for a, p in zip(grads, model.parameters()))


def test_mlp_training_matches_torch():
    pyth.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))
    tmodel = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    with torch.no_grad():
        for p, q in zip(model.parameters(), tmodel.parameters()):
            q.copy_(torch.from_numpy(p.detach().numpy().copy()))
    om = pyth.compile(model)
    opt = pyth.optim.SGD(om.parameters(), lr=0.1)
    topt = torch.optim.SGD(tmodel.parameters(), lr=0.1)
    x, y = pyth.randn(5, 6), pyth.tensor([0, 1, 2, 1, 0])
    tx, ty = torch.from_numpy(x.numpy().copy()), torch.from_numpy(y.numpy().copy())
    for _ in range(3):
        opt.zero_grad()
        pyth.nn.functional.cross_entropy(om(x), y).backward()
        opt.step()
        topt.zero_grad()
        torch.nn.functional.cross_entropy(tmodel(tx), ty).backward()
        topt.step()
    for p, q in zip(model.parameters(), tmodel.parameters()):
        assert torch.allclose(torch.from_numpy(p.detach().numpy()), q.detach(), atol=1e-6)


# ---- pointwise fusion ----

import numpy as np  # noqa: E402

from pyth._inductor.fuse_pointwise import FusedPointwise  # noqa: E402
from pyth._prims import program as _program  # noqa: E402


def _graphs(fn):
    return list(_cache(fn).values())


def _fused_nodes(fn):
    return [n for gm in _graphs(fn) for n in gm.graph.nodes
            if n.op == "call_function" and isinstance(n.target, FusedPointwise)]


@pytest.fixture
def evaluator_calls(monkeypatch):
    calls = []
    real = _program.eval_program

    def spy(program, inputs, scalars=()):
        calls.append(len(program))
        return real(program, inputs, scalars)
    monkeypatch.setattr(_program, "eval_program", spy)
    return calls


def chain8(x, y):
    t = (x * y + 0.5).sin()
    u = (t * -0.25).exp()
    return pyth.relu(pyth.tanh(u - y) * 2 - 0.1)


def chain8_torch(x, y):
    t = (x * y + 0.5).sin()
    u = (t * -0.25).exp()
    return torch.relu(torch.tanh(u - y) * 2 - 0.1)


@pytest.mark.parametrize("dt", [pyth.float32, pyth.float64])
@pytest.mark.parametrize("shape", [(5000,), (3, 7, 11), (0, 4), ()])
def test_fused_chain_matches_eager_and_torch(dt, shape, evaluator_calls):
    pyth.manual_seed(1)
    x, y = pyth.randn(*shape, dtype=dt), pyth.randn(*shape, dtype=dt)
    g = pyth.compile(chain8)
    got = g(x, y)
    assert evaluator_calls == [10]
    [node] = _fused_nodes(g)
    assert node.target.__name__.startswith("fused_mul_add_sin")
    want = chain8(x, y)
    assert got.dtype is dt and tuple(got.shape) == shape
    tol = dict(rtol=1e-6, atol=1e-6) if dt is pyth.float32 else dict(rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got.numpy(), want.numpy(), **tol)
    tw = chain8_torch(torch.from_numpy(x.numpy()), torch.from_numpy(y.numpy()))
    np.testing.assert_allclose(got.numpy(), tw.numpy(), **tol)


@pytest.mark.parametrize("make", [
    lambda x, y: (x.t(), y.t()),                                 # strided views
    lambda x, y: (x, y[:1]),                                     # broadcasting
    lambda x, y: (x.long(), y.long()),                           # integers
    lambda x, y: (x, y.double()),                                # mixed float types
    lambda x, y: (x.half(), y.half()),                           # a type it is not stamped for
])
def test_fallbacks_run_the_ops_unfused_bitwise(make, evaluator_calls):
    pyth.manual_seed(2)
    x, y = make(pyth.randn(6, 6) * 3, pyth.randn(6, 6) * 3)

    def f(a, b):
        return (a * b + 2) * a - b

    g = pyth.compile(f)
    assert pyth.equal(g(x, y), f(x, y))
    assert evaluator_calls == [] and len(_fused_nodes(g)) == 1


def test_requires_grad_runs_unfused_with_eager_gradients(evaluator_calls):
    pyth.manual_seed(3)
    x = pyth.randn(50, requires_grad=True)
    y = pyth.randn(50)
    g = pyth.compile(chain8)
    out = g(x, y)
    out.sum().backward()
    gx = x.grad.clone()
    x.grad = None
    want = chain8(x, y)
    want.sum().backward()
    assert pyth.equal(out, want) and pyth.equal(gx, x.grad) and evaluator_calls == []
    with pyth.no_grad():                      # no autograd: fused
        r = g(x, y)
    assert evaluator_calls == [10] and not r.requires_grad
    np.testing.assert_allclose(r.numpy(), want.detach().numpy(), rtol=1e-6, atol=1e-6)


def test_what_fuses_and_what_does_not():
    def f(x, y):
        t = x.sin()                     # used twice: its own value, input of two groups
        a = 2 - t * 3                   # reflected scalar operands
        b = (1 / (t.cos() + 1)) ** 2
        c = x @ y                       # not pointwise: a boundary
        return a + b, pyth.nn.functional.relu(c).exp(), pyth.add(x, y, alpha=2).neg()

    pyth.manual_seed(4)
    x, y = pyth.randn(4, 4), pyth.randn(4, 4)
    g = pyth.compile(f)
    for got, want in zip(g(x, y), f(x, y)):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=1e-6)
    names = sorted(n.target.__name__ for n in _fused_nodes(g))
    assert names == ["fused_maximum_exp", "fused_mul_sub_cos_add_div_pow_add"]
    plain = [n.target for gm in _graphs(g) for n in gm.graph.nodes
             if n.op in ("call_function", "call_method")
             and not isinstance(n.target, FusedPointwise)]
    assert "sin" in plain and pyth.add in plain and "neg" in plain  # lone op, keywords
    off = pyth.compile(f, options={"pointwise_fusion": False})
    off(x, y)
    assert _fused_nodes(off) == []


def test_fused_module_forward_and_training_step():
    pyth.manual_seed(5)
    model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 4))

    class Head(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = model

        def forward(self, x):
            return (self.body(x).sigmoid() * 2 - 1).abs()

    head = Head()
    om = pyth.compile(head)
    x = pyth.randn(3, 8)
    with pyth.no_grad():
        np.testing.assert_allclose(om(x).numpy(), head(x).numpy(), rtol=1e-6, atol=1e-6)
    om(x).sum().backward()                    # parameters require grad: unfused, eager grads
    grads = [p.grad.clone() for p in head.parameters()]
    head.zero_grad()
    head(x).sum().backward()
    assert all(pyth.equal(a, p.grad) for a, p in zip(grads, head.parameters()))
    assert len(_fused_nodes(om)) == 2            # one graph with grad mode on, one without


def test_operand_order_and_keyword_only_arguments(evaluator_calls):
    x = pyth.rand(40, dtype=pyth.float64) + 1

    def f(x, *, k):
        # polygamma takes (n, input), the opcode (input, n): left unfused
        return x.polygamma(1).exp() + x.polygamma(1) * k + pyth.sub(2, x) * pyth.pow(2, x)

    g = pyth.compile(f)
    np.testing.assert_allclose(g(x, k=2.0).numpy(), f(x, k=2.0).numpy(), rtol=1e-12)
    tx = torch.from_numpy(x.numpy())
    want = tx.polygamma(1).exp() + tx.polygamma(1) * 2 + torch.sub(2, tx) * torch.pow(2, tx)
    # pyth's own polygamma is within 1e-8 of torch's
    np.testing.assert_allclose(g(x, k=2.0).numpy(), want.numpy(), rtol=1e-8)
    assert evaluator_calls == [7, 7]
    assert all("polygamma" not in n.target.__name__ for n in _fused_nodes(g))


def test_python_numbers_where_the_trace_saw_nodes_run_unfused(evaluator_calls):
    def f(x):
        n = x.size(0)
        return x * (n * 2 + 1) - 1

    g = pyth.compile(f)
    x = pyth.arange(4.0)
    assert pyth.equal(g(x), f(x)) and evaluator_calls == []
    assert len(_fused_nodes(g)) == 1


def test_bound_methods_of_a_module():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 3)
            self.w = nn.Parameter(pyth.ones(3))

        def forward(self, x):
            return (self.fc(x) * self.w).tanh() + 1

        def head(self, x):
            return (x * self.w).sin() * 2

    pyth.manual_seed(6)
    m = M()
    x = pyth.randn(2, 3)
    f = pyth.compile(m.forward)          # a submodule call: a graph break, eager
    assert pyth.equal(f(x), m(x)) and _graphs(f) == [pyth._dynamo.eval_frame._EAGER]
    with pytest.raises(exc.Unsupported, match="submodule"):
        pyth.compile(m.forward, fullgraph=True)(x)
    h = pyth.compile(m.head)             # parameters only: traced, gradients reach them
    out = h(x)
    out.sum().backward()
    grad = m.w.grad.clone()
    m.w.grad = None
    m.head(x).sum().backward()
    assert pyth.equal(out, m.head(x)) and pyth.equal(grad, m.w.grad)

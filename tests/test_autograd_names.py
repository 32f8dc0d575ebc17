"""The names old and new programs import from torch.autograd, against PyTorch: Variable (a thin
constructor; every tensor is an instance), the re-exported grad-mode and gradient functions,
and autograd.functional's jacobian, hessian, vjp, jvp, vhp and hvp (values, the form of the
results, create_graph, strict mode and the errors)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import pyth

torch = pytest.importorskip("torch")


def raised(fn):
    """(exception type name, message with torch's names made pyth's), or None."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn()
    except Exception as e:  # noqa: BLE001  (the oracle compares every kind)
        return type(e).__name__, str(e).replace("torch", "pyth")
    return None


# ---- Variable ----

def test_variable_is_a_detached_leaf_sharing_data():
    for lib in (torch, pyth):
        from importlib import import_module
        Variable = import_module(f"{lib.__name__}.autograd").Variable
        t = lib.ones(3)
        v = Variable(t)
        assert v is not t and type(v) is type(t) and v.is_leaf and not v.requires_grad
        v.add_(1)
        assert t.tolist() == [2.0, 2.0, 2.0]            # the same data
        w = Variable(t, requires_grad=True)
        assert w.requires_grad and w.is_leaf and not t.requires_grad and w.grad_fn is None
        (w * w).sum().backward()
        assert w.grad.tolist() == [4.0, 4.0, 4.0]
        assert Variable(t, True).requires_grad and Variable(t, requires_grad=1).requires_grad
        x = lib.ones(2, requires_grad=True)
        y = Variable(x * 2)
        assert y.is_leaf and not y.requires_grad and y.grad_fn is None
        e = Variable()
        assert e.tolist() == [] and e.dtype is lib.float32
        assert isinstance(t, Variable) and isinstance(lib.nn.Parameter(t), Variable)
        assert not isinstance(3, Variable) and not issubclass(type(t), Variable)
        assert Variable.__name__ == "Variable"


@pytest.mark.parametrize("call", [
    "Variable([1, 2])", "Variable(3)", "Variable(lib.ones(2, dtype=lib.int64), requires_grad=True)",
    "Variable(lib.ones(2), foo=1)", "Variable(lib.ones(2), True, True)",
])
def test_variable_errors(call):
    got = [raised(lambda: eval(call, {"Variable": lib.autograd.Variable, "lib": lib}))
           for lib in (torch, pyth)]
    assert got[0] is not None and got[1] == got[0]


def test_variable_volatile_warns():
    for lib in (torch, pyth):
        with pytest.warns(UserWarning, match="volatile was removed"):
            v = lib.autograd.Variable(lib.ones(2), volatile=True)
        assert not v.requires_grad


def test_variable_module_path():
    from pyth.autograd.variable import Variable
    from torch.autograd.variable import Variable as TorchVariable
    assert Variable is pyth.autograd.Variable and TorchVariable is torch.autograd.Variable


NAMES = ["Function", "backward", "grad", "gradcheck", "gradgradcheck", "no_grad", "enable_grad",
         "set_grad_enabled", "inference_mode", "detect_anomaly", "set_detect_anomaly",
         "Variable", "functional"]


@pytest.mark.parametrize("name", NAMES)
def test_autograd_has_the_names(name):
    assert hasattr(torch.autograd, name) and hasattr(pyth.autograd, name)


def test_old_style_program():
    """A program of the Variable era: Variable inputs, .data updates, autograd.grad."""
    runs = []
    for lib in (torch, pyth):
        from importlib import import_module
        ag = import_module(f"{lib.__name__}.autograd")
        x = ag.Variable(lib.tensor([[1.0, 2.0], [3.0, 4.0]]), requires_grad=False)
        w = ag.Variable(lib.tensor([[0.5], [-0.25]]), requires_grad=True)
        for _ in range(3):
            loss = (x.mm(w) ** 2).sum()
            loss.backward()
            w.data -= 0.01 * w.grad.data
            w.grad.data.zero_()
        g, = ag.grad((w ** 3).sum(), w, create_graph=True)
        with ag.set_grad_enabled(False):
            frozen = (w * 2).requires_grad
        runs.append((np.round(w.detach().numpy(), 6).tolist(), g.requires_grad, frozen))
    assert runs[0] == runs[1]


# ---- autograd.functional ----

def _close(a, b, tol=1e-5):
    """Same structure (tuple or tensor, nesting) and close values."""
    if isinstance(b, tuple):
        assert isinstance(a, tuple) and len(a) == len(b)
        for x, y in zip(a, b):
            _close(x, y, tol)
        return
    assert isinstance(a, pyth.Tensor) and isinstance(b, torch.Tensor)
    assert tuple(a.shape) == tuple(b.shape)
    assert a.requires_grad == b.requires_grad
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


def _inputs(lib, kind):
    x = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64)
    y = lib.tensor([[0.3, 0.7], [-0.2, 1.1]], dtype=lib.float64)
    return x if kind == "one" else (x, y)


FUNCS = {  # name: (function builder, input kind)
    "vector": (lambda lib: lambda x: x.sin() * x.sum(), "one"),
    "scalar": (lambda lib: lambda x: (x ** 3).sum() * x[0], "one"),
    "pair": (lambda lib: lambda x, y: (y @ x[:2]).tanh() * x[2], "two"),
    "pair_to_tuple": (lambda lib: lambda x, y: (x.exp(), (y * y).sum()), "two"),
    "scalar_pair": (lambda lib: lambda x, y: (x[:2] * y.sum(0)).exp().sum(), "two"),
    "independent": (lambda lib: lambda x, y: x * 2, "two"),
}


@pytest.mark.parametrize("fn, name", [("jacobian", n) for n in sorted(FUNCS)] +
                         [("hessian", "scalar"), ("hessian", "scalar_pair")])
@pytest.mark.parametrize("create_graph", [False, True])
def test_jacobian_and_hessian(fn, name, create_graph):
    build, kind = FUNCS[name]
    got = [getattr(lib.autograd.functional, fn)(build(lib), _inputs(lib, kind),
                                                create_graph=create_graph)
           for lib in (pyth, torch)]
    _close(*got)


def _vectors(lib, like):
    if isinstance(like, tuple):
        return tuple(_vectors(lib, t) for t in like)
    n = like.numel()
    return lib.tensor([0.5 * (i + 1) * (-1) ** i for i in range(n)],
                      dtype=like.dtype).view(tuple(like.shape))


@pytest.mark.parametrize("name", sorted(FUNCS))
@pytest.mark.parametrize("create_graph", [False, True])
def test_vjp_and_jvp(name, create_graph):
    build, kind = FUNCS[name]
    for fn in ("vjp", "jvp"):
        got = []
        for lib in (pyth, torch):
            inputs = _inputs(lib, kind)
            f = build(lib)
            if fn == "vjp":
                v = _vectors(lib, f(*(inputs if isinstance(inputs, tuple) else (inputs,))))
            else:
                v = _vectors(lib, inputs)
            got.append(getattr(lib.autograd.functional, fn)(f, inputs, v,
                                                            create_graph=create_graph))
        _close(*got)


@pytest.mark.parametrize("name", ["scalar", "scalar_pair"])
@pytest.mark.parametrize("fn", ["vhp", "hvp"])
def test_vhp_and_hvp(name, fn):
    build, kind = FUNCS[name]
    got = []
    for lib in (pyth, torch):
        inputs = _inputs(lib, kind)
        got.append(getattr(lib.autograd.functional, fn)(build(lib), inputs,
                                                        _vectors(lib, inputs)))
    _close(*got)


def test_v_may_be_none_for_one_element():
    for fn in ("vjp", "jvp", "vhp", "hvp"):
        got = [getattr(lib.autograd.functional, fn)(lambda x: (x * x).sum() * 3,
                                                    lib.tensor([2.0])) for lib in (pyth, torch)]
        _close(*got)


def test_inputs_that_require_grad_stay_apart_unless_create_graph():
    for lib in (torch, pyth):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        j = lib.autograd.functional.jacobian(lambda a: a * a, x)
        assert not j.requires_grad and x.grad is None
        j = lib.autograd.functional.jacobian(lambda a: a * a, x, create_graph=True)
        assert j.requires_grad
        j.sum().backward()
        assert x.grad.tolist() == [2.0, 2.0]


ERRORS = [
    "F.vjp(lambda x: x * 2, lib.ones(3))",
    "F.jvp(lambda x: x * 2, lib.ones(3))",
    "F.vhp(lambda x: x.sum(), lib.ones(3))",
    "F.vjp(lambda x: x * 2, lib.ones(3), lib.ones(2))",
    "F.vjp(lambda x, y: (x, y), (lib.ones(3), lib.ones(2)), (lib.ones(3),))",
    "F.vjp(lambda x, y: (x, y), (lib.ones(3), lib.ones(2)), (lib.ones(3), lib.ones(3)))",
    "F.jacobian(lambda x: x * 2, [1.0, 2.0])",
    "F.jacobian(lambda x: x * 2, (lib.ones(2), 3))",
    "F.jacobian(lambda x: [x], lib.ones(2))",
    "F.hessian(lambda x: x * 2, lib.ones(3))",
    "F.hessian(lambda x: (x.sum(), x.sum()), lib.ones(3))",
    "F.vhp(lambda x: (x.sum(), x.sum()), lib.ones(3), lib.ones(3))",
    "F.vhp(lambda x: x * 1, lib.ones(3), lib.ones(3))",
    "F.jacobian(lambda x, y: x * 2, (lib.ones(2), lib.ones(2)), strict=True)",
    "F.jacobian(lambda x: lib.ones(2), lib.ones(2), strict=True)",
    "F.vjp(lambda x, y: x * 2, (lib.ones(2), lib.ones(2)), lib.ones(2), strict=True)",
    "F.vhp(lambda x: x.sum(), lib.ones(2), lib.ones(2), strict=True)",
    "F.hessian(lambda x: (x * 2).sum(), lib.ones(2), strict=True)",
    "F.jacobian(lambda x: x, lib.ones(2), strategy='sideways')",
    "F.jacobian(lambda x: x, lib.ones(2), strategy='forward-mode')",
]


@pytest.mark.parametrize("call", ERRORS)
def test_errors_as_pytorch(call):
    got = [raised(lambda: eval(call, {"F": lib.autograd.functional, "lib": lib}))
           for lib in (torch, pyth)]
    assert got[0] is not None
    assert got[1] == got[0]


def test_vectorize_is_refused():
    with pytest.raises(NotImplementedError, match=r"jacobian\(vectorize=True\) is not in pyth"):
        pyth.autograd.functional.jacobian(lambda x: x, pyth.ones(2), vectorize=True)

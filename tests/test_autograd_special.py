"""Derivatives of the special functions and the binary ops PyTorch has beside the basic ones:
gradcheck in float64 and PyTorch's gradients."""

from __future__ import annotations

import numpy as np
import pytest
from _support import grad_pair

import pyth
from pyth.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(1)

UNARY = ["erfc", "digamma", "lgamma"]
BINARY = ["xlogy", "logaddexp", "logaddexp2", "copysign"]


@pytest.mark.parametrize("name", UNARY)
def test_unary_special_gradients(name):
    a = RNG.uniform(0.3, 3.0, (3, 4))
    x, tx = grad_pair(a)
    y, ty = getattr(pyth, name)(x), getattr(torch, name)(tx)
    y.sum().backward()
    ty.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-8, atol=1e-10)
    assert gradcheck(getattr(pyth, name), (x.detach().requires_grad_(),))
    assert gradgradcheck(getattr(pyth, name), (x.detach().requires_grad_(),))


@pytest.mark.parametrize("name", BINARY)
def test_binary_gradients(name):
    a = RNG.uniform(0.3, 3.0, (3, 4)) * RNG.choice([-1, 1], (3, 4))
    b = RNG.uniform(0.3, 3.0, (4,))
    if name == "xlogy":
        a[0, 0] = 0.0
    x, tx = grad_pair(a)
    y, ty = grad_pair(b)
    out, tout = getattr(pyth, name)(x, y), getattr(torch, name)(tx, ty)
    out.sum().backward()
    tout.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(y.grad.numpy(), ty.grad.numpy(), rtol=1e-8, atol=1e-10)
    if name != "copysign":  # a step function of y
        assert gradcheck(getattr(pyth, name), (x.detach().requires_grad_(),
                                               y.detach().requires_grad_()))


def test_i0_backward_says_it_is_missing():
    x = pyth.ones(3, dtype=pyth.float64, requires_grad=True)
    y = pyth.i0(x)
    assert y.grad_fn is not None
    with pytest.raises(RuntimeError, match="i0"):
        y.sum().backward()


def test_numpy_of_a_tensor_that_requires_grad_refuses_as_torch():
    x = pyth.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="detach"):
        x.numpy()
    with pytest.raises(RuntimeError, match="detach"):
        np.asarray(x)
    assert x.detach().numpy().tolist() == [1.0, 1.0, 1.0]
    assert x.tolist() == [1.0, 1.0, 1.0] and (x * 2).tolist() == [2.0, 2.0, 2.0]
    assert "FloatTensor" in repr(x * 2)


@pytest.mark.parametrize("name", ["cummax", "cummin", "logcumsumexp"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_scans_gradients(name, dim):
    a = RNG.standard_normal((4, 5)) * 3
    x, tx = grad_pair(a)
    out = getattr(pyth, name)(x, dim)
    tout = getattr(torch, name)(tx, dim)
    if name != "logcumsumexp":
        out, tout = out[0], tout[0]
    g = RNG.standard_normal((4, 5))
    out.backward(pyth.tensor(g))
    tout.backward(torch.tensor(g))
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-8, atol=1e-10)
    f = (lambda t: getattr(pyth, name)(t, dim)) if name == "logcumsumexp" else \
        (lambda t: getattr(pyth, name)(t, dim)[0])
    assert gradcheck(f, (x.detach().requires_grad_(),))
    if name == "logcumsumexp":
        assert gradgradcheck(f, (x.detach().requires_grad_(),))


@pytest.mark.parametrize("n", [0, 1, 2])
def test_polygamma_gradients(n):
    a = RNG.uniform(0.5, 3.0, (3, 4))
    x, tx = grad_pair(a)
    pyth.polygamma(n, x).sum().backward()
    torch.polygamma(n, tx).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-8, atol=1e-10)
    assert gradgradcheck(lambda t: pyth.polygamma(n, t), (x.detach().requires_grad_(),))
    d, _ = grad_pair(a)
    assert gradgradcheck(pyth.digamma, (d,))


def _error(fn):
    """(type, message) of what fn raises."""
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value), str(info.value).replace("torch", "pyth")


@pytest.mark.parametrize("name,node", [("polygamma", "PolygammaBackward0"),
                                       ("logcumsumexp", "LogcumsumexpBackward0"),
                                       ("igamma", "IgammaBackward0"),
                                       ("igammac", "IgammacBackward0")])
def test_composed_ops_record_the_node_pytorch_names(name, node):
    x, tx = grad_pair(RNG.uniform(0.5, 3.0, (2, 3)))
    a, ta = grad_pair(RNG.uniform(0.5, 3.0, (2, 3)), requires_grad=False)
    calls = {"polygamma": lambda m, t, s: m.polygamma(2, t),
             "logcumsumexp": lambda m, t, s: m.logcumsumexp(t, 1),
             "igamma": lambda m, t, s: m.igamma(s, t), "igammac": lambda m, t, s: m.igammac(s, t)}
    y, ty = calls[name](pyth, x, a), calls[name](torch, tx, ta)
    assert y.grad_fn.name() == ty.grad_fn.name() == node
    assert [f and f.name() for f, _ in y.grad_fn.next_functions][-1] == "AccumulateGrad"
    with pyth.no_grad():
        assert calls[name](pyth, x, a).grad_fn is None
    # out= refuses an input that requires grad, with PyTorch's message
    if name == "polygamma":
        po = lambda m, t, o: m.polygamma(2, t, out=o)  # noqa: E731
    elif name == "logcumsumexp":
        po = lambda m, t, o: m.logcumsumexp(t, 1, out=o)  # noqa: E731
    else:
        po = lambda m, t, o: getattr(m, name)(a if m is pyth else ta, t, out=o)  # noqa: E731
    assert _error(lambda: po(pyth, x, pyth.empty(2, 3, dtype=pyth.float64))) == \
        _error(lambda: po(torch, tx, torch.empty(2, 3, dtype=torch.float64)))
    # a saved tensor modified in place makes backward raise, naming the op that made it
    x2 = x * 1
    y = calls[name](pyth, x2, a)
    with pyth.no_grad():
        x2.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation.*output 0 of Mul,"):
        y.sum().backward()
    y = calls[name](pyth, x, a)
    y.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.sum().backward()


@pytest.mark.parametrize("shape,dim", [((), 0), ((0, 3), 0), ((2, 0), 0), ((3, 0), 1)])
def test_logcumsumexp_gradient_of_zero_dim_and_empty_inputs(shape, dim):
    x, tx = grad_pair(RNG.standard_normal(shape))
    y, ty = pyth.logcumsumexp(x, dim), torch.logcumsumexp(tx, dim)
    assert (y.grad_fn is None) == (ty.grad_fn is None)
    (g,) = pyth.autograd.grad(y.sum(), [x])
    (tg,) = torch.autograd.grad(ty.sum(), [tx])
    assert tuple(g.shape) == tuple(tg.shape) and g.dtype == pyth.float64
    np.testing.assert_array_equal(g.numpy(), tg.numpy())


@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_igamma_gradients_against_torch_second_order_and_broadcast(name):
    """d/dx against PyTorch over broadcast operands of two dtypes (the gradient in x's shape
    and dtype), gradgradcheck w.r.t. x, and PyTorch's error w.r.t. the first argument."""
    a, ta = grad_pair(RNG.uniform(0.3, 4.0, (2, 1)), requires_grad=False)
    xa = RNG.uniform(0.1, 6.0, (3,))
    x, tx = grad_pair(xa, dtype="float32")
    y, ty = getattr(pyth, name)(a, x), getattr(torch, name)(ta, tx)
    assert y.dtype == pyth.float64 and tuple(y.shape) == (2, 3)
    w = RNG.standard_normal((2, 3))
    (g,) = pyth.autograd.grad((y * pyth.tensor(w)).sum(), [x])
    (tg,) = torch.autograd.grad((ty * torch.tensor(w)).sum(), [tx])
    assert g.dtype == pyth.float32 and tuple(g.shape) == (3,)
    np.testing.assert_allclose(g.numpy(), tg.numpy(), rtol=1e-5)
    x64 = pyth.tensor(xa, dtype=pyth.float64, requires_grad=True)
    f = getattr(pyth, name)
    assert gradgradcheck(lambda t: f(a, t), (x64,))
    (g1,) = pyth.autograd.grad(f(a, x64).sum(), [x64], create_graph=True)
    tx64 = torch.tensor(xa, dtype=torch.float64, requires_grad=True)
    (tg1,) = torch.autograd.grad(getattr(torch, name)(ta, tx64).sum(), [tx64], create_graph=True)
    (g2,) = pyth.autograd.grad((g1 * g1).sum(), [x64])
    (tg2,) = torch.autograd.grad((tg1 * tg1).sum(), [tx64])
    np.testing.assert_allclose(g2.numpy(), tg2.detach().numpy(), rtol=1e-10)
    pa, pta = grad_pair(RNG.uniform(0.3, 4.0, (3,)))
    assert _error(lambda: f(pa, x64).sum().backward()) == \
        _error(lambda: getattr(torch, name)(pta, tx64).sum().backward())

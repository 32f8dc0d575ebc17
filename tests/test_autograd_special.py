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

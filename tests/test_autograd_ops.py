"""Every differentiable op: gradients against PyTorch (when installed) and finite differences
(gradcheck, float64) on contiguous, transposed, broadcast and zero-size inputs."""

import numpy as np
import pytest
from autograd_cases import CASES, LINALG_CASES, values

import pyth
from pyth.autograd import gradcheck, gradgradcheck

try:
    import torch
except ImportError:  # PyTorch is an optional second oracle
    torch = None

ALL = {**CASES, **LINALG_CASES}


def _pyth_inputs(arrays):
    return [pyth.tensor(a, dtype=pyth.float64).requires_grad_() for a in arrays]


def _scalarize(M, out, seed):
    """sum(out * fixed random weights): one scalar whose gradient exercises every element."""
    rng = np.random.default_rng(seed + 100)
    w = rng.normal(size=tuple(out.shape))
    wt = (pyth.tensor(w, dtype=pyth.float64) if M is pyth
          else torch.tensor(w, dtype=torch.float64))
    return (out * wt).sum()


@pytest.mark.parametrize("name", sorted(ALL))
def test_matches_torch(name):
    if torch is None:
        pytest.skip("torch not installed")
    fn, shapes, domain = ALL[name]
    arrays = values(shapes, domain)
    xs = _pyth_inputs(arrays)
    ts = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    out = fn(pyth, *xs)
    tout = fn(torch, *ts)
    np.testing.assert_allclose(np.asarray(out.detach()), tout.detach().numpy(), rtol=1e-9,
                               atol=1e-9)
    _scalarize(pyth, out, 0).backward()
    _scalarize(torch, tout, 0).backward()
    for x, t in zip(xs, ts):
        if t.grad is None:
            assert x.grad is None or not np.any(np.asarray(x.grad))
            continue
        np.testing.assert_allclose(np.asarray(x.grad), t.grad.numpy(), rtol=1e-6, atol=1e-6,
                                   err_msg=name)


NO_FINITE_DIFFERENCES = {"to_float"}   # a float32 round trip: finite differences are too coarse


@pytest.mark.parametrize("name", sorted(set(ALL) - NO_FINITE_DIFFERENCES))
def test_gradcheck(name):
    fn, shapes, domain = ALL[name]
    xs = _pyth_inputs(values(shapes, domain, seed=1))
    assert gradcheck(lambda *a: fn(pyth, *a), xs, eps=1e-6, atol=1e-5, rtol=1e-4)


def _transposed(a):
    """The same values in a transposed (non-contiguous) layout."""
    if a.ndim < 2:
        return pyth.tensor(a, dtype=pyth.float64).requires_grad_()
    t = pyth.tensor(np.ascontiguousarray(np.swapaxes(a, -1, -2)), dtype=pyth.float64)
    return t.transpose(-1, -2).detach().requires_grad_()


@pytest.mark.parametrize("name", sorted(set(ALL) - NO_FINITE_DIFFERENCES - {"view"}))
def test_gradcheck_transposed(name):
    fn, shapes, domain = ALL[name]
    xs = [_transposed(a) for a in values(shapes, domain, seed=2)]
    assert gradcheck(lambda *a: fn(pyth, *a), xs, eps=1e-6, atol=1e-5, rtol=1e-4)


BROADCAST = ["add", "sub", "mul", "div", "pow", "atan2", "hypot", "maximum", "minimum",
             "where", "lerp", "addcmul"]


@pytest.mark.parametrize("name", BROADCAST)
def test_gradcheck_broadcast(name):
    fn, shapes, domain = CASES[name]
    shapes = [(2, 1, 4)] + [(3, 1)] * (len(shapes) - 1)
    xs = _pyth_inputs(values(shapes, domain, seed=3))
    assert gradcheck(lambda *a: fn(pyth, *a), xs)
    if torch is not None:
        ts = [torch.tensor(np.asarray(x.detach()), requires_grad=True) for x in xs]
        fn(pyth, *xs).sum().backward()
        fn(torch, *ts).sum().backward()
        for x, t in zip(xs, ts):
            assert tuple(x.grad.shape) == tuple(t.grad.shape)
            np.testing.assert_allclose(np.asarray(x.grad), t.grad.numpy(), rtol=1e-6, atol=1e-8)


ZERO_SIZE = {
    "exp": [(0, 4)], "tanh": [(3, 0)], "add": [(0, 4), (4,)], "mul": [(0, 4), (1, 4)],
    "sum_dim": [(0, 4)], "mean_dim": [(3, 0)], "t": [(0, 4)], "cat": [(3, 0), (3, 2)],
    "mm": [(3, 0), (0, 2)], "matmul": [(0, 4), (4, 2)], "clone": [(0, 4)], "flip": [(0, 4)],
    "unsqueeze": [(0, 4)], "transpose": [(2, 0, 4)], "cumsum": [(3, 0)], "sum": [(0,)],
    "prod_dim": [(3, 0)], "bmm": [(0, 3, 4), (0, 4, 2)], "stack": [(0, 4), (0, 4)],
}


@pytest.mark.parametrize("name", sorted(ZERO_SIZE))
def test_zero_size(name):
    fn = CASES[name][0]
    zshapes = ZERO_SIZE[name]
    xs = _pyth_inputs([np.zeros(s) for s in zshapes])
    out = fn(pyth, *xs)
    out.sum().backward()
    for x in xs:
        assert x.grad is not None and tuple(x.grad.shape) == tuple(x.shape)


@pytest.mark.parametrize("name", sorted(ZERO_SIZE))
def test_zero_size_matches_torch(name):
    if torch is None:
        pytest.skip("torch not installed")
    fn = CASES[name][0]
    xs = _pyth_inputs([np.zeros(s) for s in ZERO_SIZE[name]])
    ts = [torch.zeros(s, dtype=torch.float64, requires_grad=True) for s in ZERO_SIZE[name]]
    fn(pyth, *xs).sum().backward()
    fn(torch, *ts).sum().backward()
    for x, t in zip(xs, ts):
        np.testing.assert_array_equal(np.asarray(x.grad), t.grad.numpy())


@pytest.mark.parametrize("name", __import__("pyth.autograd.derivatives",
                                            fromlist=["C_GRADS"]).C_GRADS)
@pytest.mark.parametrize("dtype", [pyth.float32, pyth.float64])
def test_c_derivative_kernels_match_formulas(name, dtype):
    """The stamped C derivative (first order) equals the composed formula (create_graph)."""
    domain = {"log": "pos", "log1p": "pos", "log2": "pos", "log10": "pos", "sqrt": "pos",
              "rsqrt": "pos", "reciprocal": "pos", "asin": "unit", "acos": "unit",
              "erfinv": "unit", "lgamma": "pos"}.get(name, "any")
    x = pyth.tensor(values([(4, 5)], domain, seed=4)[0], dtype=dtype).requires_grad_()
    gout = pyth.tensor(values([(4, 5)], "any", seed=5)[0], dtype=dtype)
    y = getattr(x, name)()
    rule = "".join(p.capitalize() for p in name.split("_")) + "Backward0"
    assert type(y.grad_fn).__name__ == {"log1p": "Log1PBackward0"}.get(name, rule)  # PyTorch's
    c, = pyth.autograd.grad(y, x, gout, retain_graph=True)
    if name == "lgamma":
        if torch is not None:
            t = torch.tensor(np.asarray(x.detach()), requires_grad=True)
            torch.lgamma(t).backward(torch.tensor(np.asarray(gout)))
            np.testing.assert_allclose(np.asarray(c), t.grad.numpy(), rtol=1e-5, atol=1e-6)
        return
    composed, = pyth.autograd.grad(y, x, gout.requires_grad_(), create_graph=True)
    tol = 1e-6 if dtype is pyth.float32 else 1e-12
    np.testing.assert_allclose(np.asarray(c), np.asarray(composed.detach()), rtol=tol, atol=tol)


NO_SECOND_ORDER = NO_FINITE_DIFFERENCES | {
    "lgamma",                               # digamma is not an op: first order only (C kernel)
}


@pytest.mark.parametrize("name", sorted(set(ALL) - NO_SECOND_ORDER))
def test_gradgradcheck(name):
    """Second derivatives: every formula is made of recorded ops, so create_graph works."""
    fn, shapes, domain = ALL[name]
    xs = _pyth_inputs(values(shapes, domain, seed=6))
    assert gradgradcheck(lambda *a: fn(pyth, *a), xs, eps=1e-6, atol=1e-4, rtol=1e-3)


BINARY_C = {"div": "pos", "pow": "pos", "atan2": "pos", "hypot": "pos", "fmod": "pos",
            "remainder": "pos"}


@pytest.mark.parametrize("name", sorted(BINARY_C))
@pytest.mark.parametrize("form", ["tensors", "broadcast", "scalar_other", "scalar_input",
                                  "mixed_dtypes"])
def test_binary_c_derivative_kernels_match_formulas(name, form):
    """The stamped C derivatives of binary ops (first order) equal the composed formulas."""
    fn = getattr(pyth, name)
    a, b = values([(3, 4), (3, 4)], BINARY_C[name], seed=7)
    x = pyth.tensor(a, dtype=pyth.float64).requires_grad_()
    y = pyth.tensor(b, dtype=pyth.float64).requires_grad_()
    if form == "broadcast":
        y = pyth.tensor(b[0], dtype=pyth.float64).requires_grad_()
    elif form == "mixed_dtypes":
        y = pyth.tensor(b, dtype=pyth.float32).requires_grad_()
    args = {"scalar_other": (x, 1.7), "scalar_input": (1.7, y)}.get(form, (x, y))
    out = fn(*args)
    ins = [t for t in args if isinstance(t, pyth.Tensor)]
    gout = pyth.tensor(values([tuple(out.shape)], "any", seed=8)[0], dtype=out.dtype)
    c = pyth.autograd.grad(out, ins, gout, retain_graph=True)
    composed = pyth.autograd.grad(out, ins, gout.requires_grad_(), create_graph=True)
    for u, v in zip(c, composed):
        assert u.dtype is v.dtype and tuple(u.shape) == tuple(v.shape)
        np.testing.assert_allclose(np.asarray(u), np.asarray(v.detach()), rtol=1e-6, atol=1e-9)

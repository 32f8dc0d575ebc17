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

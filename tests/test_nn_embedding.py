"""Embedding (THNN LookupTable kernels) against PyTorch in float64: lookup, the weight's
gradient with repeated indices and padding_idx, max_norm renormalisation, scale_grad_by_freq,
from_pretrained, gradcheck, errors."""

from __future__ import annotations

import numpy as np
import pytest
from _support import close

import pyth
from pyth import nn
from pyth.autograd import gradcheck, gradgradcheck
from pyth.nn import functional as F

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(11)


def pair(num, dim, **kw):
    tm = torch.nn.Embedding(num, dim, **kw).double()
    pm = nn.Embedding(num, dim, **kw).double()
    pm.load_state_dict({"weight": pyth.tensor(tm.weight.detach().numpy())})
    return pm, tm


@pytest.mark.parametrize("kw", [{}, {"padding_idx": 2}, {"padding_idx": -1},
                                {"scale_grad_by_freq": True},
                                {"padding_idx": 0, "scale_grad_by_freq": True}])
def test_embedding_matches_torch(kw):
    pm, tm = pair(6, 3, **kw)
    assert repr(pm) == repr(tm)
    assert pm.padding_idx == tm.padding_idx
    idx = np.array([[0, 2, 2, 5], [1, 2, 0, 5]])
    y, ty = pm(pyth.tensor(idx)), tm(torch.tensor(idx))
    close(y, ty, tol=1e-10)
    g = RNG.standard_normal(tuple(ty.shape))
    y.backward(pyth.tensor(g))
    ty.backward(torch.tensor(g))
    close(pm.weight.grad, tm.weight.grad, tol=1e-10)


def test_embedding_padding_row_init_and_gradient():
    m = nn.Embedding(5, 4, padding_idx=3)
    assert np.all(m.weight.detach().numpy()[3] == 0)
    y = m(pyth.tensor([3, 3, 1]))
    y.sum().backward()
    g = m.weight.grad.numpy()
    assert np.all(g[3] == 0) and np.all(g[1] == 1) and np.all(g[0] == 0)


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, float("inf")])
def test_embedding_max_norm_renormalises_like_torch(norm_type):
    pm, tm = pair(6, 4, max_norm=1.0, norm_type=norm_type)
    idx = [[1, 1, 4], [0, 4, 5]]
    y, ty = pm(pyth.tensor(idx)), tm(torch.tensor(idx))
    close(y, ty, 1e-9)
    close(pm.weight, tm.weight, 1e-9)          # rows 0, 1, 4, 5 renormalised in place
    y.sum().backward()
    ty.sum().backward()
    close(pm.weight.grad, tm.weight.grad, tol=1e-10)


def test_embedding_functional_gradcheck_and_non_contiguous():
    w = pyth.tensor(RNG.standard_normal((5, 3))).requires_grad_()
    idx = pyth.tensor([[0, 4, 1], [4, 4, 2]]).t()              # non-contiguous indices
    assert not idx.is_contiguous()
    # (padding_idx's zero gradient is a convention finite differences do not see: no padding)
    assert gradcheck(lambda w: F.embedding(idx, w), (w,))
    assert gradgradcheck(lambda w: F.embedding(idx, w) ** 2, (w,))
    # create_graph with padding and frequency scaling, against torch
    wt = torch.tensor(w.detach().numpy(), requires_grad=True)
    it = torch.tensor(idx.numpy())
    gp, = pyth.autograd.grad((F.embedding(idx, w, 4, scale_grad_by_freq=True) ** 3).sum(), w,
                             create_graph=True)
    gt, = torch.autograd.grad((torch.nn.functional.embedding(
        it, wt, 4, scale_grad_by_freq=True) ** 3).sum(), wt, create_graph=True)
    close(gp, gt, tol=1e-10)
    (gp * gp).sum().backward()
    (gt * gt).sum().backward()
    close(w.grad, wt.grad, tol=1e-10)
    close(F.embedding(idx, w), torch.nn.functional.embedding(it, wt), tol=1e-10)
    wn = pyth.tensor(RNG.standard_normal((3, 5))).t()          # non-contiguous weight
    close(F.embedding(idx, wn), torch.nn.functional.embedding(
        torch.tensor(idx.numpy()), torch.tensor(wn.numpy())), tol=1e-10)


@pytest.mark.parametrize("idx", [[[1, 2], [2, 0]], 3])
def test_embedding_saves_indices_not_the_weight_like_torch(idx):
    # the backward needs only the indices: the weight changed in place (an optimizer step, a
    # max_norm renormalisation) before it is no error; changing the indices is one; the
    # create_graph gradient in float32 is torch's and a freed graph refuses a second backward
    ws = RNG.standard_normal((4, 3))
    for lib in (pyth, torch):
        f = lib.nn.functional
        w = lib.tensor(ws, dtype=lib.float32).requires_grad_()
        i = lib.tensor(idx, dtype=lib.int64)
        y = f.embedding(i, w, padding_idx=2)
        with lib.no_grad():
            w.mul_(2)
        (y * 3).sum().backward()
        g, = lib.autograd.grad((f.embedding(i, w) ** 2).sum(), w, create_graph=True)
        (g * g).sum().backward()
        if lib is pyth:
            pg, pgg = w.grad.clone(), g
        else:
            close(pg, w.grad, tol=1e-6)
            close(pgg, g, tol=1e-6)
        y = f.embedding(i, w)
        i.add_(1 if i.numel() else 0)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()
        y = f.embedding(i.clamp(0, 3), w).sum()
        y.backward()
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            y.backward()
    # no indices: zero gradients (PyTorch's create_graph backward fails to reshape them)
    w = pyth.tensor(ws).requires_grad_()
    g, = pyth.autograd.grad(F.embedding(pyth.zeros(0, 2, dtype=pyth.int64), w).sum(), w,
                            create_graph=True)
    assert g.dtype is pyth.float64
    np.testing.assert_array_equal(g.detach().numpy(), np.zeros((4, 3)))


def test_embedding_int32_float32_zero_size_and_scalar_index():
    m = nn.Embedding(4, 2)
    assert m.weight.dtype is pyth.float32
    i32 = pyth.tensor([1, 3], dtype=pyth.int32)
    np.testing.assert_array_equal(m(i32).detach().numpy(), m.weight.detach().numpy()[[1, 3]])
    assert tuple(m(pyth.zeros(0, 3, dtype=pyth.int64)).shape) == (0, 3, 2)
    assert tuple(m(pyth.tensor(2)).shape) == (2,)


def test_embedding_from_pretrained():
    w = pyth.tensor(RNG.standard_normal((3, 2)))
    m = nn.Embedding.from_pretrained(w)
    assert not m.weight.requires_grad
    close(m(pyth.tensor([2, 0])), torch.tensor(w.numpy()[[2, 0]]), tol=1e-10)
    m2 = nn.Embedding.from_pretrained(w, freeze=False, padding_idx=1)
    assert m2.weight.requires_grad and m2.padding_idx == 1
    assert np.all(m2.weight.detach().numpy()[1] != 0)       # pretrained rows are kept
    with pytest.raises(AssertionError, match="2-dimensional"):
        nn.Embedding.from_pretrained(pyth.zeros(3))


def test_embedding_errors():
    m = nn.Embedding(4, 2)
    with pytest.raises(IndexError, match="index 4 is out of range for 4 embeddings"):
        m(pyth.tensor([0, 4]))
    with pytest.raises(IndexError, match="index -1 is out of range"):
        m(pyth.tensor([-1]))
    with pytest.raises(RuntimeError, match="int64 or int32"):
        m(pyth.tensor([0.0, 1.0]))
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        nn.Embedding(4, 2, padding_idx=4)
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        nn.Embedding(4, 2, padding_idx=-5)
    w = m.weight.detach().clone()
    with pytest.raises(IndexError):
        F.embedding(pyth.tensor([9]), w, max_norm=1.0)
    np.testing.assert_array_equal(w.numpy(), m.weight.detach().numpy())  # untouched


# ---- channel dropout ---------------------------------------------------------------------------

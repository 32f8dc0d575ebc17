"""EmbeddingBag (THNN LookupTableBag kernels, generic/THNNLookupTable.c) against PyTorch: the
three modes over offsets with empty bags and 2-D input, include_last_offset, padding_idx,
per_sample_weights, max_norm, scale_grad_by_freq (against embedding + bag sums: PyTorch's own
embedding_bag mis-scales repeated indices), float32/float64, gradcheck, the module and the
errors with PyTorch's exception classes."""

from __future__ import annotations

import numpy as np
import pytest
from _support import close, needs_torch, torch

import pyth
from pyth import nn
from pyth.autograd import gradcheck, gradgradcheck
from pyth.nn import functional as F

RNG = np.random.default_rng(17)
W = RNG.standard_normal((7, 3))
IDX = np.array([1, 2, 4, 5, 4, 3, 2, 0, 6])
OFF = np.array([0, 2, 2, 5, 9])              # bags [1 2] [] [4 5 4] [3 2 0 6] []


def run_both(mode, idx, off, dtype="float64", **kw):
    """(pyth output, torch output, pyth weight, torch weight) with a gradient taken."""
    p = pyth.tensor(W, dtype=getattr(pyth, dtype)).requires_grad_()
    t = torch.tensor(W, dtype=getattr(torch, dtype), requires_grad=True)
    po = pyth.tensor(off) if off is not None else None
    to = torch.tensor(off) if off is not None else None
    y = F.embedding_bag(pyth.tensor(idx), p, po, mode=mode, **kw)
    ty = torch.nn.functional.embedding_bag(torch.tensor(idx), t, to, mode=mode, **kw)
    g = RNG.standard_normal(tuple(ty.shape))
    y.backward(pyth.tensor(g, dtype=y.dtype))
    ty.backward(torch.tensor(g, dtype=ty.dtype))
    return y, ty, p, t


@needs_torch
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("form", ["offsets", "2d", "last_offset"])
def test_embedding_bag_matches_torch(mode, dtype, form):
    if form == "offsets":
        idx, off, kw = IDX, OFF, {}
    elif form == "2d":
        idx, off, kw = IDX[:8].reshape(2, 4), None, {}
    else:
        idx, off, kw = IDX, np.append(OFF, 9), {"include_last_offset": True}
    y, ty, p, t = run_both(mode, idx, off, dtype, **kw)
    tol = 1e-6 if dtype == "float32" else 1e-12
    assert y.dtype is getattr(pyth, dtype) and tuple(y.shape) == tuple(ty.shape)
    close(y, ty, tol)
    close(p.grad, t.grad, tol)


@needs_torch
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_padding_idx_like_torch(mode):
    for pad in (2, -3, 0):
        y, ty, p, t = run_both(mode, IDX, OFF, padding_idx=pad)
        close(y, ty, 1e-12)
        close(p.grad, t.grad, 1e-12)
    # a bag of padding only is empty: zeros, and the mean's count excludes padding
    y, ty, _, _ = run_both(mode, np.array([2, 2, 1, 2, 5]), np.array([0, 2]), padding_idx=2)
    close(y, ty, 1e-12)
    assert np.all(y.detach().numpy()[0] == 0)


@needs_torch
def test_embedding_bag_last_offset_short_of_the_input_like_torch():
    """include_last_offset with offsets[-1] < len(input): the last bag still reaches the end."""
    for mode in ("sum", "mean", "max"):
        y, ty, p, t = run_both(mode, IDX, np.array([0, 2, 2, 5, 7]), include_last_offset=True)
        close(y, ty, 1e-12)
        close(p.grad, t.grad, 1e-12)


@needs_torch
def test_embedding_bag_per_sample_weights_like_torch():
    for form in ("offsets", "2d"):
        idx = IDX if form == "offsets" else IDX[:8].reshape(4, 2)
        off = OFF if form == "offsets" else None
        ps = RNG.random(idx.shape)
        for pad in (None, 4):
            p, t = pyth.tensor(W).requires_grad_(), torch.tensor(W, requires_grad=True)
            pp, tp = pyth.tensor(ps).requires_grad_(), torch.tensor(ps, requires_grad=True)
            y = F.embedding_bag(pyth.tensor(idx), p, None if off is None else pyth.tensor(off),
                                mode="sum", per_sample_weights=pp, padding_idx=pad)
            ty = torch.nn.functional.embedding_bag(
                torch.tensor(idx), t, None if off is None else torch.tensor(off), mode="sum",
                per_sample_weights=tp, padding_idx=pad)
            close(y, ty, 1e-12)
            g = RNG.standard_normal(tuple(ty.shape))
            y.backward(pyth.tensor(g))
            ty.backward(torch.tensor(g))
            close(p.grad, t.grad, 1e-12)
            close(pp.grad, tp.grad, 1e-12)
    # only the weights require grad
    pp = pyth.tensor(RNG.random(9)).requires_grad_()
    tp = torch.tensor(pp.detach().numpy(), requires_grad=True)
    F.embedding_bag(pyth.tensor(IDX), pyth.tensor(W), pyth.tensor(OFF), mode="sum",
                    per_sample_weights=pp).sum().backward()
    torch.nn.functional.embedding_bag(torch.tensor(IDX), torch.tensor(W), torch.tensor(OFF),
                                      mode="sum", per_sample_weights=tp).sum().backward()
    close(pp.grad, tp.grad, 1e-12)


@needs_torch
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_max_norm_renormalises_in_place_like_torch(mode):
    p, t = pyth.tensor(W * 2), torch.tensor(W * 2)
    y = F.embedding_bag(pyth.tensor(IDX[:5]), p, pyth.tensor([0, 3]), max_norm=1.0, mode=mode,
                        norm_type=3.0)
    ty = torch.nn.functional.embedding_bag(torch.tensor(IDX[:5]), t, torch.tensor([0, 3]),
                                           max_norm=1.0, mode=mode, norm_type=3.0)
    close(y, ty, 1e-9)
    close(p, t, 1e-9)                         # rows 1, 2, 4, 5 scaled down, the rest kept
    np.testing.assert_array_equal(p.numpy()[[0, 3, 6]], W[[0, 3, 6]] * 2)


@needs_torch
@pytest.mark.parametrize("mode", ["sum", "mean"])
def test_embedding_bag_scale_grad_by_freq_against_embedding(mode):
    """Each position's share divided by how often its index occurs, as F.embedding does."""
    t = torch.tensor(W, requires_grad=True)
    rows = torch.nn.functional.embedding(torch.tensor(IDX), t, padding_idx=2,
                                         scale_grad_by_freq=True)
    bags = [rows[s:e][torch.tensor(IDX[s:e]) != 2] for s, e in zip(OFF, list(OFF[1:]) + [9])]
    ty = torch.stack([b.sum(0) if mode == "sum" or len(b) == 0 else b.mean(0) for b in bags])
    p = pyth.tensor(W).requires_grad_()
    y = F.embedding_bag(pyth.tensor(IDX), p, pyth.tensor(OFF), mode=mode, padding_idx=2,
                        scale_grad_by_freq=True)
    close(y, ty, 1e-12)
    g = RNG.standard_normal(tuple(ty.shape))
    y.backward(pyth.tensor(g))
    ty.backward(torch.tensor(g))
    close(p.grad, t.grad, 1e-12)


def test_embedding_bag_gradcheck():
    w = pyth.tensor(RNG.standard_normal((6, 3))).requires_grad_()
    idx, off = pyth.tensor([0, 5, 1, 1, 3, 2]), pyth.tensor([0, 2, 2, 4])
    ps = pyth.tensor(RNG.random(6)).requires_grad_()
    for mode in ("sum", "mean", "max"):
        assert gradcheck(lambda a, m=mode: F.embedding_bag(idx, a, off, mode=m), (w,))
    assert gradcheck(lambda a, b: F.embedding_bag(idx, a, off, mode="sum",
                                                  per_sample_weights=b, padding_idx=3), (w, ps))
    # create_graph: the gradients are recorded ops, differentiable again
    assert gradgradcheck(lambda a: F.embedding_bag(idx, a, off, mode="mean") ** 2, (w,))
    assert gradgradcheck(lambda a, b: F.embedding_bag(idx, a, off, mode="sum",
                                                      per_sample_weights=b) ** 2, (w, ps))
    assert gradgradcheck(lambda a: F.embedding_bag(idx, a, off, mode="max") ** 2, (w,))
    for mode, kw in [("mean", {"scale_grad_by_freq": True, "padding_idx": 1}),
                     ("max", {"padding_idx": 5})]:
        g1, = pyth.autograd.grad((F.embedding_bag(idx, w, off, mode=mode, **kw) ** 2).sum(), w,
                                 create_graph=True)
        g2, = pyth.autograd.grad((F.embedding_bag(idx, w, off, mode=mode, **kw) ** 2).sum(), w)
        close(g1, g2.numpy(), 1e-12)


def test_embedding_bag_empty_shapes_and_layouts():
    w = pyth.tensor(W)
    e = pyth.tensor([], dtype=pyth.int64)
    for mode in ("sum", "mean", "max"):
        np.testing.assert_array_equal(F.embedding_bag(e, w, pyth.tensor([0, 0]),
                                                      mode=mode).numpy(), np.zeros((2, 3)))
        assert tuple(F.embedding_bag(pyth.tensor([1]), w, e, mode=mode).shape) == (0, 3)
        assert tuple(F.embedding_bag(pyth.tensor([1]), w, pyth.tensor([0]), mode=mode,
                                     include_last_offset=True).shape) == (0, 3)
        np.testing.assert_array_equal(F.embedding_bag(pyth.zeros(2, 0, dtype=pyth.int64), w,
                                                      mode=mode).numpy(), np.zeros((2, 3)))
        assert tuple(F.embedding_bag(pyth.zeros(0, 4, dtype=pyth.int64), w).shape) == (0, 3)
    # no bags at all: every position's weight gets a zero gradient
    ps = pyth.tensor(RNG.random(3)).requires_grad_()
    y = F.embedding_bag(pyth.tensor([1, 2, 3]), w, e, mode="sum", per_sample_weights=ps)
    y.sum().backward()
    np.testing.assert_array_equal(ps.grad.numpy(), np.zeros(3))
    wt = pyth.tensor(np.ascontiguousarray(W.T)).t()          # non-contiguous weight
    assert not wt.is_contiguous()
    i32 = pyth.tensor(IDX, dtype=pyth.int32)
    want = np.stack([W[IDX[s:e]].sum(0) if e > s else np.zeros(3)
                     for s, e in zip(OFF, list(OFF[1:]) + [9])])
    np.testing.assert_allclose(F.embedding_bag(i32, wt, pyth.tensor(OFF, dtype=pyth.int32),
                                               mode="sum").numpy(), want, rtol=1e-12)
    stepped = pyth.tensor(np.repeat(IDX, 2))[::2]
    np.testing.assert_allclose(F.embedding_bag(stepped, w, pyth.tensor(OFF), mode="sum").numpy(),
                               want, rtol=1e-12)


def test_embedding_bag_threads_agree_with_one_thread():
    w = pyth.tensor(RNG.standard_normal((50, 64)))
    idx = pyth.tensor(RNG.integers(0, 50, 4000))
    off = pyth.tensor(np.sort(RNG.integers(0, 4000, 300)))
    off[0] = 0
    old = pyth.get_grain_size()
    try:
        outs = []
        for grain in (old, 64):
            pyth.set_grain_size(grain)
            outs.append([F.embedding_bag(idx, w, off, mode=m).numpy()
                         for m in ("sum", "mean", "max")])
    finally:
        pyth.set_grain_size(old)
    for a, b in zip(*outs):
        np.testing.assert_array_equal(a, b)


@needs_torch
def test_embedding_bag_module_like_torch():
    for kw in [{}, {"mode": "max", "padding_idx": -1, "max_norm": 1.0, "norm_type": 3.0},
               {"mode": "sum", "scale_grad_by_freq": True, "include_last_offset": True}]:
        m, tm = nn.EmbeddingBag(5, 3, **kw), torch.nn.EmbeddingBag(5, 3, **kw)
        assert repr(m) == repr(tm)
        assert (m.padding_idx, m.mode, m.include_last_offset) == \
            (tm.padding_idx, tm.mode, tm.include_last_offset)
    m = nn.EmbeddingBag(5, 3, padding_idx=-2, dtype=pyth.float64)
    assert m.weight.dtype is pyth.float64 and np.all(m.weight.detach().numpy()[3] == 0)
    tm = torch.nn.EmbeddingBag(5, 3, mode="max", padding_idx=1).double()
    m = nn.EmbeddingBag(5, 3, mode="max", padding_idx=1).double()
    m.load_state_dict({"weight": pyth.tensor(tm.weight.detach().numpy())})
    i, o = [0, 1, 4, 1, 3], [0, 2]
    y, ty = m(pyth.tensor(i), pyth.tensor(o)), tm(torch.tensor(i), torch.tensor(o))
    close(y, ty, 1e-12)
    y.sum().backward()
    ty.sum().backward()
    close(m.weight.grad, tm.weight.grad, 1e-12)
    w = pyth.tensor(W)
    f = nn.EmbeddingBag.from_pretrained(w, mode="sum")
    assert not f.weight.requires_grad and f.mode == "sum"
    close(f(pyth.tensor([[1, 2]])), torch.tensor(W[[1, 2]].sum(0, keepdims=True)), 1e-12)
    f = nn.EmbeddingBag.from_pretrained(w, freeze=False, padding_idx=1)
    assert f.weight.requires_grad and f.padding_idx == 1
    assert np.all(f.weight.detach().numpy()[1] == W[1])      # pretrained rows are kept
    with pytest.raises(AssertionError, match="2-dimensional"):
        nn.EmbeddingBag.from_pretrained(pyth.zeros(3))
    for pad in (5, -6):
        with pytest.raises(AssertionError, match="padding_idx must be within num_embeddings"):
            nn.EmbeddingBag(5, 3, padding_idx=pad)
    with pytest.raises(NotImplementedError, match="sparse"):
        nn.EmbeddingBag(5, 3, sparse=True)
    with pytest.raises(AssertionError, match="Shape of weight"):
        nn.EmbeddingBag(5, 3, _weight=pyth.zeros(4, 3))


def test_embedding_bag_errors():
    w = pyth.tensor(W)
    i, o = pyth.tensor(IDX), pyth.tensor(OFF)
    cases = [
        (RuntimeError, "include_last_offset: number of offset should be at least 1",
         lambda: F.embedding_bag(i, w, o[:0], include_last_offset=True)),
        (RuntimeError, r"offsets\[0\] has to be 0",
         lambda: F.embedding_bag(i, w, pyth.tensor([1, 3]))),
        (RuntimeError, r"offsets\[-1\] can not be greater than input's length 9",
         lambda: F.embedding_bag(i, w, pyth.tensor([0, 10]))),
        (IndexError, r"offsets\[1\] = -3 is out of range",
         lambda: F.embedding_bag(i, w, pyth.tensor([0, -3, 3]))),
        (IndexError, r"offsets\[1\] = 20 is out of range",
         lambda: F.embedding_bag(i, w, pyth.tensor([0, 20, 3]))),
        (RuntimeError, "non-decreasing", lambda: F.embedding_bag(i, w, pyth.tensor([0, 5, 3]))),
        (RuntimeError, "found idx to be 7",
         lambda: F.embedding_bag(pyth.tensor([0, 7]), w, pyth.tensor([0]), mode="max")),
        (RuntimeError, "found idx to be -1",
         lambda: F.embedding_bag(pyth.tensor([0, -1]), w, pyth.tensor([0]))),
        (ValueError, "if input is 2D, then offsets has to be None",
         lambda: F.embedding_bag(i[:8].reshape(2, 4), w, o)),
        (ValueError, "offsets has to be a 1D Tensor but got None", lambda: F.embedding_bag(i, w)),
        (ValueError, "offsets has to be a 1D Tensor$",
         lambda: F.embedding_bag(i, w, o.unsqueeze(0))),
        (ValueError, "input has to be 1D or 2D Tensor, but got Tensor of dimension 3",
         lambda: F.embedding_bag(i[:8].reshape(2, 2, 2), w)),
        (ValueError, "weight has to be a 2D Tensor",
         lambda: F.embedding_bag(i, w[0], o)),
        (ValueError, "mode has to be one of sum, mean or max",
         lambda: F.embedding_bag(i, w, o, mode="min")),
        (ValueError, "max mode does not support scaling the gradient by the frequency",
         lambda: F.embedding_bag(i, w, o, mode="max", scale_grad_by_freq=True)),
        (ValueError, "max mode does not support sparse weights",
         lambda: F.embedding_bag(i, w, o, mode="max", sparse=True)),
        (NotImplementedError, "sparse", lambda: F.embedding_bag(i, w, o, sparse=True)),
        (NotImplementedError, "per_sample_weights is only supported for mode='sum'",
         lambda: F.embedding_bag(i, w, o, per_sample_weights=pyth.ones(9, dtype=pyth.float64))),
        (ValueError, "must have the same shape as the input",
         lambda: F.embedding_bag(i, w, o, mode="sum", per_sample_weights=pyth.ones(8))),
        (RuntimeError, "per_sample_weights of the weight's dtype",
         lambda: F.embedding_bag(i, w, o, mode="sum", per_sample_weights=pyth.ones(9))),
        (RuntimeError, "indices of dtype int64 or int32",
         lambda: F.embedding_bag(i.double(), w, o)),
        (RuntimeError, "offsets of dtype int64 or int32",
         lambda: F.embedding_bag(i, w, o.double())),
        (RuntimeError, "floating point weight", lambda: F.embedding_bag(i, w.long(), o)),
        (RuntimeError, "padding_idx must be within the number of embeddings, -7 through 6",
         lambda: F.embedding_bag(i, w, o, padding_idx=7)),
        (RuntimeError, "but got -8", lambda: F.embedding_bag(i, w, o, padding_idx=-8)),
    ]
    for exc, msg, fn in cases:
        with pytest.raises(exc, match=msg):
            fn()
    # an index out of range under max_norm leaves the weight untouched
    w2 = w.clone()
    with pytest.raises(IndexError):
        F.embedding_bag(pyth.tensor([9]), w2, pyth.tensor([0]), max_norm=0.1)
    np.testing.assert_array_equal(w2.numpy(), W)


@needs_torch
def test_embedding_bag_error_classes_match_torch():
    w = torch.tensor(W)
    i, o = torch.tensor(IDX), torch.tensor(OFF)
    for fn, exc in [(lambda F, t: F.embedding_bag(t(IDX), t(W), t([1, 3])), RuntimeError),
                    (lambda F, t: F.embedding_bag(t(IDX), t(W), t([0, 10])), RuntimeError),
                    (lambda F, t: F.embedding_bag(t(IDX), t(W), t([0, 20, 3])), IndexError),
                    (lambda F, t: F.embedding_bag(t([0, 7]), t(W), t([0])), RuntimeError),
                    (lambda F, t: F.embedding_bag(t(IDX), t(W), t(OFF), mode="x"), ValueError),
                    (lambda F, t: F.embedding_bag(t(IDX), t(W), t(OFF),
                                                  per_sample_weights=t(np.ones(9))),
                     NotImplementedError),
                    (lambda F, t: F.embedding_bag(t(IDX), t(W), t(OFF), padding_idx=7),
                     RuntimeError)]:
        with pytest.raises(exc):
            fn(torch.nn.functional, torch.tensor)
        with pytest.raises(exc):
            fn(F, pyth.tensor)
    del w, i, o

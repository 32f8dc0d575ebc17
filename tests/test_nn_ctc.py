"""CTC loss (THNN CTCLoss kernels, generic/THNNCTC.c) against PyTorch and a brute-force sum over
alignments: values and gradients over reductions, blank positions, padded and concatenated
targets, unequal lengths, zero_infinity, float32/float64, unbatched input; gradcheck; threads;
the length/target checks and their exception classes."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from _support import close, needs_torch, torch

import pyth
from pyth import nn
from pyth.autograd import gradcheck
from pyth.nn import functional as F

RNG = np.random.default_rng(7)


def problem(T=7, N=3, C=5, blank=0, S=4, seed=0):
    """Random unnormalised scores, targets avoiding blank (padded with -1 past each length),
    unequal lengths with one repeated label."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((T, N, C))
    labels = [c for c in range(C) if c != blank]
    tl = [min(S, T // 2 - n % 2) for n in range(N)]
    tl[-1] = max(tl[-1] - 1, 0)
    il = [T - n for n in range(N)]
    tg = np.full((N, S), -1, dtype=np.int64)
    for n in range(N):
        tg[n, :tl[n]] = rng.choice(labels, tl[n])
    if tl[0] >= 2:
        tg[0, 1] = tg[0, 0]                      # a repeat needs a blank between
    return x, tg, il, tl


def concat(tg, tl):
    return np.concatenate([tg[n, :tl[n]] for n in range(len(tl))]).astype(np.int64)


def brute_nll(lp, labels, blank):
    """-log of the sum over every frame labelling that collapses to labels (lp: (T, C))."""
    T, C = lp.shape
    total = 0.0
    for path in itertools.product(range(C), repeat=T):
        out, prev = [], None
        for c in path:
            if c != blank and c != prev:
                out.append(c)
            prev = c
        if out == list(labels):
            total += math.exp(sum(lp[t, c] for t, c in enumerate(path)))
    return -math.log(total) if total > 0 else math.inf


@pytest.mark.parametrize("blank", [0, 2])
def test_ctc_matches_brute_force_over_alignments(blank):
    x = RNG.standard_normal((4, 3, 3))
    lp = x - np.log(np.exp(x).sum(-1, keepdims=True))
    lp[:, 2] = x[:, 2]                               # unnormalised: taken as given
    others = [c for c in range(3) if c != blank]
    tg = np.array([[others[0], others[1]], [others[0], others[0]], [others[1], 0]])
    il, tl = [4, 3, 4], [2, 2, 1]
    got = F.ctc_loss(pyth.tensor(lp), pyth.tensor(tg), il, tl, blank=blank,
                     reduction="none").numpy()
    want = [brute_nll(lp[:il[n], n], tg[n, :tl[n]], blank) for n in range(3)]
    np.testing.assert_allclose(got, want, rtol=1e-12)


@needs_torch
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("layout", ["padded", "concatenated"])
@pytest.mark.parametrize("blank", [0, 4, 2])
def test_ctc_matches_torch_values_and_gradients(reduction, layout, blank):
    x, tg, il, tl = problem(blank=blank, seed=blank)
    targets = tg if layout == "padded" else concat(tg, tl)
    p = pyth.tensor(x).log_softmax(2).detach().requires_grad_()
    t = torch.tensor(x).log_softmax(2).detach().requires_grad_()
    lengths = (pyth.tensor(il), pyth.tensor(tl)) if layout == "padded" else (il, tuple(tl))
    y = F.ctc_loss(p, pyth.tensor(targets), *lengths, blank=blank, reduction=reduction)
    ty = torch.nn.functional.ctc_loss(t, torch.tensor(targets), torch.tensor(il),
                                      torch.tensor(tl), blank=blank, reduction=reduction)
    close(y, ty, 1e-10)
    g = RNG.standard_normal(tuple(ty.shape))
    y.backward(pyth.tensor(g))
    ty.backward(torch.tensor(g))
    close(p.grad, t.grad, 1e-10)


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_ctc_unnormalised_float32_and_noncontiguous_like_torch(dtype):
    x, tg, il, tl = problem(T=9, N=4, C=6, S=3, seed=3)
    xt = np.ascontiguousarray(x.transpose(1, 0, 2))   # (N, T, C) stored: a transposed view
    p = pyth.tensor(xt, dtype=getattr(pyth, dtype)).transpose(0, 1).requires_grad_()
    t = torch.tensor(xt, dtype=getattr(torch, dtype)).transpose(0, 1).requires_grad_()
    assert not p.is_contiguous()
    y = F.ctc_loss(p, pyth.tensor(tg, dtype=pyth.int32), il, tl, reduction="sum")
    ty = torch.nn.functional.ctc_loss(t, torch.tensor(tg), il, tl, reduction="sum")
    assert y.dtype is getattr(pyth, dtype)
    tol = 1e-4 if dtype == "float32" else 1e-10
    close(y, ty, tol)
    y.backward()
    ty.backward()
    close(p.grad, t.grad, tol)


def test_ctc_gradient_is_pytorchs_derivative_plus_exp_log_probs():
    """The gradient for raw log_probs is the derivative plus exp(log_probs) * g per frame
    inside the input length (PyTorch's definition), so a log_softmax in front gradchecks."""
    x, tg, il, tl = problem(T=5, N=2, C=3, S=2, seed=5)
    p = pyth.tensor(x).requires_grad_()
    F.ctc_loss(p, pyth.tensor(tg), il, tl, reduction="sum").backward()
    fd = np.zeros_like(x)
    eps = 1e-6
    for i in np.ndindex(*x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        f = [F.ctc_loss(pyth.tensor(x + s * d), pyth.tensor(tg), il, tl, reduction="sum").item()
             for s in (1, -1)]
        fd[i] = (f[0] - f[1]) / (2 * eps)
    inside = (np.arange(5)[:, None, None] < np.array(il)[None, :, None])
    np.testing.assert_allclose(p.grad.numpy() - np.exp(x) * inside, fd, atol=1e-7)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_ctc_gradcheck_through_log_softmax(reduction):
    x, tg, il, tl = problem(T=5, N=2, C=4, S=2, seed=9)
    w = pyth.tensor(x).requires_grad_()
    targets, il_t, tl_t = pyth.tensor(tg), pyth.tensor(il), pyth.tensor(tl)
    assert gradcheck(lambda a: F.ctc_loss(a.log_softmax(2), targets, il_t, tl_t,
                                          reduction=reduction), (w,))
    # unbatched, concatenated
    assert gradcheck(lambda a: F.ctc_loss(a.log_softmax(1), pyth.tensor([1, 2]), [5], [2],
                                          reduction=reduction), (w[:, 0].detach().requires_grad_(),))


@needs_torch
def test_ctc_zero_infinity_and_impossible_alignments_like_torch():
    x, tg, il, tl = problem(T=6, N=3, C=4, S=3, seed=2)
    il = [2, 6, 0]                      # sample 0: 3 labels in 2 frames; sample 2: no frames
    tl = [3, 2, 1]
    for zi in (False, True):
        p = pyth.tensor(x).log_softmax(2).detach().requires_grad_()
        t = torch.tensor(x).log_softmax(2).detach().requires_grad_()
        y = F.ctc_loss(p, pyth.tensor(tg), il, tl, reduction="none", zero_infinity=zi)
        ty = torch.nn.functional.ctc_loss(t, torch.tensor(tg), il, tl, reduction="none",
                                          zero_infinity=zi)
        np.testing.assert_array_equal(np.isinf(y.detach().numpy()), [not zi, False, not zi])
        close(y, ty, 1e-10)
        y.sum().backward()
        ty.sum().backward()
        np.testing.assert_allclose(p.grad.numpy(), t.grad.numpy(), atol=1e-10)  # nan where torch
        if zi:
            assert np.all(p.grad.numpy()[:, 0] == 0) and np.all(p.grad.numpy()[:, 2] == 0)
        # mean with zero_infinity: inf losses count as 0, divided by their target lengths
        ym = F.ctc_loss(p.detach(), pyth.tensor(tg), il, tl, zero_infinity=zi)
        tym = torch.nn.functional.ctc_loss(t.detach(), torch.tensor(tg), il, tl,
                                           zero_infinity=zi)
        close(ym, tym, 1e-10)


@needs_torch
def test_ctc_empty_targets_and_zero_lengths_like_torch():
    x = RNG.standard_normal((4, 3, 3))
    tg = np.array([[1, 2], [0, 0], [2, 0]])
    il, tl = [4, 0, 3], [0, 0, 1]
    p = pyth.tensor(x).requires_grad_()
    t = torch.tensor(x, requires_grad=True)
    y = F.ctc_loss(p, pyth.tensor(tg), il, tl)
    ty = torch.nn.functional.ctc_loss(t, torch.tensor(tg), il, tl)
    close(y, ty, 1e-10)
    y.backward()
    ty.backward()
    close(p.grad, t.grad, 1e-10)
    assert np.all(p.grad.numpy()[:, 1] == 0)


@needs_torch
def test_ctc_unbatched_and_module():
    x = RNG.standard_normal((6, 4))
    tg = [3, 1, 1]
    for il, tl in [([6], [3]), (pyth.tensor(6), pyth.tensor(3))]:
        for reduction in ("none", "mean", "sum"):
            y = F.ctc_loss(pyth.tensor(x).log_softmax(1), pyth.tensor(tg), il, tl,
                           reduction=reduction)
            ty = torch.nn.functional.ctc_loss(torch.tensor(x).log_softmax(1), torch.tensor(tg),
                                              [6], [3], reduction=reduction)
            assert tuple(y.shape) == tuple(ty.shape) == ()
            close(y, ty, 1e-10)
    m, tm = nn.CTCLoss(blank=2, zero_infinity=True), torch.nn.CTCLoss(blank=2,
                                                                        zero_infinity=True)
    assert repr(m) == repr(tm) == "CTCLoss()"
    assert (m.blank, m.reduction, m.zero_infinity) == (2, "mean", True)
    lp = RNG.standard_normal((5, 2, 3))
    close(m(pyth.tensor(lp), pyth.tensor([0, 1, 1]), (5, 4), (2, 1)),
          tm(torch.tensor(lp), torch.tensor([0, 1, 1]), (5, 4), (2, 1)), 1e-10)
    assert nn.CTCLoss(reduction="sum").reduction == "sum"


def test_ctc_threads_agree_with_one_thread():
    x, tg, il, tl = problem(T=40, N=16, C=12, S=10, seed=4)
    old = pyth.get_grain_size()
    out = []
    try:
        for grain in (old, 64):
            pyth.set_grain_size(grain)
            p = pyth.tensor(x).requires_grad_()
            y = F.ctc_loss(p, pyth.tensor(tg), il, tl, reduction="none")
            y.backward(pyth.tensor(np.arange(16.0)))
            out.append((y.detach().numpy(), p.grad.numpy()))
    finally:
        pyth.set_grain_size(old)
    np.testing.assert_array_equal(out[0][0], out[1][0])
    np.testing.assert_array_equal(out[0][1], out[1][1])
    assert np.all(np.isfinite(out[0][0]))


def test_ctc_padding_past_the_lengths_is_never_read():
    x, tg, il, tl = problem(seed=6)
    a = F.ctc_loss(pyth.tensor(x), pyth.tensor(tg), il, tl, reduction="none").numpy()
    tg2 = tg.copy()
    for n in range(3):
        tg2[n, tl[n]:] = [10**12, -5, 0, 7][: tg.shape[1] - tl[n]]
    b = F.ctc_loss(pyth.tensor(x), pyth.tensor(tg2), il, tl, reduction="none").numpy()
    np.testing.assert_array_equal(a, b)


def test_ctc_create_graph_gradient_is_not_differentiable_again():
    x, tg, il, tl = problem(seed=8)
    p = pyth.tensor(x).requires_grad_()
    g, = pyth.autograd.grad(F.ctc_loss(p, pyth.tensor(tg), il, tl), p, create_graph=True)
    q = pyth.tensor(x).requires_grad_()
    F.ctc_loss(q, pyth.tensor(tg), il, tl).backward()
    close(g, q.grad.numpy(), 0)
    with pytest.raises(RuntimeError, match="derivative of ctc_loss"):
        g.sum().backward()


@needs_torch
def test_ctc_losses_modified_in_place_and_freed_graph_are_caught_like_torch():
    # the backward reads the per-sample losses: changing them in place fails the backward; a
    # retained graph gives the same gradient twice, a freed one refuses a second backward
    x, tg, il, tl = problem(seed=9)
    lp = F.log_softmax(pyth.tensor(x), 2).detach().requires_grad_()
    tlp = torch.tensor(x).log_softmax(2).requires_grad_()
    for lib, f, v in ((pyth, F.ctc_loss, lp), (torch, torch.nn.functional.ctc_loss, tlp)):
        loss = f(v, lib.tensor(tg), il, tl, reduction="none")
        loss.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            loss.sum().backward()
        loss = f(v, lib.tensor(tg), il, tl, reduction="sum")
        loss.backward(retain_graph=True)
        first = v.grad.clone()
        v.grad = None
        loss.backward()
        np.testing.assert_array_equal(v.grad.numpy(), first.numpy())
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            loss.backward()
    close(lp.grad, tlp.grad, 1e-9)


def test_ctc_errors():
    x = pyth.tensor(RNG.standard_normal((5, 2, 4)))
    tg = pyth.tensor([[1, 2], [3, 0]])
    ok = {"input_lengths": [5, 4], "target_lengths": [2, 1]}

    def call(**kw):
        a = {**ok, **kw}
        return F.ctc_loss(x, tg, a["input_lengths"],
                          a["target_lengths"], blank=a.get("blank", 0),
                          reduction=a.get("reduction", "mean"))

    cases = [
        (RuntimeError, "input_lengths to have value at least 0, but got value -1",
         {"input_lengths": [-1, 4]}),
        (RuntimeError, "input_lengths to have value at most 5, but got value 6",
         {"input_lengths": [6, 4]}),
        (RuntimeError, "target_lengths to have value at least 0, but got value -2",
         {"target_lengths": [-2, 1]}),
        (RuntimeError, "targets to have size at least 3 at dimension 1",
         {"target_lengths": [3, 1]}),
        (RuntimeError, r"input_lengths must be of size batch_size \(2\)",
         {"input_lengths": [5]}),
        (RuntimeError, "target_lengths must be of size batch_size",
         {"target_lengths": [2, 1, 1]}),
        (RuntimeError, "blank must be in label range", {"blank": 4}),
        (RuntimeError, "blank must be in label range", {"blank": -1}),
        (RuntimeError, "target 1 .*is the blank label", {"blank": 1}),
        (RuntimeError, "input_lengths must be integral",
         {"input_lengths": pyth.tensor([5.0, 4.0])}),
        (TypeError, "must be a tuple of ints or a tensor", {"input_lengths": 5}),
        (TypeError, "must be a tuple of ints or a tensor", {"target_lengths": [2.0, 1.0]}),
        (ValueError, "foo is not a valid value for reduction", {"reduction": "foo"}),
    ]
    for exc, msg, kw in cases:
        with pytest.raises(exc, match=msg):
            call(**kw)
    for bad, exc, msg in [(4, IndexError, "target 4 .*out of bounds for 4 classes"),
                          (-1, IndexError, "target -1 .*out of bounds"),
                          (10**15, IndexError, "out of bounds")]:
        with pytest.raises(exc, match=msg):
            F.ctc_loss(x, pyth.tensor([[1, bad], [3, 0]]), [5, 4], [2, 1])
    with pytest.raises(RuntimeError, match="targets to have size 3 at dimension 0"):
        F.ctc_loss(x, pyth.tensor([1, 2]), [5, 4], [2, 1])        # concatenated, one short
    with pytest.raises(RuntimeError, match="targets to have size 2 at dimension 0"):
        F.ctc_loss(x, pyth.tensor([[1, 2]]), [5, 4], [1, 1])      # padded, one row
    with pytest.raises(RuntimeError, match="targets of 1 dim .* or 2 dims"):
        F.ctc_loss(x, pyth.tensor([[[1, 2]]]), [5, 4], [1, 1])
    with pytest.raises(RuntimeError, match="3 dims"):
        F.ctc_loss(x.unsqueeze(0), tg, [5, 4], [2, 1])
    with pytest.raises(RuntimeError, match="must not be empty"):
        F.ctc_loss(x[:, :0], tg[:0], [], [])
    with pytest.raises(NotImplementedError, match="ctc_loss"):
        F.ctc_loss(pyth.zeros(5, 2, 4, dtype=pyth.int64), tg, [5, 4], [2, 1])
    with pytest.raises(NotImplementedError, match="ctc_loss"):
        F.ctc_loss(x.half(), tg, [5, 4], [2, 1])


@needs_torch
def test_ctc_error_classes_match_torch():
    x = RNG.standard_normal((5, 2, 4))
    for il, tl, tg in [([-1, 4], [2, 1], [[1, 2], [3, 0]]), ([6, 4], [2, 1], [[1, 2], [3, 0]]),
                       ([5, 4], [3, 1], [[1, 2], [3, 0]]), ([5], [2, 1], [[1, 2], [3, 0]])]:
        with pytest.raises(RuntimeError):
            torch.nn.functional.ctc_loss(torch.tensor(x), torch.tensor(tg), il, tl)
        with pytest.raises(RuntimeError):
            F.ctc_loss(pyth.tensor(x), pyth.tensor(tg), il, tl)

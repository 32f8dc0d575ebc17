"""The ranking, embedding, multi-label and likelihood losses through pyth.nn: margin_ranking,
hinge_embedding, soft_margin, multilabel_soft_margin, cosine_embedding, triplet_margin,
triplet_margin_with_distance, multi_margin, multilabel_margin, poisson_nll and gaussian_nll,
and their modules.

Values and float64 gradients (one seeded upstream gradient) against PyTorch for every loss,
every reduction and the options that change the formula (margins, p, swap, weight, log_input,
full, eps, variance shapes, unbatched inputs, -1 terminated multi-label targets); transposed,
stepped and expanded operands; float32; zero-size batches; integer and mixed dtypes and every
error path by exception class; the legacy size_average / reduce pair. Without PyTorch: values
against numpy references and hand-computed numbers, and gradients under gradcheck for every
loss and reduction. Modules: PyTorch's signatures, attributes, buffers, submodules and reprs.

PyTorch's multi_margin / multilabel_margin kernels return uninitialised memory for the mean
or sum of an empty batch; pyth returns nan and 0 (test_margin_kernels_empty_batch)."""

from __future__ import annotations

import inspect
import math
import warnings

import numpy as np
import pytest
from _support import assert_same, dtype_name, needs_torch, rng, torch

import pyth
from pyth import nn
from pyth.autograd import gradcheck, gradgradcheck
from pyth.nn import functional as F

TF = torch.nn.functional if torch is not None else None
REDUCTIONS = ["none", "mean", "sum"]
NAMES = ["margin_ranking_loss", "hinge_embedding_loss", "soft_margin_loss",
         "multilabel_soft_margin_loss", "cosine_embedding_loss", "triplet_margin_loss",
         "triplet_margin_with_distance_loss", "multi_margin_loss", "multilabel_margin_loss",
         "poisson_nll_loss", "gaussian_nll_loss"]
MODULES = ["MarginRankingLoss", "HingeEmbeddingLoss", "SoftMarginLoss",
           "MultiLabelSoftMarginLoss", "CosineEmbeddingLoss", "TripletMarginLoss",
           "TripletMarginWithDistanceLoss", "MultiMarginLoss", "MultiLabelMarginLoss",
           "PoissonNLLLoss", "GaussianNLLLoss"]


# ==== operands ===================================================================================

def normal(*shape, key=0):
    """Seeded standard-normal values (the same on every run and in any test order)."""
    return rng(shape, "normal", key).standard_normal(shape)


def signs(*shape, key=0):
    """Seeded +1 / -1 values as float64."""
    return np.where(rng(shape, "signs", key).random(shape) < 0.5, -1.0, 1.0)


def uniform(lo, hi, *shape, key=0):
    return rng(shape, "uniform", key).uniform(lo, hi, size=shape)


def labels(n, c, key=0):
    """n class indices in [0, c) as int64."""
    return rng((n, c), "labels", key).integers(0, c, size=n).astype(np.int64)


def bits(*shape, key=0):
    """Seeded 0 / 1 values as float64 (multi-label targets)."""
    return (rng(shape, "bits", key).random(shape) < 0.5).astype(np.float64)


# multilabel_margin targets: targets first, the first -1 ends them (what follows is ignored),
# repeats count once per listing, a full row has no -1, an empty row starts with -1
ML_TARGET = np.array([[3, 0, -1, 1, 2], [1, 1, 4, -1, -1], [-1, 2, 3, 0, 0],
                      [0, 1, 2, 3, 4]], dtype=np.int64)


def g(a):
    """An operand that requires grad (float arrays only)."""
    return (np.asarray(a, dtype=np.float64), True)


def c(a):
    """An operand that does not require grad (targets; int arrays are class indices)."""
    a = np.asarray(a)
    return (a if a.dtype.kind in "iu" else a.astype(np.float64), False)


def cosine_distance(x, y):
    """1 - cosine similarity: a custom distance for triplet_margin_with_distance_loss, in
    whichever library x belongs to."""
    lib = F if isinstance(x, pyth.Tensor) else TF
    return 1 - lib.cosine_similarity(x, y)


# (id, functional name, keyword arguments, operands): each operand (array, requires grad)
CASES = [
    ("mrl", "margin_ranking_loss", {}, [g(normal(6)), g(normal(6, key=1)), g(signs(6))]),
    ("mrl-margin", "margin_ranking_loss", {"margin": 0.4},
     [g(normal(6)), g(normal(6, key=1)), c(signs(6))]),
    ("mrl-broadcast", "margin_ranking_loss", {"margin": -0.2},
     [g(normal(3, 1)), g(normal(1, 4)), c(signs(3, 4))]),
    ("mrl-0d", "margin_ranking_loss", {"margin": 0.5},
     [g(np.array(0.3)), g(np.array(-0.1)), c(np.array(-1.0))]),
    ("hinge", "hinge_embedding_loss", {}, [g(uniform(0, 2, 4, 5)), c(signs(4, 5))]),
    ("hinge-margin-other-targets", "hinge_embedding_loss", {"margin": 0.7},
     [g(normal(4, 5)), c(np.resize([1.0, -1.0, 0.0, 2.0, -1.0], (4, 5)))]),
    ("hinge-broadcast", "hinge_embedding_loss", {}, [g(normal(4, 1)), c(signs(5))]),
    ("soft", "soft_margin_loss", {}, [g(normal(4, 5)), c(signs(4, 5))]),
    ("soft-broadcast", "soft_margin_loss", {}, [g(normal(4, 5)), c(signs(5))]),
    ("soft-1d", "soft_margin_loss", {}, [g(normal(7)), c(normal(7, key=2))]),
    ("mlsm", "multilabel_soft_margin_loss", {}, [g(normal(4, 5)), g(bits(4, 5))]),
    ("mlsm-weight", "multilabel_soft_margin_loss", {},
     [g(normal(4, 5)), c(bits(4, 5)), ("weight", g(uniform(0.5, 2, 5)))]),
    ("mlsm-1d", "multilabel_soft_margin_loss", {}, [g(normal(5)), c(bits(5))]),
    ("mlsm-3d", "multilabel_soft_margin_loss", {}, [g(normal(2, 3, 4)), c(bits(2, 3, 4))]),
    ("cos", "cosine_embedding_loss", {}, [g(normal(4, 5)), g(normal(4, 5, key=1)),
                                          c(signs(4))]),
    ("cos-margin", "cosine_embedding_loss", {"margin": 0.2},
     [g(normal(6, 3)), g(normal(6, 3, key=1)), c([1.0, -1.0, -1.0, 0.0, 1.0, -1.0])]),
    ("cos-broadcast", "cosine_embedding_loss", {"margin": -0.5},
     [g(normal(1, 5)), g(normal(4, 5, key=1)), c(signs(4))]),
    ("cos-1d", "cosine_embedding_loss", {"margin": -0.3},
     [g(normal(5)), g(normal(5, key=1)), c(np.array(-1.0))]),
    ("triplet", "triplet_margin_loss", {}, [g(normal(4, 5)), g(normal(4, 5, key=1)),
                                            g(normal(4, 5, key=2))]),
    ("triplet-p1-swap", "triplet_margin_loss", {"p": 1, "swap": True, "margin": 2.0},
     [g(normal(6, 3)), g(normal(6, 3, key=1)), g(normal(6, 3, key=2))]),
    ("triplet-p3-eps", "triplet_margin_loss", {"p": 3, "eps": 1e-3, "margin": 1.5},
     [g(normal(4, 5)), g(normal(4, 5, key=1)), g(normal(4, 5, key=2))]),
    ("triplet-1d", "triplet_margin_loss", {"margin": 3.0},
     [g(normal(5)), g(normal(5, key=1)), g(normal(5, key=2))]),
    ("triplet-3d-broadcast", "triplet_margin_loss", {"swap": True, "margin": 2.0},
     [g(normal(1, 3, 4)), g(normal(2, 3, 4, key=1)), g(normal(2, 1, 4, key=2))]),
    ("twd", "triplet_margin_with_distance_loss", {"margin": 2.0},
     [g(normal(4, 5)), g(normal(4, 5, key=1)), g(normal(4, 5, key=2))]),
    ("twd-cosine-swap", "triplet_margin_with_distance_loss",
     {"distance_function": cosine_distance, "swap": True, "margin": 0.5},
     [g(normal(6, 3)), g(normal(6, 3, key=1)), g(normal(6, 3, key=2))]),
    ("mm", "multi_margin_loss", {}, [g(normal(5, 4)), c(labels(5, 4))]),
    ("mm-p2-margin-weight", "multi_margin_loss", {"p": 2, "margin": 0.7},
     [g(normal(5, 4)), c(labels(5, 4, key=1)), ("weight", c(uniform(0.5, 2, 4)))]),
    ("mm-1d", "multi_margin_loss", {"margin": 1.5}, [g(normal(6)), c(np.array([2]))]),
    ("mm-1d-0d-target", "multi_margin_loss", {"p": 2}, [g(normal(6)), c(np.array(4))]),
    ("mm-1x4-0d-target", "multi_margin_loss", {}, [g(normal(1, 4)), c(np.array(1))]),
    ("mm-0d", "multi_margin_loss", {}, [g(np.array(0.3)), c(np.array(0))]),
    ("mlm", "multilabel_margin_loss", {}, [g(normal(4, 5)), c(ML_TARGET)]),
    ("mlm-1d", "multilabel_margin_loss", {}, [g(normal(5)), c(ML_TARGET[1])]),
    ("mlm-0d", "multilabel_margin_loss", {}, [g(np.array(0.4)), c(np.array([0]))]),
    ("poisson", "poisson_nll_loss", {}, [g(normal(4, 5)), g(uniform(0, 4, 4, 5))]),
    ("poisson-rate-eps", "poisson_nll_loss", {"log_input": False, "eps": 0.1},
     [g(uniform(0.1, 3, 4, 5)), g(uniform(0, 4, 4, 5))]),
    ("poisson-full", "poisson_nll_loss", {"full": True},
     [g(normal(4, 5)), g(uniform(0.2, 5, 4, 5))]),
    ("poisson-full-counts", "poisson_nll_loss", {"log_input": False, "full": True},
     [g(uniform(0.1, 3, 4, 5)), c(rng("counts").poisson(2.0, (4, 5)).astype(np.float64))]),
    ("poisson-broadcast", "poisson_nll_loss", {"full": True},
     [g(normal(4, 1)), c(uniform(0, 4, 5))]),
    ("gaussian", "gaussian_nll_loss", {}, [g(normal(4, 5)), g(normal(4, 5, key=1)),
                                           g(uniform(0.1, 2, 4, 5))]),
    ("gaussian-full-var-per-sample", "gaussian_nll_loss", {"full": True},
     [g(normal(4, 5)), g(normal(4, 5, key=1)), g(uniform(0.1, 2, 4))]),
    ("gaussian-var-size-1-dim", "gaussian_nll_loss", {"eps": 1e-3},
     [g(normal(2, 3, 4)), g(normal(2, 3, 4, key=1)), g(uniform(0.1, 2, 2, 1, 4))]),
    ("gaussian-target-broadcast", "gaussian_nll_loss", {},
     [g(normal(4, 5)), g(normal(5, key=1)), g(uniform(0.1, 2, 4, 5))]),
    ("gaussian-1d-var-0d", "gaussian_nll_loss", {},
     [g(normal(5)), g(normal(5, key=1)), g(np.array(0.7))]),
]
CASE_IDS = [case[0] for case in CASES]
CASE_ARGS = [case[1:] for case in CASES]
# the first case of each loss: the one the layout, dtype and gradcheck-per-reduction tests use
FIRST = {name: (name, kw, ops) for _, name, kw, ops in reversed(CASES)}


def split(ops):
    """(positional operands, keyword operands) of a case's operand list."""
    pos = [op for op in ops if not isinstance(op[0], str)]
    kws = {op[0]: op[1] for op in ops if isinstance(op[0], str)}
    return pos, kws


def leaf(lib, a, grad, dtype):
    """A pyth (lib pyth) or torch leaf holding a: int64 for integer arrays, else dtype."""
    if a.dtype.kind in "iu":
        return lib.tensor(a, dtype=lib.int64)
    return lib.tensor(a, dtype=getattr(lib, dtype)).requires_grad_(grad)


def call(lib_f, name, kw, ops, dtype="float64", views=None):
    """name(*operands, **kw) through lib_f (F or TF) on fresh leaves; returns (leaves, result);
    each positional operand passes through its view, if any."""
    lib = pyth if lib_f is F else torch
    pos, kws = split(ops)
    leaves = [leaf(lib, a, gr, dtype) for a, gr in pos]
    kleaves = {k: leaf(lib, a, gr, dtype) for k, (a, gr) in kws.items()}
    views = views or [lambda x: x] * len(leaves)
    args = [v(x) for v, x in zip(views, leaves)]
    return leaves + list(kleaves.values()), getattr(lib_f, name)(*args, **kw, **kleaves)


def values(x) -> np.ndarray:
    return np.array(x.detach().tolist(), dtype=np.float64).reshape(tuple(x.shape))


def near(p, t, tol):
    """pyth p and torch t (or an ndarray) agree in shape and within tol (NaN where NaN)."""
    got, want = values(p), values(t) if not isinstance(t, np.ndarray) else t
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol, equal_nan=True)


def run_both(name, kw, ops, dtype="float64", tol=1e-12, views=None):
    """The loss in pyth and PyTorch on the same operands: same dtype, shape and values; then,
    for a non-empty result, backward with one seeded upstream gradient and the same gradient at
    every leaf that requires it. Returns the pyth result."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pl, y = call(F, name, kw, ops, dtype, views)
        tl, ty = call(TF, name, kw, ops, dtype, views)
    assert dtype_name(y) == dtype_name(ty), (y.dtype, ty.dtype)
    near(y, ty, tol)
    if ty.numel() and ty.requires_grad:
        up = rng(tuple(ty.shape), "upstream").standard_normal(tuple(ty.shape))
        y.backward(pyth.tensor(up, dtype=y.dtype))
        ty.backward(torch.tensor(up, dtype=ty.dtype))
        for i, (p, t) in enumerate(zip(pl, tl)):
            if t.requires_grad:
                assert p.grad is not None, f"no gradient reached operand {i}"
                assert p.grad.dtype is p.dtype
                near(p.grad, t.grad, tol)
    return y


# ==== values and gradients against PyTorch =======================================================

@needs_torch
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name,kw,ops", CASE_ARGS, ids=CASE_IDS)
def test_matches_torch(name, kw, ops, reduction):
    """float64 values and gradients, every case in every reduction."""
    y = run_both(name, {**kw, "reduction": reduction}, ops)
    if reduction != "none":
        assert y.dim() == 0


# one operand in a layout: (leaf array, view of the leaf); the view shows the array's values
# (expanded: its first row repeated along dim 0)
def laid_out(a, layout):
    if a.ndim == 0 or layout == "contig":
        return a, lambda x: x
    if layout == "transposed":
        if a.ndim == 1:
            return a, lambda x: x
        return np.ascontiguousarray(a.swapaxes(0, -1)), lambda x: x.transpose(0, -1)
    if layout == "stepped":
        wide = np.zeros(a.shape[:-1] + (2 * a.shape[-1],), a.dtype)
        wide[..., ::2] = a
        return wide, lambda x: x[..., ::2]
    if layout == "expanded":
        return a[:1].copy(), lambda x: x.expand(*a.shape)
    raise ValueError(layout)


@needs_torch
@pytest.mark.parametrize("layout", ["transposed", "stepped", "expanded"])
@pytest.mark.parametrize("name", NAMES)
def test_layouts_match_torch(name, layout):
    """Every positional operand non-contiguous at once; gradients land on the leaves behind
    the views."""
    _, kw, ops = FIRST[name]
    pos, kws = split(ops)
    placed = [laid_out(a, layout) for a, _ in pos]
    new_ops = [(leaf_a, gr) for (leaf_a, _), (_, gr) in zip(placed, pos)] + \
        [(k, v) for k, v in kws.items()]
    for reduction in ("none", "mean"):
        run_both(name, {**kw, "reduction": reduction}, new_ops,
                 views=[view for _, view in placed])


@needs_torch
@pytest.mark.parametrize("name,kw,ops", CASE_ARGS, ids=CASE_IDS)
def test_float32_matches_torch(name, kw, ops):
    """float32 in, float32 out, PyTorch's values and gradients to float32 accuracy."""
    for reduction in ("none", "sum"):
        y = run_both(name, {**kw, "reduction": reduction}, ops, dtype="float32", tol=2e-5)
        assert y.dtype is pyth.float32


# ==== zero-size batches ==========================================================================

EMPTY = [
    ("margin_ranking_loss", {}, [g(np.zeros(0)), g(np.zeros(0)), c(np.zeros(0))]),
    ("hinge_embedding_loss", {}, [g(np.zeros((0, 3))), c(np.zeros((0, 3)))]),
    ("soft_margin_loss", {}, [g(np.zeros((0, 3))), c(np.zeros((0, 3)))]),
    ("multilabel_soft_margin_loss", {}, [g(np.zeros((0, 3))), c(np.zeros((0, 3)))]),
    ("multilabel_soft_margin_loss", {}, [g(np.zeros((2, 0))), c(np.zeros((2, 0)))]),
    ("cosine_embedding_loss", {}, [g(np.zeros((0, 3))), g(np.zeros((0, 3))), c(np.zeros(0))]),
    ("cosine_embedding_loss", {}, [g(np.zeros((2, 0))), g(np.zeros((2, 0))), c(signs(2))]),
    ("triplet_margin_loss", {}, [g(np.zeros((0, 3)))] * 3),
    ("triplet_margin_with_distance_loss", {}, [g(np.zeros((0, 3)))] * 3),
    ("poisson_nll_loss", {"full": True}, [g(np.zeros((0, 3))), c(np.zeros((0, 3)))]),
    ("gaussian_nll_loss", {}, [g(np.zeros((0, 3))), g(np.zeros((0, 3))), g(np.ones((0, 3)))]),
    ("multi_margin_loss", {}, [g(np.zeros((0, 3))), c(np.zeros(0, np.int64))]),
    ("multilabel_margin_loss", {}, [g(np.zeros((0, 3))), c(np.zeros((0, 3), np.int64))]),
]
EMPTY_IDS = [f"{n}-{'x'.join(map(str, ops[0][0].shape))}" for n, _, ops in EMPTY]
KERNELS = ("multi_margin_loss", "multilabel_margin_loss")


@needs_torch
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name,kw,ops", EMPTY, ids=EMPTY_IDS)
def test_empty_matches_torch(name, kw, ops, reduction):
    """Zero-size inputs: PyTorch's shapes and values (nan for the mean of nothing), and a
    backward that gives zero-size (or zero) gradients."""
    if name in KERNELS and reduction != "none":
        pytest.skip("PyTorch returns uninitialised memory (test_margin_kernels_empty_batch)")
    y = run_both(name, {**kw, "reduction": reduction}, ops)
    pl, y = call(F, name, {**kw, "reduction": reduction}, ops)
    y.sum().backward()
    for p in pl:
        if p.requires_grad:
            assert p.grad is not None and tuple(p.grad.shape) == tuple(p.shape)


@pytest.mark.parametrize("name", KERNELS)
def test_margin_kernels_empty_batch(name):
    """An empty batch: 'none' gives (0,), 'sum' 0 and 'mean' nan (the mean of nothing, as every
    other loss) where PyTorch's kernels leave the scalar uninitialised."""
    target = pyth.zeros(0, dtype=pyth.int64) if name == "multi_margin_loss" else \
        pyth.zeros(0, 3, dtype=pyth.int64)
    x = pyth.zeros(0, 3, dtype=pyth.float64).requires_grad_()
    f = getattr(F, name)
    assert tuple(f(x, target, reduction="none").shape) == (0,)
    assert f(x, target, reduction="sum").item() == 0.0
    mean = f(x, target)
    assert tuple(mean.shape) == () and math.isnan(mean.item())
    mean.backward()
    assert tuple(x.grad.shape) == (0, 3)


# ==== gradients under gradcheck (no PyTorch needed) ==============================================

def gradcheck_case(name, kw, ops, check=gradcheck):
    """check (gradcheck or gradgradcheck, float64) of the loss with respect to every operand
    that requires grad, the others held fixed."""
    pos, kws = split(ops)
    tensors = [leaf(pyth, a, gr, "float64") for a, gr in pos]
    ktensors = {k: leaf(pyth, a, gr, "float64") for k, (a, gr) in kws.items()}
    everything = tensors + list(ktensors.values())
    free = [i for i, t in enumerate(everything) if t.requires_grad]

    def fn(*xs):
        args = list(everything)
        for i, x in zip(free, xs):
            args[i] = x
        return getattr(F, name)(*args[:len(tensors)], **kw,
                                **dict(zip(ktensors, args[len(tensors):])))

    assert check(fn, [everything[i] for i in free])


@pytest.mark.parametrize("name,kw,ops", CASE_ARGS, ids=CASE_IDS)
def test_gradcheck(name, kw, ops):
    gradcheck_case(name, {**kw, "reduction": "none"}, ops)


@pytest.mark.parametrize("reduction", ["mean", "sum"])
@pytest.mark.parametrize("name", NAMES)
def test_gradcheck_reductions(name, reduction):
    _, kw, ops = FIRST[name]
    gradcheck_case(name, {**kw, "reduction": reduction}, ops)


@pytest.mark.parametrize("name", NAMES)
def test_gradgradcheck(name):
    """Second derivatives too: the losses are compositions of ops that have them."""
    _, kw, ops = FIRST[name]
    gradcheck_case(name, {**kw, "reduction": "sum"}, ops, gradgradcheck)


@needs_torch
def test_gaussian_var_floor_gradient_matches_torch():
    """var below eps is held at eps in the value, yet its gradient flows as if unclamped
    (1 / (2 eps) - d^2 / (2 eps^2) per element), as PyTorch's."""
    ops = [g(normal(3, 4)), g(normal(3, 4, key=1)), g(uniform(0, 1e-7, 3, 4))]
    for reduction in REDUCTIONS:
        run_both("gaussian_nll_loss", {"reduction": reduction}, ops, tol=1e-9)


@needs_torch
def test_kinks_pass_no_gradient_like_torch():
    """The margin kernels pass no gradient through a hinge exactly at 0 (PyTorch's `z > 0`),
    the composed losses clamp as PyTorch's clamp_min does (gradient 1 at the boundary)."""
    x = np.array([[0.0, 1.0, 0.0, -0.5], [2.0, 1.0, 1.0, 0.25]])
    cases = [("multi_margin_loss", {}, [g(x), c(np.array([1, 0]))]),
             ("multi_margin_loss", {"p": 2}, [g(x), c(np.array([1, 0]))]),
             ("multilabel_margin_loss", {}, [g(x), c(np.array([[1, -1, 0, 0], [0, 3, -1, 0]]))]),
             ("margin_ranking_loss", {}, [g(x[0]), g(x[1]), c(signs(4))]),
             ("hinge_embedding_loss", {}, [g(x), c(-np.ones((2, 4)))]),
             ("cosine_embedding_loss", {}, [g(x), g(x), c(np.array([-1.0, -1.0]))])]
    for name, kw, ops in cases:
        for reduction in REDUCTIONS:
            run_both(name, {**kw, "reduction": reduction}, ops)


# ==== numpy references and hand-computed values (no PyTorch needed) ==============================

def np_reduce(loss, reduction):
    return {"none": loss, "mean": np.mean(loss), "sum": np.sum(loss)}[reduction]


def np_multi_margin(x, y, p=1, margin=1.0, weight=None):
    """The kernel's loops: per sample, sum over i != y of max(0, margin - x[y] + x[i])^p."""
    n, c = x.shape
    out = np.zeros(n)
    for s in range(n):
        for i in range(c):
            z = margin - x[s, y[s]] + x[s, i]
            if i != y[s] and z > 0:
                out[s] += z ** p * (1.0 if weight is None else weight[y[s]])
    return out / c


def np_multilabel_margin(x, y):
    """The kernel's loops: targets before the first -1, hinge against every non-target."""
    n, c = x.shape
    out = np.zeros(n)
    for s in range(n):
        listed = []
        for t in y[s]:
            if t < 0:
                break
            listed.append(t)
        for j in listed:
            for i in range(c):
                z = 1 - x[s, j] + x[s, i]
                if i not in listed and z > 0:
                    out[s] += z
    return out / c


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_margin_kernels_match_numpy(reduction):
    x = normal(5, 4)
    y = labels(5, 4)
    w = uniform(0.5, 2, 4)
    for p, margin, weight in [(1, 1.0, None), (2, 0.7, w), (1, -0.5, w)]:
        got = F.multi_margin_loss(pyth.tensor(x), pyth.tensor(y), p=p, margin=margin,
                                  weight=None if weight is None else pyth.tensor(weight),
                                  reduction=reduction)
        near(got, np.asarray(np_reduce(np_multi_margin(x, y, p, margin, weight), reduction)),
             1e-12)
    xm = normal(4, 5)
    got = F.multilabel_margin_loss(pyth.tensor(xm), pyth.tensor(ML_TARGET), reduction=reduction)
    near(got, np.asarray(np_reduce(np_multilabel_margin(xm, ML_TARGET), reduction)), 1e-12)


def test_multilabel_margin_large_classes_in_blocks(monkeypatch):
    """More (target, class) pairs than one block holds: the blocks add up to the one-block
    result and the kernel's loops."""
    from pyth.nn import _losses
    x = normal(3, 7)
    y = np.array([[6, 0, 2, 5, 1, -1, 3], [4, 4, 4, 4, 4, 4, 4], [0, 1, 2, 3, 4, 5, -1]])
    whole = F.multilabel_margin_loss(pyth.tensor(x), pyth.tensor(y), reduction="none")
    monkeypatch.setattr(_losses, "_PAIR_BLOCK", 3 * 7 * 2)
    blocks = F.multilabel_margin_loss(pyth.tensor(x), pyth.tensor(y), reduction="none")
    near(blocks, values(whole), 1e-15)
    near(blocks, np_multilabel_margin(x, y), 1e-12)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_composed_losses_match_numpy(reduction):
    """The formulas, in numpy: cosine_embedding with its EPSILON, triplet's distances with
    eps, poisson's Stirling term only where target > 1, gaussian's floor at eps."""
    a, b, t = normal(4, 5), normal(4, 5, key=1), np.array([1.0, -1.0, -1.0, 1.0])
    dot, sq1, sq2 = (a * b).sum(1), (a * a).sum(1) + 1e-12, (b * b).sum(1) + 1e-12
    cos = dot / np.sqrt(sq1 * sq2)
    want = np.where(t == 1, 1 - cos, np.maximum(cos - 0.1, 0))
    near(F.cosine_embedding_loss(pyth.tensor(a), pyth.tensor(b), pyth.tensor(t), 0.1,
                                 reduction=reduction), np.asarray(np_reduce(want, reduction)),
         1e-12)
    n = normal(4, 5, key=2)

    def dist(u, v, p):
        return (np.abs(u - v + 1e-6) ** p).sum(-1) ** (1 / p)

    want = np.maximum(1.5 + dist(a, b, 3) - np.minimum(dist(a, n, 3), dist(b, n, 3)), 0)
    near(F.triplet_margin_loss(pyth.tensor(a), pyth.tensor(b), pyth.tensor(n), margin=1.5,
                               p=3, swap=True, reduction=reduction),
         np.asarray(np_reduce(want, reduction)), 1e-12)
    rate, k = uniform(0.1, 3, 6), np.array([0.0, 0.5, 1.0, 1.5, 3.0, 7.0])
    stirling = np.where(k > 1, k * np.log(np.where(k > 0, k, 1)) - k +
                        0.5 * np.log(2 * np.pi * np.where(k > 0, k, 1)), 0)
    want = rate - k * np.log(rate + 1e-8) + stirling
    near(F.poisson_nll_loss(pyth.tensor(rate), pyth.tensor(k), log_input=False, full=True,
                            reduction=reduction), np.asarray(np_reduce(want, reduction)), 1e-12)
    mu, obs, var = normal(6), normal(6, key=1), np.array([1e-9, 0.5, 1.0, 2.0, 0.0, 3.0])
    v = np.maximum(var, 1e-6)
    want = 0.5 * (np.log(v) + (mu - obs) ** 2 / v) + 0.5 * np.log(2 * np.pi)
    near(F.gaussian_nll_loss(pyth.tensor(mu), pyth.tensor(obs), pyth.tensor(var), full=True,
                             reduction=reduction), np.asarray(np_reduce(want, reduction)),
         1e-12)


def test_hand_computed_values():
    """A few values worked out by hand (float64 operands)."""
    def t(v):
        return pyth.tensor(np.asarray(v))
    # max(0, -y (x1 - x2) + m): y=1 with x1 - x2 = 0.5 and m = 1 gives 0.5; y=-1 gives 1.5
    near(F.margin_ranking_loss(t([2.0, 2.0]), t([1.5, 1.5]), t([1.0, -1.0]), 1.0,
                               reduction="none"), np.array([0.5, 1.5]), 0)
    # hinge: y=1 keeps x, y=-1 gives max(0, 1 - x), any other y adds both
    near(F.hinge_embedding_loss(t([0.25, 0.25, 3.0, 0.25]), t([1.0, -1.0, -1.0, 0.0]),
                                reduction="none"), np.array([0.25, 0.75, 0.0, 1.0]), 0)
    # soft margin at x y = 0 is log 2
    near(F.soft_margin_loss(t([0.0, 0.0]), t([1.0, -1.0])), np.array(math.log(2)), 1e-15)
    # multi-margin, one sample x = (0, 0.5, 2), y = 2: the other classes are beyond the margin
    # except none; y = 0: max(0, 1 + 0.5) + max(0, 1 + 2) = 4.5, / 3 classes
    near(F.multi_margin_loss(t([[0.0, 0.5, 2.0], [0.0, 0.5, 2.0]]), t([2, 0]),
                             reduction="none"), np.array([0.0, 1.5]), 1e-15)
    # multilabel margin, x = (0.1, 0.2, 0.4, 0.8), targets 3 and 0: (1 - 0.8 + 0.2) +
    # (1 - 0.8 + 0.4) + (1 - 0.1 + 0.2) + (1 - 0.1 + 0.4) = 3.4, / 4 classes = 0.85
    near(F.multilabel_margin_loss(t([0.1, 0.2, 0.4, 0.8]), t([3, 0, -1, 1])),
         np.array(0.85), 1e-15)
    # poisson with log-rate 0 (rate 1) and target 2: 1 - 0 + Stirling (2 log 2 - 2 +
    # log(4 pi) / 2)
    near(F.poisson_nll_loss(t([0.0]), t([2.0]), full=True),
         np.array(1 + 2 * math.log(2) - 2 + 0.5 * math.log(4 * math.pi)), 1e-15)


# ==== dtypes =====================================================================================

def outcome(lib_f, make):
    """(result, None) or (None, the exception) of make(lib_f, tensor-of-lib)."""
    lib = pyth if lib_f is F else torch
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return make(lib_f, lib.tensor), None
    except Exception as e:  # noqa: BLE001
        return None, e


def same_outcome(make):
    """PyTorch's outcome is the oracle: the same exception class, or the same dtype, shape and
    values. Returns pyth's exception, if any."""
    want, terr = outcome(TF, make)
    got, perr = outcome(F, make)
    if terr is not None:
        assert perr is not None, f"torch raised {type(terr).__name__}: {terr}; pyth returned {got}"
        assert type(perr) is type(terr), (f"pyth raised {type(perr).__name__}: {perr}; torch "
                                          f"{type(terr).__name__}: {terr}")
        assert str(perr), "an exception without a message"
        return perr
    assert perr is None, f"pyth raised {type(perr).__name__}: {perr}; torch returned {want}"
    assert_same(got, want, 1e-6, 1e-6)
    return None


I3, J3 = [1, 2, 3], [1, -1, 1]
INT_CALLS = {
    "margin_ranking_loss": lambda L, t, r: L.margin_ranking_loss(t(I3), t([2, 2, 5]), t(J3),
                                                                 reduction=r),
    "margin_ranking_loss-margin": lambda L, t, r: L.margin_ranking_loss(
        t(I3), t([2, 2, 5]), t(J3), margin=0.5, reduction=r),
    "hinge_embedding_loss": lambda L, t, r: L.hinge_embedding_loss(t(I3), t(J3), reduction=r),
    "hinge_embedding_loss-margin": lambda L, t, r: L.hinge_embedding_loss(
        t([-3, 1, -2]), t([-1, -1, -1]), margin=2.7, reduction=r),
    "soft_margin_loss": lambda L, t, r: L.soft_margin_loss(t(I3), t(J3), reduction=r),
    "multilabel_soft_margin_loss": lambda L, t, r: L.multilabel_soft_margin_loss(
        t([I3]), t([[1, 0, 1]]), reduction=r),
    "cosine_embedding_loss": lambda L, t, r: L.cosine_embedding_loss(
        t([I3, J3]), t([J3, I3]), t([1, -1]), reduction=r),
    "triplet_margin_loss": lambda L, t, r: L.triplet_margin_loss(
        t([I3]), t([J3]), t([[0, 0, 0]]), reduction=r),
    "triplet_margin_with_distance_loss": lambda L, t, r: L.triplet_margin_with_distance_loss(
        t([I3]), t([J3]), t([[0, 0, 0]]), reduction=r),
    "multi_margin_loss": lambda L, t, r: L.multi_margin_loss(t([I3]), t([0]), reduction=r),
    "multilabel_margin_loss": lambda L, t, r: L.multilabel_margin_loss(
        t([I3]), t([[0, -1, 0]]), reduction=r),
    "poisson_nll_loss": lambda L, t, r: L.poisson_nll_loss(t(I3), t([0, 2, 3]), reduction=r),
    "poisson_nll_loss-full-rate": lambda L, t, r: L.poisson_nll_loss(
        t(I3), t([0, 2, 3]), log_input=False, full=True, reduction=r),
    "gaussian_nll_loss": lambda L, t, r: L.gaussian_nll_loss(t(I3), t(J3), t([1, 2, 1]),
                                                             reduction=r),
    "gaussian_nll_loss-float-var": lambda L, t, r: L.gaussian_nll_loss(t(I3), t(J3), 1.5,
                                                                       reduction=r),
}


@needs_torch
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("key", list(INT_CALLS))
def test_integer_inputs_like_torch(key, reduction):
    """Integer operands: PyTorch's result dtype and values where it computes (margins promote
    to float, hinge keeps int64 and truncates its margin), the same exception class where it
    refuses (the kernels' NotImplementedError, mean of an integer loss, in-place casts)."""
    same_outcome(lambda L, t: INT_CALLS[key](L, t, reduction))


def _typed(L, t, values, dtype):
    lib = pyth if L is F else torch
    return t(values, dtype=getattr(lib, dtype))


MIXED_CALLS = {
    "soft-f32-input-f64-target": lambda L, t: L.soft_margin_loss(
        _typed(L, t, [0.5, -1.5], "float32"), _typed(L, t, [1.0, -1.0], "float64"),
        reduction="none"),
    "soft-f64-input-int-target": lambda L, t: L.soft_margin_loss(
        _typed(L, t, [0.5, -1.5], "float64"), t([1, -1]), reduction="none"),
    "mrl-f32-f64": lambda L, t: L.margin_ranking_loss(
        _typed(L, t, [0.5, -1.5], "float32"), _typed(L, t, [1.0, 2.0], "float64"),
        t([1.0, -1.0]), reduction="none"),
    "mrl-bool-target": lambda L, t: L.margin_ranking_loss(
        t([0.5, 1.0]), t([1.0, 0.0]), t([True, False])),
    "cos-int-target": lambda L, t: L.cosine_embedding_loss(
        t([[1.0, 2.0], [0.5, -1.0]]), t([[2.0, 1.0], [1.0, 1.0]]), t([1, -1]),
        reduction="none"),
    "gaussian-f32-f64-var": lambda L, t: L.gaussian_nll_loss(
        _typed(L, t, [0.5, -1.5], "float32"), _typed(L, t, [0.0, 1.0], "float32"),
        _typed(L, t, [1.0, 2.0], "float64"), reduction="none"),
    "gaussian-int-var": lambda L, t: L.gaussian_nll_loss(t([0.5, 1.0]), t([0.0, 1.0]),
                                                         t([1, 2])),
    "poisson-f32-f64": lambda L, t: L.poisson_nll_loss(
        _typed(L, t, [0.5, -1.5], "float32"), _typed(L, t, [2.0, 3.0], "float64"),
        full=True, reduction="none"),
    "mm-int32-target": lambda L, t: L.multi_margin_loss(t([[0.5, 1.0]]),
                                                        _typed(L, t, [1], "int32")),
    "mm-float-target": lambda L, t: L.multi_margin_loss(t([[0.5, 1.0]]), t([1.0])),
    "mm-f64-weight-f32-input": lambda L, t: L.multi_margin_loss(
        t([[0.5, 1.0]]), t([1]), weight=_typed(L, t, [1.0, 2.0], "float64")),
    "mm-float16": lambda L, t: L.multi_margin_loss(
        _typed(L, t, [[0.5, 1.0]], "float16"), t([1])),
    "mlm-int32-target": lambda L, t: L.multilabel_margin_loss(
        t([[0.5, 1.0]]), _typed(L, t, [[1, -1]], "int32")),
    "mlm-bfloat16": lambda L, t: L.multilabel_margin_loss(
        _typed(L, t, [[0.5, 1.0]], "bfloat16"), t([[1, -1]])),
    "mlsm-int-target": lambda L, t: L.multilabel_soft_margin_loss(
        t([[0.5, -1.0]]), t([[1, 0]]), reduction="none"),
    "hinge-bool-input": lambda L, t: L.hinge_embedding_loss(t([True, False]), t([1, -1])),
    "hinge-bool-target": lambda L, t: L.hinge_embedding_loss(t([0.5, 2.0]), t([True, False]),
                                                             reduction="none"),
    # half and bfloat16 through the composed losses (the kernels refuse them, above)
    "soft-float16": lambda L, t: L.soft_margin_loss(
        _typed(L, t, [0.5, -1.5], "float16"), _typed(L, t, [1.0, -1.0], "float16"),
        reduction="none"),
    "mrl-float16": lambda L, t: L.margin_ranking_loss(
        *[_typed(L, t, v, "float16") for v in ([0.5, -1.5], [1.0, -1.0], [1.0, -1.0])],
        reduction="none"),
    "cos-float16": lambda L, t: L.cosine_embedding_loss(
        _typed(L, t, [[0.5, -1.5]], "float16"), _typed(L, t, [[1.0, -1.0]], "float16"),
        t([1.0]), reduction="none"),
    "triplet-float16": lambda L, t: L.triplet_margin_loss(
        *[_typed(L, t, v, "float16") for v in ([[0.5, -1.5]], [[1.0, 3.0]], [[2.0, 3.0]])],
        reduction="none"),
    "mlsm-float16": lambda L, t: L.multilabel_soft_margin_loss(
        _typed(L, t, [[0.5, -1.5]], "float16"), _typed(L, t, [[1.0, 0.0]], "float16"),
        reduction="none"),
    "gaussian-float16": lambda L, t: L.gaussian_nll_loss(
        *[_typed(L, t, v, "float16") for v in ([0.5, -1.5], [1.0, 3.0], [1.0, 3.0])],
        reduction="none"),
    "poisson-bfloat16": lambda L, t: L.poisson_nll_loss(
        _typed(L, t, [0.5, -1.5], "bfloat16"), _typed(L, t, [1.0, 3.0], "bfloat16"),
        full=True, reduction="none"),
    # odd values and shapes PyTorch accepts
    "gaussian-nan-var": lambda L, t: L.gaussian_nll_loss(
        t([0.5, 1.0]), t([0.0, 1.0]), t([math.nan, 1.0]), reduction="none"),
    "gaussian-var-1-for-empty": lambda L, t: L.gaussian_nll_loss(t([]), t([]), t([1.0]),
                                                                 reduction="none"),
    "gaussian-var-0d-for-2d": lambda L, t: L.gaussian_nll_loss(
        t([[0.5, 1.0]]), t([[0.0, 1.0]]), t(1.0), reduction="none"),
    "mm-int-margin": lambda L, t: L.multi_margin_loss(t([[0.5, 1.0]]), t([1]), margin=2),
    "mm-0d-target-for-2-samples": lambda L, t: L.multi_margin_loss(
        t([[0.5, 1.0], [1.0, 2.0]]), t(1)),
    "mlm-no-targets": lambda L, t: L.multilabel_margin_loss(t([[0.5, 1.0]]), t([[-1, -1]])),
    "mlm-1-class-0d-target": lambda L, t: L.multilabel_margin_loss(t([0.5]), t(0)),
    "cos-target-neither-1-nor-minus-1": lambda L, t: L.cosine_embedding_loss(
        t([[0.5, 1.0]]), t([[1.0, 1.0]]), t([2.0]), reduction="none"),
    "poisson-negative-target-full": lambda L, t: L.poisson_nll_loss(
        t([0.5, 1.0]), t([-2.0, 5.0]), full=True, reduction="none"),
    "triplet-p0": lambda L, t: L.triplet_margin_loss(t([[0.5, 1.0]]), t([[1.0, 1.0]]),
                                                     t([[2.0, 1.0]]), p=0),
    "triplet-p-inf": lambda L, t: L.triplet_margin_loss(t([[0.5, 1.0]]), t([[1.0, 1.0]]),
                                                        t([[2.0, 1.0]]), p=math.inf),
    "triplet-p-negative": lambda L, t: L.triplet_margin_loss(t([[0.5, 1.0]]), t([[1.0, 1.0]]),
                                                             t([[2.0, 1.0]]), p=-1),
    "mlsm-weight-wrong-size": lambda L, t: L.multilabel_soft_margin_loss(
        t([[0.5, 1.0]]), t([[1.0, 0.0]]), weight=t([1.0, 2.0, 3.0])),
    "soft-0d": lambda L, t: L.soft_margin_loss(t(0.5), t(1.0)),
}


@needs_torch
@pytest.mark.parametrize("key", list(MIXED_CALLS))
def test_mixed_dtypes_and_odd_inputs_like_torch(key):
    """Mixed, bool, half and bfloat16 operands and odd values or shapes: PyTorch's result
    dtype, shape and values, or its exception class."""
    same_outcome(MIXED_CALLS[key])


# ==== errors =====================================================================================

def fl(L, t, *shape):
    """A float tensor of shape (seeded values) in library L."""
    return t(normal(*shape).tolist() if shape else 0.5)


def lg(L, t, v):
    """An int64 tensor of values v in library L."""
    return t(v)


# (id, call (L, tensor) -> loss, words pyth's message must hold)
ERRORS = [
    ("bad-reduction", lambda L, t: L.margin_ranking_loss(fl(L, t, 3), fl(L, t, 3),
                                                         fl(L, t, 3), reduction="avg"),
     ["avg", "reduction"]),
    ("mrl-dims", lambda L, t: L.margin_ranking_loss(fl(L, t, 3), fl(L, t, 3), fl(L, t, 1, 3)),
     ["margin_ranking_loss", r"\[1, 3\]"]),
    ("mrl-shapes", lambda L, t: L.margin_ranking_loss(fl(L, t, 3), fl(L, t, 4), fl(L, t, 3)),
     ["3", "4"]),
    ("hinge-bad-reduction", lambda L, t: L.hinge_embedding_loss(fl(L, t, 3), fl(L, t, 3),
                                                                reduction="max"), ["max"]),
    ("hinge-shapes", lambda L, t: L.hinge_embedding_loss(fl(L, t, 3), fl(L, t, 4)),
     ["3", "4"]),
    ("soft-target-wider", lambda L, t: L.soft_margin_loss(fl(L, t, 2), fl(L, t, 3, 2)),
     ["soft_margin_loss", r"\[3, 2\]"]),
    ("soft-bad-reduction", lambda L, t: L.soft_margin_loss(fl(L, t, 2), fl(L, t, 2),
                                                           reduction="x"), ["x"]),
    ("mlsm-0d", lambda L, t: L.multilabel_soft_margin_loss(fl(L, t), fl(L, t)),
     ["multilabel_soft_margin_loss", "0-dim"]),
    ("mlsm-bad-reduction", lambda L, t: L.multilabel_soft_margin_loss(
        fl(L, t, 2, 3), fl(L, t, 2, 3), reduction="avg"), ["avg is not valid"]),
    ("cos-2d-target", lambda L, t: L.cosine_embedding_loss(fl(L, t, 2, 3), fl(L, t, 2, 3),
                                                           fl(L, t, 2, 1)),
     ["cosine_embedding_loss", "target"]),
    ("cos-3d-input", lambda L, t: L.cosine_embedding_loss(fl(L, t, 2, 3, 1), fl(L, t, 2, 3, 1),
                                                          fl(L, t, 2)),
     ["cosine_embedding_loss", r"\[2, 3, 1\]"]),
    ("cos-0d-target-2d-input", lambda L, t: L.cosine_embedding_loss(
        fl(L, t, 2, 3), fl(L, t, 2, 3), fl(L, t)), ["0-D target", "1-D inputs"]),
    ("cos-target-size", lambda L, t: L.cosine_embedding_loss(
        fl(L, t, 2, 3), fl(L, t, 2, 3), fl(L, t, 3)), ["2", "3"]),
    ("triplet-dims", lambda L, t: L.triplet_margin_loss(fl(L, t, 2, 3), fl(L, t, 2, 3),
                                                        fl(L, t, 3)),
     ["triplet_margin_loss", "negative"]),
    ("triplet-margin-0", lambda L, t: L.triplet_margin_loss(fl(L, t, 2, 3), fl(L, t, 2, 3),
                                                            fl(L, t, 2, 3), margin=0),
     ["margin", "greater than 0"]),
    ("triplet-shapes", lambda L, t: L.triplet_margin_loss(fl(L, t, 2, 3), fl(L, t, 2, 4),
                                                          fl(L, t, 2, 3)), ["3", "4"]),
    ("twd-dims", lambda L, t: L.triplet_margin_with_distance_loss(
        fl(L, t, 2, 3), fl(L, t, 2, 3), fl(L, t, 3)), ["negative"]),
    ("twd-margin-neg", lambda L, t: L.triplet_margin_with_distance_loss(
        fl(L, t, 2, 3), fl(L, t, 2, 3), fl(L, t, 2, 3), margin=-1.0), ["margin"]),
    ("twd-bad-reduction", lambda L, t: L.triplet_margin_with_distance_loss(
        fl(L, t, 2, 3), fl(L, t, 2, 3), fl(L, t, 2, 3), reduction="avg"), ["avg"]),
    ("twd-positional-distance", lambda L, t: L.triplet_margin_with_distance_loss(
        fl(L, t, 2, 3), fl(L, t, 2, 3), fl(L, t, 2, 3), None), ["positional|argument"]),
    ("mm-p3", lambda L, t: L.multi_margin_loss(fl(L, t, 2, 3), lg(L, t, [0, 1]), p=3),
     ["p == 1"]),
    ("mm-weight-2d", lambda L, t: L.multi_margin_loss(fl(L, t, 2, 3), lg(L, t, [0, 1]),
                                                      weight=fl(L, t, 1, 3)),
     ["one-dimensional"]),
    ("mm-weight-size", lambda L, t: L.multi_margin_loss(fl(L, t, 2, 3), lg(L, t, [0, 1]),
                                                        weight=fl(L, t, 4)),
     ["weight", "3", r"\[4\]"]),
    ("mm-target-oob", lambda L, t: L.multi_margin_loss(fl(L, t, 2, 3), lg(L, t, [0, 3])),
     ["out of range", "3"]),
    ("mm-target-negative", lambda L, t: L.multi_margin_loss(fl(L, t, 2, 3), lg(L, t, [0, -1])),
     ["out of range"]),
    ("mm-target-size", lambda L, t: L.multi_margin_loss(fl(L, t, 2, 3), lg(L, t, [0, 1, 1])),
     ["target", r"\[3\]", r"\[2, 3\]"]),
    ("mm-target-2d", lambda L, t: L.multi_margin_loss(fl(L, t, 2, 3), lg(L, t, [[0], [1]])),
     ["target", r"\[2, 1\]"]),
    ("mm-3d", lambda L, t: L.multi_margin_loss(fl(L, t, 2, 3, 4), lg(L, t, [0, 1])),
     [r"\[2, 3, 4\]"]),
    ("mm-no-classes", lambda L, t: L.multi_margin_loss(fl(L, t, 2, 0), lg(L, t, [0, 1])),
     [r"\[2, 0\]"]),
    ("mm-bad-reduction", lambda L, t: L.multi_margin_loss(fl(L, t, 2, 3), lg(L, t, [0, 1]),
                                                          reduction="avg"), ["avg"]),
    ("mlm-target-oob", lambda L, t: L.multilabel_margin_loss(
        fl(L, t, 2, 3), lg(L, t, [[0, 3, -1], [1, -1, 0]])), ["out of range"]),
    ("mlm-target-below-minus-1", lambda L, t: L.multilabel_margin_loss(
        fl(L, t, 2, 3), lg(L, t, [[0, -2, -1], [1, -1, 0]])), ["out of range", "-2"]),
    ("mlm-target-shape", lambda L, t: L.multilabel_margin_loss(
        fl(L, t, 2, 3), lg(L, t, [[0, 1], [1, -1]])), [r"\[2, 2\]", r"\[2, 3\]"]),
    ("mlm-1d-target-size", lambda L, t: L.multilabel_margin_loss(
        fl(L, t, 3), lg(L, t, [0, -1])), [r"\[2\]", r"\[3\]"]),
    ("mlm-3d", lambda L, t: L.multilabel_margin_loss(fl(L, t, 1, 3, 2), lg(L, t, [[0, 1, -1]])),
     [r"\[1, 3, 2\]"]),
    ("mlm-no-classes", lambda L, t: L.multilabel_margin_loss(
        fl(L, t, 2, 0), t(np.zeros((2, 0), np.int64))), [r"\[2, 0\]"]),
    ("poisson-bad-reduction", lambda L, t: L.poisson_nll_loss(fl(L, t, 3), fl(L, t, 3),
                                                              reduction="avg"), ["avg"]),
    ("poisson-elementwise-mean", lambda L, t: L.poisson_nll_loss(
        fl(L, t, 3), fl(L, t, 3), reduction="elementwise_mean"), ["elementwise_mean"]),
    ("poisson-shapes", lambda L, t: L.poisson_nll_loss(fl(L, t, 3), fl(L, t, 4)), ["3", "4"]),
    ("gaussian-negative-var", lambda L, t: L.gaussian_nll_loss(
        fl(L, t, 4, 3), fl(L, t, 4, 3), -t(np.ones((4, 3)))), ["negative"]),
    ("gaussian-negative-float-var", lambda L, t: L.gaussian_nll_loss(
        fl(L, t, 4, 3), fl(L, t, 4, 3), -1.0), ["negative"]),
    ("gaussian-int-var-number", lambda L, t: L.gaussian_nll_loss(
        fl(L, t, 4, 3), fl(L, t, 4, 3), 1), ["var", "int"]),
    ("gaussian-var-two-mismatches", lambda L, t: L.gaussian_nll_loss(
        fl(L, t, 4, 3, 2), fl(L, t, 4, 3, 2), t(np.ones((4, 1, 1)))), ["incorrect size"]),
    ("gaussian-var-wrong-size", lambda L, t: L.gaussian_nll_loss(
        fl(L, t, 4, 3), fl(L, t, 4, 3), t(np.ones((4, 2)))), ["incorrect size"]),
    ("gaussian-var-extra-dim", lambda L, t: L.gaussian_nll_loss(
        fl(L, t, 2), fl(L, t, 2), t(np.ones((2, 1)))), ["incorrect size"]),
    ("gaussian-var-for-0d-input", lambda L, t: L.gaussian_nll_loss(
        fl(L, t), fl(L, t), t(np.ones(1))), ["incorrect size"]),
    ("gaussian-bad-reduction", lambda L, t: L.gaussian_nll_loss(
        fl(L, t, 3), fl(L, t, 3), t(np.ones(3)), reduction="avg"), ["avg is not valid"]),
    ("gaussian-shapes", lambda L, t: L.gaussian_nll_loss(
        fl(L, t, 3), fl(L, t, 4), t(np.ones(3))), ["3", "4"]),
]


@needs_torch
@pytest.mark.parametrize("make,words", [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_errors_like_torch(make, words):
    """Every error path raises PyTorch's exception class, with a message that says what is
    wrong."""
    err = same_outcome(make)
    assert err is not None, "torch accepted the call"
    for w in words:
        assert __import__("re").search(w, str(err)), (w, str(err))


@needs_torch
def test_elementwise_mean_still_means_mean():
    """The losses PyTorch runs natively still take the old name 'elementwise_mean' (with a
    warning); poisson, gaussian and multilabel_soft_margin do not (above)."""
    x, y = normal(3, 4), normal(3, 4, key=1)
    with pytest.warns(UserWarning, match="elementwise_mean"):
        got = F.soft_margin_loss(pyth.tensor(x), pyth.tensor(y), reduction="elementwise_mean")
    near(got, values(TF.soft_margin_loss(torch.tensor(x), torch.tensor(y))), 1e-12)


# ==== the legacy size_average / reduce pair =====================================================

LEGACY = [(None, None), (True, None), (False, None), (None, True), (None, False),
          (True, True), (False, True), (True, False), (False, False)]
LEGACY_CALLS = {
    "margin_ranking_loss": [g(normal(5)), g(normal(5, key=1)), c(signs(5))],
    "hinge_embedding_loss": [g(normal(5)), c(signs(5))],
    "soft_margin_loss": [g(normal(5)), c(signs(5))],
    "multilabel_soft_margin_loss": [g(normal(3, 4)), c(bits(3, 4))],
    "cosine_embedding_loss": [g(normal(3, 4)), g(normal(3, 4, key=1)), c(signs(3))],
    "triplet_margin_loss": [g(normal(3, 4)), g(normal(3, 4, key=1)), g(normal(3, 4, key=2))],
    "multi_margin_loss": [g(normal(3, 4)), c(labels(3, 4))],
    "multilabel_margin_loss": [g(normal(4, 5)), c(ML_TARGET)],
    "poisson_nll_loss": [g(normal(5)), c(uniform(0, 3, 5))],
}


@needs_torch
@pytest.mark.parametrize("name", list(LEGACY_CALLS))
def test_legacy_size_average_reduce(name):
    """Each (size_average, reduce) pair selects PyTorch's reduction, overriding reduction=,
    with PyTorch's deprecation warning."""
    for size_average, reduce in LEGACY:
        kw = {"size_average": size_average, "reduce": reduce, "reduction": "none"}
        run_both(name, kw, LEGACY_CALLS[name])
        if (size_average, reduce) != (None, None):
            with pytest.warns(UserWarning, match="size_average and reduce"):
                call(F, name, kw, LEGACY_CALLS[name])


# ==== modules ====================================================================================

def signature_of(f) -> list:
    """(name, kind, default) of each parameter (annotations aside)."""
    return [(p.name, p.kind, p.default) for p in inspect.signature(f).parameters.values()]


@needs_torch
@pytest.mark.parametrize("name", NAMES)
def test_function_signatures_match_torch(name):
    assert signature_of(getattr(F, name)) == signature_of(getattr(TF, name))


@needs_torch
@pytest.mark.parametrize("name", MODULES)
def test_module_signatures_match_torch(name):
    ours, theirs = getattr(nn, name), getattr(torch.nn, name)
    assert signature_of(ours.__init__) == signature_of(theirs.__init__)
    assert signature_of(ours.forward) == signature_of(theirs.forward)
    assert name in nn.__all__ and name in nn.modules.__all__


# (module, constructor arguments, attributes to compare, forward operands, functional name)
MODULE_CASES = [
    ("MarginRankingLoss", {"margin": 0.3, "reduction": "sum"}, ["margin", "reduction"],
     LEGACY_CALLS["margin_ranking_loss"], "margin_ranking_loss"),
    ("HingeEmbeddingLoss", {"margin": 0.5}, ["margin", "reduction"],
     LEGACY_CALLS["hinge_embedding_loss"], "hinge_embedding_loss"),
    ("SoftMarginLoss", {"reduction": "none"}, ["reduction"], LEGACY_CALLS["soft_margin_loss"],
     "soft_margin_loss"),
    ("MultiLabelSoftMarginLoss", {"weight": uniform(0.5, 2, 4)}, ["reduction", "weight"],
     LEGACY_CALLS["multilabel_soft_margin_loss"], "multilabel_soft_margin_loss"),
    ("CosineEmbeddingLoss", {"margin": -0.2}, ["margin", "reduction"],
     LEGACY_CALLS["cosine_embedding_loss"], "cosine_embedding_loss"),
    ("TripletMarginLoss", {"margin": 2.0, "p": 1.0, "eps": 1e-3, "swap": True},
     ["margin", "p", "eps", "swap", "reduction"], LEGACY_CALLS["triplet_margin_loss"],
     "triplet_margin_loss"),
    ("TripletMarginWithDistanceLoss", {"margin": 1.5, "swap": True, "reduction": "sum"},
     ["margin", "swap", "reduction"], LEGACY_CALLS["triplet_margin_loss"],
     "triplet_margin_with_distance_loss"),
    ("MultiMarginLoss", {"p": 2, "margin": 0.5, "weight": uniform(0.5, 2, 4)},
     ["p", "margin", "reduction", "weight"], LEGACY_CALLS["multi_margin_loss"],
     "multi_margin_loss"),
    ("MultiLabelMarginLoss", {"reduction": "none"}, ["reduction"],
     LEGACY_CALLS["multilabel_margin_loss"], "multilabel_margin_loss"),
    ("PoissonNLLLoss", {"log_input": False, "full": True, "eps": 1e-4},
     ["log_input", "full", "eps", "reduction"],
     [g(uniform(0.1, 2, 5)), c(uniform(0, 3, 5))], "poisson_nll_loss"),
    ("GaussianNLLLoss", {"full": True, "eps": 1e-3, "reduction": "none"},
     ["full", "eps", "reduction"],
     [g(normal(3, 4)), g(normal(3, 4, key=1)), g(uniform(0.1, 2, 3))], "gaussian_nll_loss"),
]


def build(lib, name, kwargs):
    """The module of library lib (pyth or torch) with kwargs (arrays become float64 tensors)."""
    made = {k: lib.tensor(v, dtype=lib.float64) if isinstance(v, np.ndarray) else v
            for k, v in kwargs.items()}
    return getattr(lib.nn, name)(**made)


@needs_torch
@pytest.mark.parametrize("name,kwargs,attrs,ops,fname", MODULE_CASES,
                         ids=[m[0] for m in MODULE_CASES])
def test_modules_match_torch(name, kwargs, attrs, ops, fname):
    """Attributes, buffers, submodules and repr as PyTorch's; forward is the functional form
    with the module's settings, on the values and gradients PyTorch gives."""
    pm, tm = build(pyth, name, kwargs), build(torch, name, kwargs)
    for a in attrs:
        pv, tv = getattr(pm, a), getattr(tm, a)
        if hasattr(tv, "detach"):
            near(pv, tv, 0)
        else:
            assert pv == tv, (a, pv, tv)
    assert repr(pm) == repr(tm)
    assert list(pm.state_dict()) == list(tm.state_dict())
    assert [k for k, _ in pm.named_buffers()] == [k for k, _ in tm.named_buffers()]
    assert list(dict(pm.named_children())) == list(dict(tm.named_children()))
    pl, y = call(F, fname, {}, ops)
    tl, ty = call(TF, fname, {}, ops)
    y, ty = pm(*pl), tm(*tl)
    near(y, ty, 1e-12)
    y.sum().backward()
    ty.sum().backward()
    for p, t in zip(pl, tl):
        if t.requires_grad:
            near(p.grad, t.grad, 1e-12)


def test_module_defaults_and_reprs():
    """The defaults, and the reprs PyTorch prints (no settings shown; the triplet distance loss
    shows its PairwiseDistance submodule)."""
    for name in MODULES:
        m = getattr(nn, name)()
        assert m.reduction == "mean"
        if name != "TripletMarginWithDistanceLoss":
            assert repr(m) == f"{name}()"
    assert nn.MarginRankingLoss().margin == 0.0 and nn.CosineEmbeddingLoss().margin == 0.0
    assert nn.HingeEmbeddingLoss().margin == 1.0
    t = nn.TripletMarginLoss()
    assert (t.margin, t.p, t.eps, t.swap) == (1.0, 2.0, 1e-6, False)
    m = nn.MultiMarginLoss()
    assert (m.p, m.margin, m.weight) == (1, 1.0, None)
    p = nn.PoissonNLLLoss()
    assert (p.log_input, p.full, p.eps) == (True, False, 1e-8)
    gl = nn.GaussianNLLLoss()
    assert (gl.full, gl.eps) == (False, 1e-6)
    d = nn.TripletMarginWithDistanceLoss()
    assert isinstance(d.distance_function, nn.PairwiseDistance)
    assert repr(d) == "TripletMarginWithDistanceLoss(\n  (distance_function): PairwiseDistance()\n)"
    custom = nn.TripletMarginWithDistanceLoss(distance_function=cosine_distance)
    assert custom.distance_function is cosine_distance and list(custom.children()) == []
    assert repr(custom) == "TripletMarginWithDistanceLoss()"
    assert nn.MultiMarginLoss(size_average=False).reduction == "sum"
    assert nn.MultiLabelMarginLoss(reduce=False).reduction == "none"
    assert nn.PoissonNLLLoss(size_average=True, reduce=True).reduction == "mean"


@needs_torch
@pytest.mark.parametrize("make", [
    lambda nn_, t: nn_.MultiMarginLoss(p=3),
    lambda nn_, t: nn_.MultiMarginLoss(weight=t(np.ones((2, 3)))),
    lambda nn_, t: nn_.TripletMarginLoss(margin=0.0),
    lambda nn_, t: nn_.TripletMarginLoss(margin=-1.0),
    lambda nn_, t: nn_.TripletMarginWithDistanceLoss(margin=0),
    lambda nn_, t: nn_.TripletMarginWithDistanceLoss(cosine_distance),
    lambda nn_, t: nn_.GaussianNLLLoss(True),
], ids=["mm-p3", "mm-weight-2d", "triplet-margin-0", "triplet-margin-neg", "twd-margin-0",
        "twd-positional", "gaussian-positional"])
def test_module_constructor_errors_like_torch(make):
    with pytest.raises(Exception) as theirs:
        make(torch.nn, torch.tensor)
    with pytest.raises(type(theirs.value)) as ours:
        make(nn, pyth.tensor)
    assert type(ours.value) is type(theirs.value) and str(ours.value)


def test_module_weight_is_a_buffer_that_moves():
    """MultiMarginLoss's weight is a buffer: in the state dict, converted by .double()."""
    m = nn.MultiMarginLoss(weight=pyth.tensor([1.0, 2.0, 0.5]))
    assert list(m.state_dict()) == ["weight"]
    m = m.double()
    assert m.weight.dtype is pyth.float64
    x = pyth.tensor([[0.1, 0.2, 0.3]], dtype=pyth.float64)
    near(m(x, pyth.tensor([1])), np.asarray(np_multi_margin(
        np.array([[0.1, 0.2, 0.3]]), [1], weight=[1.0, 2.0, 0.5])[0]), 1e-15)


@pytest.mark.parametrize("pos_weight", [None, [2.0, 0.5, 1.0, 3.0, 1.0]])
def test_bce_with_logits_gradients_at_zero_and_extremes(pos_weight: list | None) -> None:
    """The loss's first and second derivatives against PyTorch's where a composition from |x|
    and clamp has a kink (x = 0) and where exp overflows (|x| = 100)."""
    torch = pytest.importorskip("torch")
    v, t = [0.0, -100.0, 100.0, 3.0, -2.5], [0.3, 1.0, 0.0, 0.5, 1.0]
    grads = []
    for lib, functional in ((pyth, pyth.nn.functional), (torch, torch.nn.functional)):
        x = lib.tensor(v, dtype=lib.float64, requires_grad=True)
        pw = None if pos_weight is None else lib.tensor(pos_weight, dtype=lib.float64)
        loss = functional.binary_cross_entropy_with_logits(
            x, lib.tensor(t, dtype=lib.float64), pos_weight=pw, reduction="sum")
        g, = lib.autograd.grad(loss, x, create_graph=True)
        gg, = lib.autograd.grad(g.sum(), x)
        grads.append((loss.item(), g.detach().numpy(), gg.numpy()))
    (l, g, gg), (tl, tg, tgg) = grads
    assert l == pytest.approx(tl, rel=1e-12)
    np.testing.assert_allclose(g, tg, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(gg, tgg, rtol=1e-12, atol=1e-15)


# ==== nll_loss's node ============================================================================

NLL_CASES = [("mean", None, -100), ("sum", None, 2), ("none", None, -100),
             ("mean", [0.5, 2.0, 1.0, 0.25], 1), ("sum", [0.5, 2.0, 1.0, 0.25], -100),
             ("none", [0.5, 2.0, 1.0, 0.25], 0)]


def _nll_operands(shape):
    x = np.log(rng("nll", shape).dirichlet(np.ones(4), int(np.prod(shape)) // 4))
    x = x.reshape(shape[0], -1, 4).transpose(0, 2, 1).reshape(shape) if len(shape) > 2 else \
        x.reshape(shape)
    t = rng("nll-target", shape).integers(0, 4, (shape[0],) + tuple(shape[2:]))
    return x, t


@pytest.mark.parametrize("reduction,weight,ignore", NLL_CASES)
@pytest.mark.parametrize("shape", [(5, 4), (3, 4, 2)])
def test_nll_loss_gradcheck_and_gradgradcheck(reduction, weight, ignore, shape):
    """float64: the kernel's first-order gradient and the formula's (the one create_graph
    records, differentiated again) both against finite differences."""
    x, t = _nll_operands(shape)
    w = pyth.tensor(weight, dtype=pyth.float64) if weight is not None else None
    f = lambda z: F.nll_loss(z, pyth.tensor(t), w, reduction=reduction, ignore_index=ignore)
    assert gradcheck(f, (pyth.tensor(x, dtype=pyth.float64, requires_grad=True),))
    assert gradgradcheck(f, (pyth.tensor(x, dtype=pyth.float64, requires_grad=True),))


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
@pytest.mark.parametrize("reduction,weight,ignore", NLL_CASES)
def test_nll_loss_node_and_gradient_as_torch(reduction, weight, ignore, dtype):
    """The node PyTorch records (NllLossBackward0 in every float dtype), the loss and its
    gradient in the input's dtype, plain and under create_graph (the formula)."""
    torch = pytest.importorskip("torch")
    x, t = _nll_operands((6, 4))
    tol = {"float64": 1e-12, "float32": 1e-6, "float16": 2e-3, "bfloat16": 2e-2}[dtype]
    got = []
    for lib, fn in ((pyth, F), (torch, torch.nn.functional)):
        dt = getattr(lib, dtype)
        z = lib.tensor(x, dtype=dt, requires_grad=True)
        w = lib.tensor(weight, dtype=dt) if weight is not None else None
        loss = fn.nll_loss(z, lib.tensor(t), w, reduction=reduction, ignore_index=ignore)
        g0 = lib.tensor(np.arange(1.0, 1.0 + loss.numel()).reshape(tuple(loss.shape)), dtype=dt)
        gx, = lib.autograd.grad(loss, z, g0, retain_graph=True)
        gc, = lib.autograd.grad(loss, z, g0, create_graph=True)
        assert gx.dtype == gc.dtype == z.dtype
        got.append((loss.grad_fn.name(), loss.detach().float().numpy(),
                    gx.float().numpy(), gc.detach().float().numpy()))
    (name, loss, gx, gc), (tname, tloss, tgx, tgc) = got
    assert name == tname == "NllLossBackward0"
    np.testing.assert_allclose(loss, tloss, rtol=tol, atol=tol)
    np.testing.assert_allclose(gx, tgx, rtol=tol, atol=tol)
    np.testing.assert_allclose(gc, tgc, rtol=tol, atol=tol)


def test_nll_loss_saved_input_modified_and_second_backward_raise_as_torch():
    """nll_loss keeps its input (version-checked, as PyTorch's) and frees it after one
    backward."""
    torch = pytest.importorskip("torch")
    x, t = _nll_operands((5, 4))
    msgs = []
    for lib, fn in ((pyth, F), (torch, torch.nn.functional)):
        z = lib.tensor(x, requires_grad=True)
        h = z * 1
        loss = fn.nll_loss(h, lib.tensor(t))
        h.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            loss.backward()
        loss = fn.nll_loss(z * 1, lib.tensor(t))
        loss.backward()
        with pytest.raises(RuntimeError) as e:
            loss.backward()
        msgs.append(str(e.value).split(".")[0])
    assert msgs[0] == msgs[1]


@pytest.mark.parametrize("shape,target", [((2, 3), (2,)), ((2, 3, 4), (2, 4)), ((3,), ())])
def test_nll_loss_refuses_a_weight_that_requires_grad_as_torch(shape: tuple, target: tuple) -> None:
    torch = pytest.importorskip("torch")
    calls = []
    for lib in (pyth, torch):
        x = lib.zeros(shape)
        t = lib.zeros(target, dtype=lib.int64)
        w = lib.ones(3, requires_grad=True)
        with pytest.raises(RuntimeError) as e:
            lib.nn.functional.nll_loss(x, t, weight=w)
        calls.append(str(e.value))
        with lib.no_grad():   # nothing is recorded: no refusal
            lib.nn.functional.nll_loss(x, t, weight=w)
    assert calls[0] == calls[1]

"""Padding, one-hot and distances through pyth.nn: F.pad in its four modes, F.one_hot,
F.normalize, F.cosine_similarity, F.pairwise_distance, F.pdist and the padding and distance
modules.
Values and float64 gradients (one random upstream gradient) against PyTorch; values against
numpy references and gradients under gradcheck also without PyTorch; transposed, stepped,
expanded and zero-size inputs; float32, float64 and integer dtypes; PyTorch's reprs and
exception classes, with messages that name the op."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _support import (
    P,
    T,
    close,
    dtype_name,
    expected_error,
    maker,
    needs_torch,
    seeded,
    torch,
    twin_grads,
)

import pyth
from pyth import nn
from pyth.autograd import gradcheck
from pyth.nn import functional as F

TF = torch.nn.functional if torch is not None else None

INF = math.inf


# ==== F.pad ======================================================================================

def np_pad(a, pad, mode="constant", value=0):
    """numpy's F.pad: pads the last len(pad)//2 dims (last dim first), then crops where a pad is
    negative (numpy's reflect/edge/wrap are torch's reflect/replicate/circular for pads >= 0)."""
    widths = [(0, 0)] * a.ndim
    for i in range(len(pad) // 2):
        widths[a.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    if a.ndim == 0:
        return a.copy()
    grow = [(max(lo, 0), max(hi, 0)) for lo, hi in widths]
    np_mode = {"constant": "constant", "reflect": "reflect", "replicate": "edge",
               "circular": "wrap"}[mode]
    out = np.pad(a, grow, np_mode, **({"constant_values": value} if mode == "constant" else {}))
    return out[tuple(slice(-min(lo, 0), out.shape[d] + min(hi, 0))
                     for d, (lo, hi) in enumerate(widths))]


# (mode, input shape, pad)
PAD_CASES = [
    ("constant", (5,), (1, 2)),
    ("constant", (2, 3, 4), (1, 2)),
    ("constant", (2, 3, 4), (0, 1, 2, 0)),
    ("constant", (2, 3, 4), (1, 1, 2, 2, 3, 3)),              # every dim, 3 pairs on 3-D
    ("constant", (2, 3, 4, 5), (-1, 2, 1, -2)),               # crop and pad in one call
    ("constant", (2, 3, 4), (-1, -1, 0, 0, -1, 0)),           # crop only
    ("constant", (2, 3), (-2, -1)),                           # cropped to nothing
    ("constant", (0, 3, 4), (1, 1, 1, 1)),                    # zero-size batch
    ("constant", (2, 0, 4), (1, 1, 1, 1)),                    # zero-size padded dim
    ("constant", (), ()),
    ("constant", (1, 2, 1, 2, 2, 3), (1, 0, 0, 1)),           # 6-D
    ("reflect", (3, 5), (2, 1)),                              # 2-D: (C, W)
    ("reflect", (2, 3, 5), (4, 3)),                           # pad = size - 1
    ("reflect", (3, 4, 5), (2, 1, 1, 3)),                     # 3-D with 4: (C, H, W)
    ("reflect", (2, 3, 4, 5), (1, 2, 3, 0)),
    ("reflect", (2, 3, 4, 5), (1, 1, 1, 2, 0, 2)),            # 4-D with 6: (C, D, H, W)
    ("reflect", (1, 2, 3, 4, 5), (1, 1, 2, 0, 1, 2)),
    ("reflect", (0, 3, 5), (1, 2)),                           # zero-size batch
    ("reflect", (0, 2, 4, 4), (1, 1, 1, 1)),
    ("replicate", (3, 5), (2, 1)),
    ("replicate", (2, 3, 2), (4, 5)),                         # pads beyond the size
    ("replicate", (3, 4, 5), (0, 3, 2, 0)),
    ("replicate", (2, 3, 4, 5), (1, 2, 3, 0)),
    ("replicate", (2, 3, 4, 5), (1, 1, 1, 2, 0, 4)),
    ("replicate", (1, 2, 3, 4, 5), (2, 1, 0, 1, 3, 1)),
    ("replicate", (0, 3, 5), (1, 2)),
    ("circular", (3, 5), (2, 1)),
    ("circular", (2, 3, 4), (4, 4)),                          # wraps exactly once
    ("circular", (3, 4, 5), (2, 1, 1, 3)),
    ("circular", (2, 3, 4, 5), (1, 2, 3, 0)),
    ("circular", (2, 3, 4, 5), (1, 1, 1, 2, 0, 3)),
    ("circular", (1, 2, 3, 4, 5), (1, 1, 2, 0, 1, 2)),
    ("circular", (0, 3, 5), (1, 2)),
    ("circular", (2, 0, 4), (1, 1)),                          # no channels: allowed here
]
PAD_IDS = [f"{m}-{'x'.join(map(str, s)) or '0d'}-{p}" for m, s, p in PAD_CASES]
MODES = ["constant", "reflect", "replicate", "circular"]


@needs_torch
@pytest.mark.parametrize("mode,shape,pad", PAD_CASES, ids=PAD_IDS)
def test_pad_matches_torch(mode, shape, pad):
    twin_grads(lambda x: F.pad(x, pad, mode), lambda x: TF.pad(x, pad, mode), [seeded(*shape)])


@pytest.mark.parametrize("mode,shape,pad", PAD_CASES, ids=PAD_IDS)
def test_pad_matches_numpy(mode, shape, pad):
    a = seeded(*shape)
    y = F.pad(P(a, False), pad, mode)
    assert y.dtype is pyth.float64
    want = np_pad(a, pad, mode)
    assert tuple(y.shape) == want.shape
    np.testing.assert_array_equal(y.numpy(), want)


@needs_torch
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("layout", ["transposed", "permuted", "stepped", "expanded"])
def test_pad_layouts(mode, layout):
    """Non-contiguous inputs: the gradient lands on the leaf behind the view."""
    base, view, pad = {
        "transposed": ((2, 6, 5), lambda x: x.transpose(1, 2), (2, 1, 1, 2)),
        "permuted": ((2, 5, 6, 3), lambda x: x.permute(0, 3, 1, 2), (1, 2, 2, 1)),
        "stepped": ((2, 3, 12), lambda x: x[..., ::2], (3, 2)),
        "expanded": ((1, 3, 6), lambda x: x.expand(4, 3, 6), (2, 3)),
    }[layout]
    twin_grads(lambda x: F.pad(x, pad, mode), lambda x: TF.pad(x, pad, mode), [seeded(*base)],
             views=[view])


@needs_torch
@pytest.mark.parametrize("mode", MODES)
def test_pad_float32(mode):
    a = seeded(2, 3, 5, 4)
    y = twin_grads(lambda x: F.pad(x, (1, 3, 2, 1), mode), lambda x: TF.pad(x, (1, 3, 2, 1), mode),
                 [a], dtype="float32", tol=1e-6)
    assert y.dtype is pyth.float32


@needs_torch
@pytest.mark.parametrize("mode,shape,pad", [
    ("reflect", (2, 3, 6), (-1, 2)), ("reflect", (2, 3, 4, 5), (2, -1, -1, 1)),
    ("replicate", (2, 3, 6), (-2, 3)), ("replicate", (2, 3, 4, 5), (2, -1, -1, 1)),
    ("circular", (2, 3, 6), (-1, 2)), ("circular", (2, 3, 4, 5), (2, -1, -1, 1)),
])
def test_pad_negative_non_constant(mode, shape, pad):
    """Negative pads crop in every mode (circular wraps the cropped tensor), as in PyTorch."""
    twin_grads(lambda x: F.pad(x, pad, mode), lambda x: TF.pad(x, pad, mode), [seeded(*shape)])


@needs_torch
@pytest.mark.parametrize("value", [2.5, -1.0, 0.0])
def test_pad_constant_value_and_gradient(value):
    twin_grads(lambda x: F.pad(x, (2, -1, 1, 0), value=value),
             lambda x: TF.pad(x, (2, -1, 1, 0), value=value), [seeded(2, 3, 4)])


@pytest.mark.parametrize("name", ["int64", "int32", "uint8", "float32", "float64"])
@pytest.mark.parametrize("value", [None, 7])
def test_pad_constant_dtypes(name, value):
    """Integer and float inputs keep their dtype; value=None pads with 0."""
    a = np.arange(24).reshape(2, 3, 4).astype(name)
    pad = (1, 2, -1, 1)
    x = pyth.tensor(a, dtype=getattr(pyth, name))
    y = F.pad(x, pad) if value is None else F.pad(x, pad, "constant", value)
    assert y.dtype is getattr(pyth, name)
    want = np_pad(a, pad, "constant", 0 if value is None else value)
    assert want.dtype == a.dtype and tuple(y.shape) == want.shape
    np.testing.assert_array_equal(y.numpy(), want)
    if torch is not None:
        t = torch.from_numpy(a)
        ty = TF.pad(t, pad) if value is None else TF.pad(t, pad, "constant", value)
        assert dtype_name(ty) == name
        np.testing.assert_array_equal(y.numpy(), ty.numpy())


def test_pad_takes_a_list():
    x = P(seeded(2, 3, 4), False)
    for mode in MODES:
        np.testing.assert_array_equal(F.pad(x, [1, 2, 0, 1], mode).numpy(),
                                      F.pad(x, (1, 2, 0, 1), mode).numpy())


def test_pad_does_not_alias_input():
    """A new tensor in every mode, also when nothing is padded (as PyTorch's)."""
    x = P(np.ones((2, 3)), False)
    for mode in MODES:
        for pad in ((1, 1), (0, 0)):
            y = F.pad(x, pad, mode)
            y.fill_(5.0)
            np.testing.assert_array_equal(x.numpy(), np.ones((2, 3)))


@pytest.mark.parametrize("mode,shape,pad", [
    ("constant", (2, 3, 4), (1, -1, 2, 0)),
    ("constant", (3, 2, 2), (-1, 2, 1, 1, 1, 0)),
    ("reflect", (2, 5), (2, 4)),
    ("reflect", (1, 2, 4, 3), (2, 1, 1, 3)),
    ("reflect", (1, 1, 3, 2, 3), (1, 2, 1, 0, 2, 1)),
    ("replicate", (2, 3, 4), (3, 1)),
    ("replicate", (2, 3, 4), (1, 2, 4, 0)),
    ("replicate", (1, 1, 2, 2, 3), (1, 2, 1, 0, 2, 1)),
    ("circular", (2, 4), (1, 3)),
    ("circular", (1, 2, 3, 4), (1, 3, 2, 1)),
    ("circular", (1, 1, 3, 2, 3), (1, 2, 1, 0, 2, 1)),
])
def test_pad_gradcheck(mode, shape, pad):
    x = P(seeded(*shape))
    assert gradcheck(lambda t: F.pad(t, pad, mode), (x,))
    # the same shape with permuted strides
    assert gradcheck(lambda t: F.pad(t.transpose(0, -1).contiguous().transpose(0, -1), pad, mode),
                     (x,))


def test_pad_constant_value_gradcheck():
    assert gradcheck(lambda t: F.pad(t, (1, 2, 0, 1), value=-3.5), (P(seeded(2, 2, 3)),))


# ==== F.one_hot ==================================================================================

# (values, num_classes, layout)
ONE_HOT = [
    ([0, 2, 1], -1, "contig"),
    ([0, 2, 1], 5, "contig"),
    ([[0, 3], [1, 1], [4, 0]], -1, "contig"),
    ([[0, 3], [1, 1], [4, 0]], 6, "transposed"),
    ([[0, 3, 1, 2]], 4, "expanded"),
    ([0, 9, 1, 5, 2, 7, 3, 0], 10, "stepped"),
    (2, -1, "contig"),                                        # 0-dim: shape (3,)
    (np.zeros(0, np.int64), 3, "contig"),
    (np.zeros((2, 0), np.int64), 4, "contig"),
]


def _laid_out(x, layout):
    if layout == "transposed":
        return x.t()
    if layout == "expanded":
        return x.expand(3, x.shape[1])
    if layout == "stepped":
        return x[::2]
    return x


@pytest.mark.parametrize("vals,nc,layout", ONE_HOT, ids=[f"{i}-{c[2]}" for i, c in
                                                         enumerate(ONE_HOT)])
def test_one_hot(vals, nc, layout):
    a = np.asarray(vals, dtype=np.int64)
    x = _laid_out(pyth.tensor(a, dtype=pyth.int64), layout)
    y = F.one_hot(x, nc)
    idx = x.numpy()
    n = nc if nc != -1 else int(idx.max()) + 1
    want = np.eye(n, dtype=np.int64)[idx]
    assert y.dtype is pyth.int64
    assert tuple(y.shape) == want.shape
    np.testing.assert_array_equal(y.numpy(), want)
    if torch is not None:
        ty = TF.one_hot(_laid_out(torch.from_numpy(a), layout), nc)
        assert dtype_name(ty) == "int64" and tuple(ty.shape) == tuple(y.shape)
        np.testing.assert_array_equal(y.numpy(), ty.numpy())


def test_one_hot_default_argument():
    y = F.one_hot(pyth.tensor([1, 0, 3]))
    np.testing.assert_array_equal(y.numpy(), np.eye(4, dtype=np.int64)[[1, 0, 3]])


# ==== normalize / cosine_similarity / pairwise_distance ==========================================

# (shape, p, dim, eps)
NORMALIZE = [
    ((4, 5), 2.0, 1, 1e-12),
    ((4, 5), 1.0, -1, 1e-12),
    ((3, 4, 5), 3.0, 0, 1e-12),
    ((4, 5), INF, 1, 1e-12),
    ((2, 3, 4), 0.5, 2, 1e-12),
    ((5,), 2.0, 0, 1e-12),
    ((6, 5), 2.0, 1, 2.3),                # rows on both sides of eps: clamp, not add
    ((0, 3), 2.0, 1, 1e-12),
    ((3, 0, 2), 2.0, 0, 1e-12),
]


@needs_torch
@pytest.mark.parametrize("shape,p,dim,eps", NORMALIZE)
def test_normalize_matches_torch(shape, p, dim, eps):
    twin_grads(lambda x: F.normalize(x, p, dim, eps), lambda x: TF.normalize(x, p, dim, eps),
             [seeded(*shape)])


@needs_torch
def test_normalize_defaults_layouts_float32():
    twin_grads(F.normalize, TF.normalize, [seeded(3, 4)])
    twin_grads(lambda x: F.normalize(x.t(), dim=0), lambda x: TF.normalize(x.t(), dim=0),
             [seeded(5, 4)])
    twin_grads(lambda x: F.normalize(x.expand(3, 4, 5)), lambda x: TF.normalize(x.expand(3, 4, 5)),
             [seeded(1, 4, 5)])
    y = twin_grads(lambda x: F.normalize(x, p=1.0, dim=-1), lambda x: TF.normalize(x, p=1.0, dim=-1),
                 [seeded(3, 4)], dtype="float32", tol=1e-5)
    assert y.dtype is pyth.float32


# (shape1, shape2, dim, eps)
COSINE = [
    ((4, 5), (4, 5), 1, 1e-8),
    ((4, 5), (1, 5), 1, 1e-8),                # broadcast
    ((3, 1, 5), (4, 5), -1, 1e-8),            # broadcast both ways
    ((5,), (5,), 0, 1e-8),                    # 0-dim result
    ((2, 3, 4), (2, 3, 4), 0, 1e-8),
    ((6, 5), (6, 5), 1, 2.3),                 # each norm clamped to eps on its own
    ((0, 3), (0, 3), 1, 1e-8),
    ((0, 3), (1, 3), 1, 1e-8),
]


@needs_torch
@pytest.mark.parametrize("s1,s2,dim,eps", COSINE)
def test_cosine_similarity_matches_torch(s1, s2, dim, eps):
    twin_grads(lambda a, b: F.cosine_similarity(a, b, dim, eps),
             lambda a, b: TF.cosine_similarity(a, b, dim, eps), [seeded(*s1), seeded(*s2, key=1)])


@needs_torch
def test_cosine_similarity_defaults_layouts_float32():
    twin_grads(F.cosine_similarity, TF.cosine_similarity, [seeded(4, 5), seeded(4, 5, key=1)])
    twin_grads(F.cosine_similarity, TF.cosine_similarity, [seeded(5, 4), seeded(1, 5, key=1)],
             views=[lambda x: x.t(), lambda x: x.expand(4, 5)])
    y = twin_grads(lambda a, b: F.cosine_similarity(a, b, dim=0),
                 lambda a, b: TF.cosine_similarity(a, b, dim=0), [seeded(4, 3), seeded(4, 3, key=1)],
                 dtype="float32", tol=1e-5)
    assert y.dtype is pyth.float32


# (shape1, shape2, p, eps, keepdim)
PAIRWISE = [
    ((4, 5), (4, 5), 2.0, 1e-6, False),
    ((4, 5), (4, 5), 1.0, 1e-6, True),
    ((4, 5), (1, 5), 3.0, 1e-6, False),       # broadcast
    ((5,), (3, 5), 2.0, 1e-6, False),         # 1-D against 2-D
    ((2, 3, 5), (2, 3, 5), INF, 1e-6, False),
    ((5,), (5,), 2.0, 1e-6, False),           # 0-dim result
    ((5,), (5,), 2.0, 1e-6, True),
    ((4, 5), (4, 5), 2.0, 0.0, False),
    ((4, 5), (4, 5), 1.5, 0.5, True),         # eps is added to the difference
    ((0, 5), (0, 5), 2.0, 1e-6, False),
]


@needs_torch
@pytest.mark.parametrize("s1,s2,p,eps,keepdim", PAIRWISE)
def test_pairwise_distance_matches_torch(s1, s2, p, eps, keepdim):
    twin_grads(lambda a, b: F.pairwise_distance(a, b, p, eps, keepdim),
             lambda a, b: TF.pairwise_distance(a, b, p, eps, keepdim),
             [seeded(*s1), seeded(*s2, key=1)])


@needs_torch
def test_pairwise_distance_defaults_layouts_float32():
    twin_grads(F.pairwise_distance, TF.pairwise_distance, [seeded(4, 5), seeded(4, 5, key=1)])
    twin_grads(F.pairwise_distance, TF.pairwise_distance, [seeded(5, 4), seeded(1, 5, key=1)],
             views=[lambda x: x.t(), lambda x: x.expand(4, 5)])
    y = twin_grads(lambda a, b: F.pairwise_distance(a, b, p=1.0, keepdim=True),
                 lambda a, b: TF.pairwise_distance(a, b, p=1.0, keepdim=True),
                 [seeded(4, 3), seeded(4, 3, key=1)], dtype="float32", tol=1e-5)
    assert y.dtype is pyth.float32


@needs_torch
@pytest.mark.parametrize("fn", ["cosine_similarity", "pairwise_distance"])
def test_distances_promote_mixed_floats(fn):
    a, b = seeded(3, 4), seeded(3, 4, key=1)
    y = getattr(F, fn)(P(a, False, pyth.float32), P(b, False))
    ty = getattr(TF, fn)(T(a, False, torch.float32), T(b, False))
    assert dtype_name(y) == dtype_name(ty) == "float64"
    close(y, ty, 1e-6)


@needs_torch
def test_zero_vectors():
    """Zero vectors: normalize gives 0 and cosine_similarity 0, and their gradients are those of
    x / max(norm, eps) with no gradient through the clamp (PyTorch's)."""
    z = np.zeros((2, 3))
    z[1] = [1.0, -2.0, 2.0]
    twin_grads(F.normalize, TF.normalize, [z], tol=1e-6)
    other = np.array([[1.0, 2.0, 2.0], [0.0, 0.0, 0.0]])
    twin_grads(F.cosine_similarity, TF.cosine_similarity, [z, other], tol=1e-6)
    twin_grads(F.pairwise_distance, TF.pairwise_distance, [z, z.copy()])


def test_values_without_torch():
    """numpy references: normalize divides by max(norm, eps); cosine_similarity clamps each
    norm to eps on its own; pairwise_distance is the p-norm of x1 - x2 + eps over the last dim."""
    a, b = seeded(4, 5), seeded(4, 5, key=1)
    for p, eps in [(2.0, 1e-12), (1.0, 1e-12), (INF, 1e-12), (2.0, 2.3)]:
        n = np.linalg.norm(a, ord=p, axis=1, keepdims=True)
        close(F.normalize(P(a, False), p, 1, eps), a / np.maximum(n, eps))
    for eps in [1e-8, 2.3]:
        na = np.maximum(np.linalg.norm(a, axis=1, keepdims=True), eps)
        nb = np.maximum(np.linalg.norm(b, axis=1, keepdims=True), eps)
        close(F.cosine_similarity(P(a, False), P(b, False), 1, eps), ((a / na) * (b / nb)).sum(1))
    # a tiny x1 against a large x2: the norms clamp one by one (0.1), not as a product (1.0)
    close(F.cosine_similarity(P([[1e-9, 0.0]], False), P([[100.0, 0.0]], False)), np.array([0.1]))
    for p, eps, keepdim in [(2.0, 1e-6, False), (1.0, 0.5, True), (3.0, 0.0, False),
                            (INF, 1e-6, True)]:
        want = np.linalg.norm(a - b + eps, ord=p, axis=-1, keepdims=keepdim)
        close(F.pairwise_distance(P(a, False), P(b, False), p, eps, keepdim), want)


@pytest.mark.parametrize("shape,p,dim,eps", [
    ((3, 4), 2.0, 1, 1e-12),
    ((3, 4), 1.0, 0, 1e-12),
    ((2, 3, 4), 3.0, -1, 1e-12),
    ((3, 4), INF, 1, 1e-12),
    ((6, 5), 2.0, 1, 2.3),                # some rows clamped to eps: the clamp is differentiable
])
def test_normalize_gradcheck(shape, p, dim, eps):
    assert gradcheck(lambda t: F.normalize(t, p, dim, eps), (P(seeded(*shape)),))


# No case with a norm below eps: PyTorch clamps the norms outside autograd, so there its gradient
# is not the derivative of the value (torch's own gradcheck fails); test_cosine_similarity_
# matches_torch holds pyth to PyTorch's gradient there (eps=2.3).
@pytest.mark.parametrize("s1,s2,dim,eps", [((3, 4), (3, 4), 1, 1e-8), ((3, 1, 4), (2, 4), -1, 1e-8),
                                           ((3, 4), (1, 4), 0, 1e-8), ((4, 3), (4, 3), 1, 0.1)])
def test_cosine_similarity_gradcheck(s1, s2, dim, eps):
    assert gradcheck(lambda a, b: F.cosine_similarity(a, b, dim, eps),
                     (P(seeded(*s1)), P(seeded(*s2, key=1))))


@pytest.mark.parametrize("s1,s2,p,keepdim", [((3, 4), (3, 4), 2.0, False),
                                             ((3, 4), (1, 4), 1.0, True),
                                             ((2, 3, 4), (2, 3, 4), 3.0, False),
                                             ((4,), (3, 4), 2.0, False),
                                             ((3, 4), (3, 4), INF, True)])
def test_pairwise_distance_gradcheck(s1, s2, p, keepdim):
    assert gradcheck(lambda a, b: F.pairwise_distance(a, b, p, 1e-6, keepdim),
                     (P(seeded(*s1)), P(seeded(*s2, key=1))))


# ==== pdist =======================================================================================

def expanded(x):
    """A stride-0 view: the first sample repeated along dim 0."""
    return x[:1].expand(3, *x.shape[1:])


@needs_torch
@pytest.mark.parametrize("shape", [(5, 3), (1, 4), (0, 3), (4, 0)])
@pytest.mark.parametrize("p", [0.5, 1, 2, 3, float("inf")])
def test_pdist_matches_torch(shape, p):
    twin_grads(lambda x: F.pdist(x, p), lambda x: TF.pdist(x, p), [seeded(*shape)])


@needs_torch
def test_pdist_zero_rows_have_zero_gradient():
    a = np.array([[1.0, 2.0], [1.0, 2.0], [0.0, 1.0]])
    twin_grads(lambda x: F.pdist(x), lambda x: TF.pdist(x), [a])


def test_pdist_gradcheck():
    assert gradcheck(lambda t: F.pdist(t, 2), (P(seeded(4, 3)),))
    assert gradcheck(lambda t: F.pdist(t, 1.5), (P(seeded(4, 3)),))


@needs_torch
@pytest.mark.parametrize("dtype,tol", [("float32", 1e-5), ("float64", 1e-9)])
def test_pdist_expanded_input_and_dtypes(dtype, tol):
    cases = [(lambda f: lambda x: f.pdist(x.flatten(1)))]
    for make in cases:
        twin_grads(make(F), make(TF), [seeded(3, 2, 3, 4)], [expanded], dtype, tol)


# ==== modules ====================================================================================

# (class name, args, PyTorch's repr, padding, mode, value)
PAD_MODULES = [
    ("ZeroPad1d", (2,), "ZeroPad1d((2, 2))", (2, 2), "constant", 0.0),
    ("ZeroPad1d", ((1, 2),), "ZeroPad1d((1, 2))", (1, 2), "constant", 0.0),
    ("ZeroPad2d", (1,), "ZeroPad2d((1, 1, 1, 1))", (1, 1, 1, 1), "constant", 0.0),
    ("ZeroPad2d", ((1, 1, 2, 0),), "ZeroPad2d((1, 1, 2, 0))", (1, 1, 2, 0), "constant", 0.0),
    ("ConstantPad1d", (2, 3.5), "ConstantPad1d(padding=(2, 2), value=3.5)", (2, 2), "constant",
     3.5),
    ("ConstantPad1d", ((2, 3), 3.5), "ConstantPad1d(padding=(2, 3), value=3.5)", (2, 3),
     "constant", 3.5),
    ("ConstantPad2d", ((1, 2, 3, 4), -1), "ConstantPad2d(padding=(1, 2, 3, 4), value=-1)",
     (1, 2, 3, 4), "constant", -1),
    ("ConstantPad2d", (1, 0.0), "ConstantPad2d(padding=(1, 1, 1, 1), value=0.0)", (1, 1, 1, 1),
     "constant", 0.0),
    ("ReflectionPad1d", (2,), "ReflectionPad1d((2, 2))", (2, 2), "reflect", None),
    ("ReflectionPad1d", ((1, 2),), "ReflectionPad1d((1, 2))", (1, 2), "reflect", None),
    ("ReflectionPad2d", (1,), "ReflectionPad2d((1, 1, 1, 1))", (1, 1, 1, 1), "reflect", None),
    ("ReflectionPad2d", ((1, 0, 2, 1),), "ReflectionPad2d((1, 0, 2, 1))", (1, 0, 2, 1),
     "reflect", None),
    ("ReplicationPad1d", (3,), "ReplicationPad1d((3, 3))", (3, 3), "replicate", None),
    ("ReplicationPad2d", ((1, 2, 3, 4),), "ReplicationPad2d((1, 2, 3, 4))", (1, 2, 3, 4),
     "replicate", None),
    ("CircularPad1d", (1,), "CircularPad1d((1, 1))", (1, 1), "circular", None),
    ("CircularPad2d", ((1, 0, 0, 2),), "CircularPad2d((1, 0, 0, 2))", (1, 0, 0, 2), "circular",
     None),
]
PAD_MODULE_IDS = [r for _, _, r, *_ in PAD_MODULES]


def _module_inputs(name):
    """A batched and an unbatched input for a 1d or 2d padding module."""
    return [(2, 3, 6), (3, 6)] if name.endswith("1d") else [(2, 3, 5, 6), (3, 5, 6)]


@pytest.mark.parametrize("name,args,rep,padding,mode,value", PAD_MODULES, ids=PAD_MODULE_IDS)
def test_pad_module_is_the_functional(name, args, rep, padding, mode, value):
    m = getattr(nn, name)(*args)
    assert repr(m) == rep
    assert tuple(m.padding) == padding
    if mode == "constant":
        assert m.value == value
    for shape in _module_inputs(name):
        x = P(seeded(*shape), False)
        y = m(x)
        want = F.pad(x, padding, mode) if value is None else F.pad(x, padding, mode, value)
        np.testing.assert_array_equal(y.numpy(), want.numpy())
        np.testing.assert_array_equal(y.numpy(), np_pad(x.numpy(), padding, mode, value or 0))


@needs_torch
@pytest.mark.parametrize("name,args,rep,padding,mode,value", PAD_MODULES, ids=PAD_MODULE_IDS)
def test_pad_module_matches_torch(name, args, rep, padding, mode, value):
    pm, tm = getattr(nn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(tm) == rep and tuple(tm.padding) == padding   # the table is PyTorch's
    assert repr(pm) == repr(tm)
    for shape in _module_inputs(name):
        twin_grads(pm, tm, [seeded(*shape)])


# (class name, kwargs, PyTorch's repr)
DIST_MODULES = [
    ("CosineSimilarity", {}, "CosineSimilarity()"),
    ("CosineSimilarity", {"dim": 0, "eps": 1e-3}, "CosineSimilarity()"),
    ("PairwiseDistance", {}, "PairwiseDistance()"),
    ("PairwiseDistance", {"p": 1.0, "eps": 0.0, "keepdim": True}, "PairwiseDistance()"),
    ("PairwiseDistance", {"p": 3.0}, "PairwiseDistance()"),
]


def _functional_of(name, kw):
    if name == "CosineSimilarity":
        return lambda a, b: F.cosine_similarity(a, b, kw.get("dim", 1), kw.get("eps", 1e-8))
    return lambda a, b: F.pairwise_distance(a, b, kw.get("p", 2.0), kw.get("eps", 1e-6),
                                            kw.get("keepdim", False))


@pytest.mark.parametrize("name,kw,rep", DIST_MODULES)
def test_distance_module_is_the_functional(name, kw, rep):
    m = getattr(nn, name)(**kw)
    assert repr(m) == rep
    a, b = P(seeded(4, 5), False), P(seeded(4, 5, key=1), False)
    np.testing.assert_array_equal(m(a, b).numpy(), _functional_of(name, kw)(a, b).numpy())


@needs_torch
@pytest.mark.parametrize("name,kw,rep", DIST_MODULES)
def test_distance_module_matches_torch(name, kw, rep):
    pm, tm = getattr(nn, name)(**kw), getattr(torch.nn, name)(**kw)
    assert repr(tm) == rep
    assert repr(pm) == repr(tm)
    twin_grads(pm, tm, [seeded(4, 5), seeded(1, 5, key=1)])


# ==== errors =====================================================================================

def _i64(*vals):
    return np.array(vals, dtype=np.int64)


_X3 = seeded(2, 3, 4)
PAD_WORD = r"(?i)pad"
ONE_HOT_WORD = r"(?i)one_hot|class|LongTensor|int64|Long"

# (id, call(functional module, tensor maker), exception class, loose message regex)
ERRORS = [
    ("pad-odd-length", lambda f, mk: f.pad(mk(_X3), (1, 2, 3)), RuntimeError, PAD_WORD),
    ("pad-odd-length-reflect", lambda f, mk: f.pad(mk(_X3), (1, 2, 3), "reflect"),
     RuntimeError, PAD_WORD),
    ("pad-longer-than-dims", lambda f, mk: f.pad(mk(seeded(3)), (1, 2, 3, 4)), RuntimeError,
     PAD_WORD),
    ("pad-crop-one-side-past-size", lambda f, mk: f.pad(mk(seeded(4)), (-5, 1)), RuntimeError,
     PAD_WORD),
    ("pad-reflect-cropped-to-nothing",
     lambda f, mk: f.pad(mk(seeded(1, 1, 4)), (-2, -2), "reflect"), RuntimeError, PAD_WORD),
    ("pad-replicate-cropped-to-nothing",
     lambda f, mk: f.pad(mk(seeded(1, 1, 4)), (-4, 0), "replicate"), RuntimeError, PAD_WORD),
    ("pad-crop-past-size", lambda f, mk: f.pad(mk(seeded(3)), (-2, -2)), RuntimeError,
     r"(?i)pad|narrow|negative"),
    ("reflect-1d-input", lambda f, mk: f.pad(mk(seeded(3)), (1, 1), "reflect"), RuntimeError,
     PAD_WORD),
    ("replicate-4d-with-2", lambda f, mk: f.pad(mk(seeded(2, 3, 4, 5)), (1, 1), "replicate"),
     RuntimeError, PAD_WORD),
    ("circular-2d-with-4", lambda f, mk: f.pad(mk(seeded(2, 3)), (1, 1, 1, 1), "circular"),
     RuntimeError, PAD_WORD),
    ("reflect-5d-with-4", lambda f, mk: f.pad(mk(seeded(1, 2, 3, 4, 5)), (1, 1, 1, 1), "reflect"),
     RuntimeError, PAD_WORD),
    ("reflect-3d-with-6", lambda f, mk: f.pad(mk(_X3), (1, 1, 1, 1, 1, 1), "reflect"),
     RuntimeError, PAD_WORD),
    ("reflect-pad-equals-size", lambda f, mk: f.pad(mk(_X3), (4, 0), "reflect"), RuntimeError,
     PAD_WORD),
    ("reflect-pad-past-height", lambda f, mk: f.pad(mk(seeded(2, 3, 4, 5)), (0, 0, 0, 4), "reflect"),
     RuntimeError, PAD_WORD),
    ("circular-wraps-twice", lambda f, mk: f.pad(mk(_X3), (5, 0), "circular"), RuntimeError,
     PAD_WORD),
    ("reflect-zero-width", lambda f, mk: f.pad(mk(seeded(2, 3, 0)), (1, 1), "reflect"),
     RuntimeError, r"(?i)pad|non-zero|\[2, 3, 0\]"),
    ("replicate-zero-channels", lambda f, mk: f.pad(mk(seeded(2, 0, 4)), (1, 1), "replicate"),
     RuntimeError, r"(?i)pad|non-zero|\[2, 0, 4\]"),
    ("value-with-reflect", lambda f, mk: f.pad(mk(_X3), (1, 1), "reflect", 1.0), RuntimeError,
     PAD_WORD),
    ("unknown-mode", lambda f, mk: f.pad(mk(_X3), (1, 1), "wrap"), RuntimeError,
     r"(?i)pad|mode|wrap"),
    ("one_hot-negative", lambda f, mk: f.one_hot(mk(_i64(0, -1, 1)), 5), RuntimeError,
     ONE_HOT_WORD),
    ("one_hot-too-large", lambda f, mk: f.one_hot(mk(_i64(0, 5, 1)), 5), RuntimeError,
     ONE_HOT_WORD),
    ("one_hot-zero-classes", lambda f, mk: f.one_hot(mk(_i64(0)), 0), RuntimeError,
     ONE_HOT_WORD),
    ("one_hot-int32", lambda f, mk: f.one_hot(mk(np.array([0, 1], np.int32)), 5), RuntimeError,
     ONE_HOT_WORD),
    ("one_hot-float", lambda f, mk: f.one_hot(mk(np.array([0.0, 1.0])), 5), RuntimeError,
     ONE_HOT_WORD),
    ("one_hot-empty-infer", lambda f, mk: f.one_hot(mk(_i64())), RuntimeError,
     r"(?i)one_hot|class|empty"),
    ("normalize-int", lambda f, mk: f.normalize(mk(np.ones((2, 3), np.int64))), RuntimeError,
     r"(?i)normalize|norm|float|dtype|Long|int"),
    ("normalize-dim-out-of-range", lambda f, mk: f.normalize(mk(seeded(5))), IndexError,
     r"(?i)dim|range"),
    ("cosine-mismatched", lambda f, mk: f.cosine_similarity(mk(seeded(4, 5)), mk(seeded(4, 6))),
     RuntimeError, r"(?i)cosine|size|match|shape"),
    ("cosine-int", lambda f, mk: f.cosine_similarity(mk(np.ones((2, 3), np.int64)),
                                                     mk(np.ones((2, 3), np.int64))),
     RuntimeError, r"(?i)cosine|float|dtype|Long|int"),
    ("pairwise-mismatched", lambda f, mk: f.pairwise_distance(mk(seeded(4, 5)), mk(seeded(4, 6))),
     RuntimeError, r"(?i)pairwise|size|match|shape"),
    ("ReflectionPad2d-on-2d", lambda f, mk: (nn if f is F else torch.nn).ReflectionPad2d(1)(
        mk(seeded(3, 4))), RuntimeError, PAD_WORD),
    ("pdist-int", lambda f, mk: f.pdist(mk(np.ones((3, 2), np.int64))), RuntimeError, None),
    ("pdist-1d", lambda f, mk: f.pdist(mk(seeded(4))), RuntimeError, None),
    ("pdist-negative-p", lambda f, mk: f.pdist(mk(seeded(3, 2)), -1.0), RuntimeError, None),
]


@pytest.mark.parametrize("case", ERRORS, ids=[c[0] for c in ERRORS])
def test_errors(case):
    _, call, exc, pattern = case
    if torch is not None:   # the table's class is the one PyTorch raises
        with pytest.raises(Exception) as te:
            call(TF, maker("torch"))
        assert expected_error(te.value) is exc, (te.type, te.value)
    with pytest.raises(exc, match=pattern):
        call(F, maker("pyth"))

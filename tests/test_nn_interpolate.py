"""Interpolation and shuffles through pyth.nn: F.interpolate in every mode (nearest,
nearest-exact, linear, bilinear, bicubic, trilinear, area, and antialiased bilinear / bicubic /
lanczos), the deprecated F.upsample aliases, F.pixel_shuffle, F.pixel_unshuffle,
F.channel_shuffle, F.native_channel_shuffle and their modules.

Values and float64 gradients (one random upstream gradient) against PyTorch, with size or
scale_factor, align_corners both ways and recompute_scale_factor; uint8 results bit for bit
(PyTorch's integer arithmetic); float32, float16, bfloat16; transposed, permuted (channels-last),
stepped, expanded and zero-size inputs; the index rules PyTorch's CPU dispatch applies (the
channels-last / small-output nearest kernel copies kept sizes and halves doubled ones). Without
PyTorch: numpy references (np.interp, window means, a direct Keys bicubic sum, hand-computed
grids) and gradcheck for every mode. Reprs, signatures and exception classes as PyTorch's."""

from __future__ import annotations

import inspect
import math
import warnings
from functools import partial

import numpy as np
import pytest
from _support import (
    P,
    close,
    dtype_name,
    expected_error,
    maker,
    needs_torch,
    rng,
    seeded,
    torch,
    twin_grads,
)

import pyth
from pyth import nn
from pyth.autograd import gradcheck, gradgradcheck
from pyth.nn import functional as F

TF = torch.nn.functional if torch is not None else None

run_both = partial(twin_grads, tol=1e-12)   # this file's tolerance


def interp(**kw):
    """(pyth, torch) callables running F.interpolate with kw."""
    return (lambda x: F.interpolate(x, **kw)), (lambda x: TF.interpolate(x, **kw))


# ==== F.interpolate against PyTorch ==============================================================

SPATIAL = {1: (5,), 2: (5, 7), 3: (4, 5, 3)}
MODES_BY_DIM = {1: ["nearest", "nearest-exact", "linear", "area"],
                2: ["nearest", "nearest-exact", "bilinear", "bicubic", "area"],
                3: ["nearest", "nearest-exact", "trilinear", "area"]}
ALIGNABLE = ("linear", "bilinear", "bicubic", "trilinear")
# how the output is asked for: up, down, odd ratios, a kept size, size 1, recomputed scales
RESIZES = [
    {"size": 9}, {"size": 3}, {"size": 1}, {"scale_factor": 2}, {"scale_factor": 1.7},
    {"scale_factor": 0.6}, {"scale_factor": 2.1}, {"scale_factor": 1.1},
    {"scale_factor": 3.3, "recompute_scale_factor": True},
]


def _cases():
    for nd, modes in MODES_BY_DIM.items():
        for mode in modes:
            for resize in RESIZES:
                for ac in ([False, True] if mode in ALIGNABLE else [None]):
                    kw = dict(resize, mode=mode)
                    if ac is not None:
                        kw["align_corners"] = ac
                    yield pytest.param(nd, kw, id=f"{nd}d-" + "-".join(f"{v}" for v in
                                                                     kw.values()))


def torch_inconsistent(nd, kw):
    """Where PyTorch's CPU gradient is not the derivative of its values (its own gradcheck
    fails): its nearest backward copies a kept size and halves a doubled one whatever the
    scale_factor, while its 1-d and 3-d forward floor i / scale_factor; its bicubic backward
    copies when both sizes are kept, while its forward samples at (i + 0.5) / scale - 0.5.
    pyth's gradient is the derivative of the values (which equal PyTorch's)."""
    scale = kw.get("scale_factor")
    if scale is None or kw.get("recompute_scale_factor") or scale in (1, 2):
        return False
    kept = [int(n * scale) for n in SPATIAL[nd]]
    if kw["mode"] == "nearest" and nd != 2:
        return any(o in (n, 2 * n) for o, n in zip(kept, SPATIAL[nd]))
    return kw["mode"] == "bicubic" and not kw.get("align_corners") and kept == list(SPATIAL[nd])


def forward_map_gradient(tf, shape, g):
    """The adjoint of the linear map PyTorch's forward applies to each (N, C) image, built from
    its outputs on basis images, applied to the upstream gradient g."""
    spatial = shape[2:]
    k = math.prod(spatial)
    basis = torch.eye(k, dtype=torch.float64).reshape(k, 1, *spatial)
    jac = tf(basis).reshape(k, -1).numpy()                   # row j: the image of basis j
    return (g.reshape(shape[0] * shape[1], -1) @ jac.T).reshape(shape)


@needs_torch
@pytest.mark.parametrize("nd,kw", list(_cases()))
def test_interpolate_matches_torch(nd, kw):
    pf, tf = interp(**kw)
    shape = (2, 3, *SPATIAL[nd])
    if not torch_inconsistent(nd, kw):
        run_both(pf, tf, [seeded(*shape)])
        return
    x = P(seeded(*shape))
    y = pf(x)
    close(y, tf(torch.tensor(seeded(*shape))), 1e-12)
    g = seeded(*y.shape, key="upstream")
    y.backward(pyth.tensor(g))
    close(x.grad, forward_map_gradient(tf, shape, g), 1e-12)


# (kwargs) antialiased resampling of a (2, 3, 11, 7) input: down, up, mixed, kept dims
AA_CASES = [
    {"size": 3}, {"size": (2, 9)}, {"size": (11, 3)}, {"scale_factor": 0.3},
    {"scale_factor": 2.5}, {"scale_factor": (0.5, 1.0)}, {"size": (11, 7)},
]


@needs_torch
@pytest.mark.parametrize("mode", ["bilinear", "bicubic", "lanczos"])
@pytest.mark.parametrize("kw", AA_CASES, ids=[str(k) for k in AA_CASES])
def test_antialias_matches_torch(mode, kw):
    for ac in ([False, True] if mode != "lanczos" else [False]):
        pf, tf = interp(mode=mode, antialias=True, align_corners=ac, **kw)
        run_both(pf, tf, [seeded(2, 3, 11, 7)])


@needs_torch
@pytest.mark.parametrize("nd,mode", [(nd, m) for nd, ms in MODES_BY_DIM.items() for m in ms] +
                         [(2, "lanczos")])
def test_float32(nd, mode):
    kw = {"mode": mode, "antialias": True} if mode == "lanczos" else {"mode": mode}
    for resize in ({"scale_factor": 1.7}, {"size": 2}):
        pf, tf = interp(**resize, **kw)
        y = run_both(pf, tf, [seeded(2, 3, *SPATIAL[nd])], dtype="float32", tol=2e-6)
        assert y.dtype is pyth.float32


@needs_torch
@pytest.mark.parametrize("name", ["float16", "bfloat16"])
@pytest.mark.parametrize("nd,mode", [(nd, m) for nd, ms in MODES_BY_DIM.items() for m in ms])
def test_half_types(name, nd, mode):
    """float16 / bfloat16 keep their dtype and agree with PyTorch to their precision."""
    a = seeded(2, 3, *SPATIAL[nd]).astype(np.float32)
    p = F.interpolate(pyth.tensor(a).to(getattr(pyth, name)), scale_factor=1.7, mode=mode)
    t = TF.interpolate(torch.tensor(a).to(getattr(torch, name)), scale_factor=1.7, mode=mode)
    assert dtype_name(p) == dtype_name(t) == name
    close(p.float(), t.float(), 2e-2)


def _uint8(shape, key=0):
    return rng(shape, "u8", key).integers(0, 256, size=shape).astype(np.uint8)


# (mode, kwargs) on uint8: PyTorch computes in int16-scaled weights with a rounding shift per
# dim, so the results must agree exactly
UINT8_CASES = [
    (mode, dict(resize, align_corners=ac, antialias=aa))
    for mode in ("bilinear", "bicubic")
    for resize in ({"size": (7, 5)}, {"size": (3, 12)}, {"scale_factor": 0.37},
                   {"scale_factor": 1.9}, {"size": (9, 13)})
    for ac in (False, True) for aa in (False, True)
] + [("lanczos", dict(resize, antialias=True))
     for resize in ({"size": (7, 5)}, {"scale_factor": 0.37}, {"scale_factor": 1.9})] + [
    (mode, resize) for mode in ("nearest", "nearest-exact")
    for resize in ({"size": (7, 5)}, {"scale_factor": 1.9}, {"scale_factor": 2.1})]


@needs_torch
@pytest.mark.parametrize("mode,kw", UINT8_CASES, ids=[f"{m}-{k}" for m, k in UINT8_CASES])
def test_uint8_exact(mode, kw):
    for channels in (3, 5):      # PyTorch's AVX kernel (C <= 4) and its generic one
        a = _uint8((2, channels, 9, 13), key=channels)
        p = F.interpolate(pyth.tensor(a), mode=mode, **kw)
        t = TF.interpolate(torch.from_numpy(a), mode=mode, **kw)
        assert p.dtype is pyth.uint8
        np.testing.assert_array_equal(p.numpy(), t.numpy())


@needs_torch
@pytest.mark.parametrize("mode", ["nearest", "nearest-exact"])
@pytest.mark.parametrize("shape,scale", [
    ((1, 1, 5), 1.1),            # 1-d: floor(i / 1.1) even though the size is kept
    ((1, 2, 1, 5), 1.1),         # 2-d small output: the kept size copies
    ((1, 2, 1, 5), 2.1),         # 2-d small output: the doubled size halves the index
    ((1, 1, 40, 50), 2.1),       # 2-d output over 128 wide: floor(i / 2.1)
    ((1, 1, 40, 50), 1.01),
    ((1, 2, 3, 4, 5), 2.1),      # 3-d: floor(i / 2.1)
    ((1, 1, 3, 7), 1 / 3),       # float32 ratio 3.0000002 still floors to 3 i
    ((1, 1, 6), 0.7),
])
def test_nearest_index_rules(mode, shape, scale):
    """Exactly PyTorch's source indices (values are distinct, so any wrong index shows)."""
    a = np.arange(math.prod(shape), dtype=np.float64).reshape(shape)
    for dtype in ("float64", "float32"):
        p = F.interpolate(pyth.tensor(a.astype(dtype)), scale_factor=scale, mode=mode)
        t = TF.interpolate(torch.tensor(a.astype(dtype)), scale_factor=scale, mode=mode)
        np.testing.assert_array_equal(p.numpy(), t.numpy())


@needs_torch
@pytest.mark.parametrize("mode", ["nearest", "nearest-exact", "bilinear", "bicubic", "area"])
@pytest.mark.parametrize("layout", ["transposed", "channels_last", "stepped", "expanded"])
def test_layouts(mode, layout):
    """Non-contiguous inputs (channels-last with 6 channels takes PyTorch's channels-last
    nearest kernel): the gradient lands on the leaf behind the view."""
    base, view = {
        "transposed": ((2, 3, 7, 5), lambda x: x.transpose(2, 3)),
        "channels_last": ((2, 5, 7, 6), lambda x: x.permute(0, 3, 1, 2)),
        "stepped": ((2, 3, 5, 14), lambda x: x[..., ::2]),
        "expanded": ((1, 3, 5, 7), lambda x: x.expand(3, 3, 5, 7)),
    }[layout]
    # bicubic at 1.1 keeps both sizes, where PyTorch's gradient is not its values' derivative
    for scale in (2.1, 1.3 if mode == "bicubic" else 1.1, 0.6):
        run_both(*interp(scale_factor=scale, mode=mode), [seeded(*base)], views=[view])


@needs_torch
@pytest.mark.parametrize("nd,mode", [(nd, m) for nd, ms in MODES_BY_DIM.items() for m in ms] +
                         [(2, "bicubic-aa")])
def test_empty_batch(nd, mode):
    kw = {"mode": "bicubic", "antialias": True} if mode == "bicubic-aa" else {"mode": mode}
    y = run_both(*interp(size=3, **kw), [seeded(0, 2, *SPATIAL[nd])])
    assert tuple(y.shape) == (0, 2) + (3,) * nd


@needs_torch
@pytest.mark.parametrize("nd", [1, 2])
def test_area_allows_no_channels(nd):
    """PyTorch's 1-d and 2-d adaptive pooling take C = 0 (its 3-d one refuses, see errors)."""
    run_both(*interp(size=2, mode="area"), [seeded(2, 0, *SPATIAL[nd])])
    run_both(*interp(size=0, mode="area"), [seeded(2, 3, *SPATIAL[nd])])


def test_result_is_new_memory():
    """A kept size still gives a new tensor, in every mode."""
    x = P(np.ones((1, 2, 3, 4)), False)
    for kw in ({"mode": "nearest"}, {"mode": "bilinear"}, {"mode": "bicubic"},
               {"mode": "area"}, {"mode": "bilinear", "antialias": True}):
        y = F.interpolate(x, size=(3, 4), **kw)
        y.fill_(5.0)
        np.testing.assert_array_equal(x.numpy(), np.ones((1, 2, 3, 4)))


# ==== numpy references (no PyTorch needed) =======================================================

def np_source(n_in, n_out, align_corners, scale=None):
    """PyTorch's source coordinate of each output (linear modes)."""
    i = np.arange(n_out, dtype=np.float64)
    if align_corners:
        return i * ((n_in - 1) / (n_out - 1) if n_out > 1 else 0.0)
    r = 1.0 / scale if scale else n_in / n_out
    return np.maximum((i + 0.5) * r - 0.5, 0.0)


def np_linear_1d(a, n_out, align_corners, axis=-1, scale=None):
    """Linear resampling of a along axis with np.interp (which holds the edges)."""
    a = np.moveaxis(a, axis, -1)
    src = np_source(a.shape[-1], n_out, align_corners, scale)
    flat = a.reshape(-1, a.shape[-1])
    out = np.stack([np.interp(src, np.arange(a.shape[-1]), row) for row in flat])
    return np.moveaxis(out.reshape(a.shape[:-1] + (n_out,)), -1, axis)


def np_keys(x, a=-0.75):
    x = np.abs(x)
    return np.where(x <= 1, ((a + 2) * x - (a + 3)) * x * x + 1,
                    np.where(x < 2, ((a * x - 5 * a) * x + 8 * a) * x - 4 * a, 0.0))


def np_bicubic(img, out_hw, align_corners):
    """A direct 4 x 4 Keys sum per output pixel, edges clamped (one 2-d image)."""
    (h, w), (oh, ow) = img.shape, out_hw
    def coords(n, o):
        i = np.arange(o, dtype=np.float64)
        if align_corners:
            return i * ((n - 1) / (o - 1) if o > 1 else 0.0)
        return (i + 0.5) * n / o - 0.5
    ys, xs = coords(h, oh), coords(w, ow)
    out = np.zeros((oh, ow))
    for r, y in enumerate(ys):
        for c, x in enumerate(xs):
            y0, x0 = math.floor(y), math.floor(x)
            for dy in range(-1, 3):
                for dx in range(-1, 3):
                    v = img[min(max(y0 + dy, 0), h - 1), min(max(x0 + dx, 0), w - 1)]
                    out[r, c] += v * np_keys(y - (y0 + dy)) * np_keys(x - (x0 + dx))
    return out


def np_area_1d(a, n_out, axis=-1):
    """Means over PyTorch's adaptive windows [floor(i n / o), ceil((i + 1) n / o))."""
    a = np.moveaxis(a, axis, -1)
    n = a.shape[-1]
    cols = [a[..., (i * n) // n_out: -((-(i + 1) * n) // n_out)].mean(-1) for i in range(n_out)]
    return np.moveaxis(np.stack(cols, -1), -1, axis)


@pytest.mark.parametrize("n_in,n_out", [(5, 9), (5, 3), (4, 8), (7, 7), (6, 1)])
@pytest.mark.parametrize("exact", [False, True])
def test_nearest_against_formula(n_in, n_out, exact):
    """nearest reads floor(i * n_in / n_out), nearest-exact floor((i + 0.5) * n_in / n_out)."""
    a = seeded(2, 3, n_in)
    y = F.interpolate(P(a, False), size=n_out, mode="nearest-exact" if exact else "nearest")
    src = np.floor((np.arange(n_out) + (0.5 if exact else 0.0)) * n_in / n_out).astype(int)
    np.testing.assert_array_equal(y.numpy(), a[..., np.minimum(src, n_in - 1)])
    # the same rule on both dims of a 2-d input (PyTorch's small-output kernel)
    b = seeded(1, 2, n_in, 3)
    y2 = F.interpolate(P(b, False), size=(n_out, 5), mode="nearest-exact" if exact else "nearest")
    cols = np.floor((np.arange(5) + (0.5 if exact else 0.0)) * 3 / 5).astype(int)
    np.testing.assert_array_equal(y2.numpy(), b[:, :, np.minimum(src, n_in - 1)][..., cols])


def test_nearest_kept_and_doubled_sizes_by_hand():
    """With a scale_factor, 1-d nearest floors i / scale even when the size is kept or doubled;
    2-d nearest with a small output copies a kept size and halves the index of a doubled one."""
    a = np.arange(5.0)
    one_d = {s: F.interpolate(P(a.reshape(1, 1, 5), False), scale_factor=s)[0, 0].numpy()
             for s in (1.1, 2.1)}
    np.testing.assert_array_equal(one_d[1.1], [0, 0, 1, 2, 3])
    np.testing.assert_array_equal(one_d[2.1], [0, 0, 0, 1, 1, 2, 2, 3, 3, 4])
    two_d = {s: F.interpolate(P(a.reshape(1, 1, 1, 5), False), scale_factor=s)[0, 0, 0].numpy()
             for s in (1.1, 2.1)}
    np.testing.assert_array_equal(two_d[1.1], a)
    np.testing.assert_array_equal(two_d[2.1], a.repeat(2))
    exact = F.interpolate(P(a.reshape(1, 1, 1, 5), False), scale_factor=2.1,
                          mode="nearest-exact")[0, 0, 0].numpy()
    np.testing.assert_array_equal(exact, np.floor((np.arange(10) + 0.5) / 2.1))


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("resize", [{"size": (9, 4)}, {"size": (2, 11)}, {"scale_factor": 1.7}])
def test_linear_modes_against_np_interp(align_corners, resize):
    """bilinear / trilinear are linear interpolation along each dim in turn."""
    a = seeded(2, 3, 5, 6)
    y = F.interpolate(P(a, False), mode="bilinear", align_corners=align_corners, **resize)
    oh, ow = y.shape[2:]
    scale = resize.get("scale_factor")
    want = np_linear_1d(np_linear_1d(a, ow, align_corners, -1, scale), oh, align_corners, -2,
                        scale)
    close(y, want, 1e-12)
    b = seeded(1, 2, 3, 4, 5)
    y3 = F.interpolate(P(b, False), size=(4, 2, 7), mode="trilinear", align_corners=align_corners)
    want3 = b
    for axis, n in zip((-1, -2, -3), (7, 2, 4)):
        want3 = np_linear_1d(want3, n, align_corners, axis)
    close(y3, want3, 1e-12)


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("out_hw", [(7, 9), (3, 2), (4, 4)])
def test_bicubic_against_direct_sum(align_corners, out_hw):
    a = seeded(1, 2, 4, 4)
    y = F.interpolate(P(a, False), size=out_hw, mode="bicubic", align_corners=align_corners)
    for c in range(2):
        close(y[0, c], np_bicubic(a[0, c], out_hw, align_corners), 1e-12)


@pytest.mark.parametrize("shape,out", [((2, 3, 7), (3,)), ((2, 3, 7, 5), (3, 4)),
                                       ((1, 2, 5, 4, 7), (2, 3, 3)), ((1, 2, 6, 6), (6, 2))])
def test_area_against_window_means(shape, out):
    a = seeded(*shape)
    y = F.interpolate(P(a, False), size=out, mode="area")
    want = a
    for i, n in enumerate(out):
        want = np_area_1d(want, n, axis=len(shape) - len(out) + i)
    close(y, want, 1e-12)


def test_hand_computed_grids():
    """The 2 x 2 grid [[1, 2], [3, 4]] doubled, values worked out by hand."""
    x = P([[[[1.0, 2.0], [3.0, 4.0]]]], False)
    near = F.interpolate(x, scale_factor=2, mode="nearest")
    np.testing.assert_array_equal(near[0, 0].numpy(), [[1, 1, 2, 2], [1, 1, 2, 2],
                                                       [3, 3, 4, 4], [3, 3, 4, 4]])
    # align_corners=False: sources -0.25 (held at 0), 0.25, 0.75, 1.25 (held at 1)
    bil = F.interpolate(x, scale_factor=2, mode="bilinear")
    np.testing.assert_allclose(bil[0, 0].numpy(), [[1.0, 1.25, 1.75, 2.0],
                                                   [1.5, 1.75, 2.25, 2.5],
                                                   [2.5, 2.75, 3.25, 3.5],
                                                   [3.0, 3.25, 3.75, 4.0]])
    # align_corners=True: the corners stay, thirds in between
    ali = F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True)
    third = np.array([0, 1, 2, 3]) / 3
    np.testing.assert_allclose(ali[0, 0].numpy(), 1 + third[None, :] + 2 * third[:, None])
    # area halving averages 2 x 2 blocks
    area = F.interpolate(P(np.arange(16.0).reshape(1, 1, 4, 4), False), size=2, mode="area")
    np.testing.assert_array_equal(area[0, 0].numpy(), [[2.5, 4.5], [10.5, 12.5]])


def test_antialias_halving_by_hand():
    """Antialiased bilinear halving: the triangle filter stretched to 4 pixels gives weights
    (1, 3, 3, 1) / 8, renormalised where the window leaves the image."""
    a = seeded(1, 1, 1, 8)
    y = F.interpolate(P(a, False), size=(1, 4), mode="bilinear", antialias=True)
    v = a[0, 0, 0]
    want = [(3 * v[0] + 3 * v[1] + v[2]) / 7] + [
        (v[2 * i - 1] + 3 * v[2 * i] + 3 * v[2 * i + 1] + v[2 * i + 2]) / 8 for i in (1, 2)] + [
        (v[5] + 3 * v[6] + 3 * v[7]) / 7]
    close(y[0, 0, 0], np.array(want), 1e-12)


def test_uint8_by_hand():
    """uint8 bilinear rounds half up after each dim; a constant image stays constant."""
    x = pyth.tensor(np.array([[[[0, 255], [255, 0]]]], dtype=np.uint8))
    y = F.interpolate(x, size=(2, 3), mode="bilinear", align_corners=True)
    assert y.dtype is pyth.uint8
    np.testing.assert_array_equal(y.numpy(), [[[[0, 128, 255], [255, 128, 0]]]])   # 127.5 up
    flat = pyth.full((1, 3, 5, 4), 77, dtype=pyth.uint8)
    for mode in ("bilinear", "bicubic"):
        for aa in (False, True):
            out = F.interpolate(flat, size=(7, 3), mode=mode, antialias=aa)
            np.testing.assert_array_equal(out.numpy(), np.full((1, 3, 7, 3), 77))
    bump = pyth.tensor(np.array([[[[0, 255, 255, 0]]]], dtype=np.uint8))
    cubic = F.interpolate(bump, size=(1, 7), mode="bicubic")     # overshoots, clamped to 255
    assert int(cubic.max()) == 255 and int(cubic.min()) == 0


def test_integer_nearest_keeps_values():
    a = np.arange(24, dtype=np.uint8).reshape(1, 2, 3, 4)
    y = F.interpolate(pyth.tensor(a), scale_factor=2)
    assert y.dtype is pyth.uint8
    np.testing.assert_array_equal(y.numpy(), a.repeat(2, axis=2).repeat(2, axis=3))


# ==== gradcheck ==================================================================================

# (mode, input shape, kwargs)
GRADCHECK = [
    ("nearest", (1, 2, 4), {"size": 7}),
    ("nearest", (1, 2, 3, 4), {"scale_factor": 1.6}),
    ("nearest", (1, 1, 2, 3, 3), {"size": (3, 2, 5)}),
    ("nearest-exact", (1, 2, 3, 4), {"size": (5, 2)}),
    ("nearest-exact", (1, 1, 2, 3, 2), {"scale_factor": 1.5}),
    ("linear", (2, 2, 5), {"size": 8}),
    ("linear", (2, 2, 5), {"size": 3, "align_corners": True}),
    ("bilinear", (1, 2, 3, 4), {"scale_factor": 1.7}),
    ("bilinear", (1, 2, 3, 4), {"size": (5, 2), "align_corners": True}),
    ("bicubic", (1, 2, 3, 4), {"size": (5, 6)}),
    ("bicubic", (1, 1, 4, 3), {"size": (2, 5), "align_corners": True}),
    ("trilinear", (1, 1, 2, 3, 3), {"size": (3, 4, 2)}),
    ("trilinear", (1, 1, 2, 3, 3), {"scale_factor": 1.5, "align_corners": True}),
    ("area", (1, 2, 7), {"size": 3}),
    ("area", (1, 2, 5, 4), {"size": (2, 3)}),
    ("area", (1, 1, 4, 3, 5), {"size": (3, 2, 2)}),
    ("bilinear", (1, 2, 6, 5), {"size": (2, 7), "antialias": True}),
    ("bicubic", (1, 1, 7, 6), {"size": (3, 4), "antialias": True}),
    ("lanczos", (1, 1, 7, 6), {"size": (3, 9), "antialias": True}),
]


@pytest.mark.parametrize("mode,shape,kw", GRADCHECK,
                         ids=[f"{m}-{'x'.join(map(str, s))}-{k}" for m, s, k in GRADCHECK])
def test_gradcheck(mode, shape, kw):
    x = P(seeded(*shape))
    assert gradcheck(lambda t: F.interpolate(t, mode=mode, **kw), (x,))
    # the same values with permuted strides
    assert gradcheck(lambda t: F.interpolate(t.transpose(0, -1).contiguous().transpose(0, -1),
                                             mode=mode, **kw), (x,))


@pytest.mark.parametrize("mode,kw", [("bilinear", {"size": (5, 3)}),
                                     ("bicubic", {"scale_factor": 1.5, "align_corners": True}),
                                     ("area", {"size": (2, 3)}), ("nearest", {"size": (4, 7)}),
                                     ("lanczos", {"size": (2, 2), "antialias": True})])
def test_gradgradcheck(mode, kw):
    """Second derivatives too: the compositions are differentiable all the way down."""
    assert gradgradcheck(lambda t: F.interpolate(t, mode=mode, **kw), (P(seeded(1, 2, 3, 4)),))


# ==== pixel and channel shuffles =================================================================

def np_pixel_shuffle(a, r):
    *lead, c, h, w = a.shape
    b = a.reshape(*lead, c // (r * r), r, r, h, w)
    k = len(lead)
    b = b.transpose(*range(k + 1), k + 3, k + 1, k + 4, k + 2)
    return b.reshape(*lead, c // (r * r), h * r, w * r)


def np_channel_shuffle(a, g):
    n, c, *rest = a.shape
    return a.reshape(n, g, c // g, *rest).swapaxes(1, 2).reshape(a.shape)


# (input shape, factor)
SHUFFLES = [((2, 8, 3, 4), 2), ((9, 2, 3), 3), ((2, 1, 3, 4, 5), 1), ((1, 2, 2, 18, 1, 2), 3),
            ((0, 4, 2, 2), 2), ((2, 0, 2, 3), 2), ((2, 4, 0, 3), 2)]


@pytest.mark.parametrize("shape,r", SHUFFLES, ids=[f"{s}-{r}" for s, r in SHUFFLES])
def test_pixel_shuffle_roundtrip(shape, r):
    a = seeded(*shape)
    y = F.pixel_shuffle(P(a, False), r)
    want = np_pixel_shuffle(a, r)
    assert tuple(y.shape) == want.shape and y.is_contiguous()
    np.testing.assert_array_equal(y.numpy(), want)
    back = F.pixel_unshuffle(y, r)
    np.testing.assert_array_equal(back.numpy(), a)
    if torch is not None:
        np.testing.assert_array_equal(y.numpy(), TF.pixel_shuffle(torch.tensor(a), r).numpy())
        if want.size:   # PyTorch's CPU pixel_unshuffle returns an empty input's shape unchanged
            np.testing.assert_array_equal(
                back.numpy(), TF.pixel_unshuffle(torch.tensor(want), r).numpy())


@pytest.mark.parametrize("fn", ["channel_shuffle", "native_channel_shuffle"])
@pytest.mark.parametrize("shape,g", [((2, 6, 3), 2), ((2, 6, 3), 3), ((1, 8, 2, 3), 4),
                                     ((2, 6, 1, 2, 2), 6), ((2, 5, 3), 1), ((0, 4, 2), 2),
                                     ((2, 0, 3), 3), ((2, 4, 0), 2)])
def test_channel_shuffle(fn, shape, g):
    a = seeded(*shape)
    y = getattr(F, fn)(P(a, False), g)
    np.testing.assert_array_equal(y.numpy(), np_channel_shuffle(a, g))
    assert y.is_contiguous()
    if torch is not None:
        np.testing.assert_array_equal(y.numpy(), getattr(TF, fn)(torch.tensor(a), g).numpy())


@pytest.mark.parametrize("name", ["int64", "uint8", "bool", "float32", "int32"])
def test_shuffles_keep_dtype(name):
    a = (np.arange(2 * 8 * 2 * 2) % 7).reshape(2, 8, 2, 2).astype(name)
    x = pyth.tensor(a, dtype=getattr(pyth, name))
    for fn, want in ((F.pixel_shuffle, np_pixel_shuffle(a, 2)),
                     (F.channel_shuffle, np_channel_shuffle(a, 4))):
        y = fn(x, 2 if fn is F.pixel_shuffle else 4)
        assert y.dtype is x.dtype
        np.testing.assert_array_equal(y.numpy(), want)


def test_shuffles_return_new_memory():
    """Factor 1 still copies (as PyTorch's)."""
    x = P(np.ones((1, 4, 2, 2)), False)
    for y in (F.pixel_shuffle(x, 1), F.pixel_unshuffle(x, 1), F.channel_shuffle(x, 1),
              F.channel_shuffle(x, 4), F.native_channel_shuffle(x, 1)):
        y.fill_(3.0)
        np.testing.assert_array_equal(x.numpy(), np.ones((1, 4, 2, 2)))


@needs_torch
@pytest.mark.parametrize("layout", ["transposed", "expanded", "stepped"])
def test_shuffle_layouts_and_gradients(layout):
    base, view = {"transposed": ((2, 4, 8, 6), lambda x: x.transpose(1, 2)),
                  "expanded": ((1, 8, 2, 4), lambda x: x.expand(3, 8, 2, 4)),
                  "stepped": ((2, 8, 4, 6), lambda x: x[..., ::2, ::3])}[layout]
    run_both(lambda x: F.pixel_shuffle(x, 2), lambda x: TF.pixel_shuffle(x, 2), [seeded(*base)],
             views=[view])
    run_both(lambda x: F.pixel_unshuffle(x, 2), lambda x: TF.pixel_unshuffle(x, 2),
             [seeded(*base)], views=[view])
    run_both(lambda x: F.channel_shuffle(x, 2), lambda x: TF.channel_shuffle(x, 2),
             [seeded(*base)], views=[view])


def test_shuffle_gradcheck():
    x = P(seeded(2, 8, 2, 3))
    assert gradcheck(lambda t: F.pixel_shuffle(t, 2), (x,))
    assert gradcheck(lambda t: F.pixel_unshuffle(t.transpose(2, 3), 1), (x,))
    assert gradcheck(lambda t: F.channel_shuffle(t, 4), (x,))


# ==== modules and the deprecated aliases =========================================================

# (class, args, kwargs, PyTorch's repr)
MODULES = [
    ("Upsample", (), {"scale_factor": 2}, "Upsample(scale_factor=2.0, mode='nearest')"),
    ("Upsample", (3,), {}, "Upsample(size=3, mode='nearest')"),
    ("Upsample", ((3, 4),), {"mode": "bilinear"}, "Upsample(size=(3, 4), mode='bilinear')"),
    ("Upsample", (), {"scale_factor": (2, 1.5)},
     "Upsample(scale_factor=(2.0, 1.5), mode='nearest')"),
    ("Upsample", (), {"scale_factor": 1.5, "mode": "bicubic", "align_corners": True},
     "Upsample(scale_factor=1.5, mode='bicubic')"),
    ("Upsample", (), {"scale_factor": 1.5, "mode": "bilinear", "recompute_scale_factor": True},
     "Upsample(scale_factor=1.5, mode='bilinear')"),
    ("Upsample", (), {"size": [3, 5], "mode": "area"}, "Upsample(size=[3, 5], mode='area')"),
    ("UpsamplingNearest2d", (), {"scale_factor": 2},
     "UpsamplingNearest2d(scale_factor=2.0, mode='nearest')"),
    ("UpsamplingNearest2d", ((3, 5),), {}, "UpsamplingNearest2d(size=(3, 5), mode='nearest')"),
    ("UpsamplingBilinear2d", (), {"size": 4}, "UpsamplingBilinear2d(size=4, mode='bilinear')"),
    ("UpsamplingBilinear2d", (), {"scale_factor": 1.5},
     "UpsamplingBilinear2d(scale_factor=1.5, mode='bilinear')"),
    ("PixelShuffle", (2,), {}, "PixelShuffle(upscale_factor=2)"),
    ("PixelUnshuffle", (2,), {}, "PixelUnshuffle(downscale_factor=2)"),
    ("ChannelShuffle", (2,), {}, "ChannelShuffle(groups=2)"),
]
ATTRS = ["name", "size", "scale_factor", "mode", "align_corners", "recompute_scale_factor",
         "upscale_factor", "downscale_factor", "groups"]


@pytest.mark.parametrize("name,args,kw,rep", MODULES, ids=[m[3] for m in MODULES])
def test_module_is_the_functional(name, args, kw, rep):
    m = getattr(nn, name)(*args, **kw)
    assert repr(m) == rep
    assert list(m.parameters()) == []
    x = P(seeded(2, 4, 4, 6), False)
    if name.startswith("Up"):
        want = F.interpolate(x, m.size, m.scale_factor, m.mode, m.align_corners,
                             recompute_scale_factor=m.recompute_scale_factor)
    else:
        want = getattr(F, {"PixelShuffle": "pixel_shuffle", "PixelUnshuffle": "pixel_unshuffle",
                           "ChannelShuffle": "channel_shuffle"}[name])(x, args[0])
    np.testing.assert_array_equal(m(x).numpy(), want.numpy())


@needs_torch
@pytest.mark.parametrize("name,args,kw,rep", MODULES, ids=[m[3] for m in MODULES])
def test_module_matches_torch(name, args, kw, rep):
    pm, tm = getattr(nn, name)(*args, **kw), getattr(torch.nn, name)(*args, **kw)
    assert repr(tm) == rep           # the table is PyTorch's
    assert repr(pm) == repr(tm)
    for attr in ATTRS:
        assert getattr(pm, attr, None) == getattr(tm, attr, None), attr
    run_both(pm, tm, [seeded(2, 4, 4, 6)])


def test_upsampling_bilinear_aligns_corners():
    m = nn.UpsamplingBilinear2d(scale_factor=2)
    assert m.mode == "bilinear" and m.align_corners is True
    x = P(seeded(1, 2, 3, 3), False)
    np.testing.assert_array_equal(
        m(x).numpy(), F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True).numpy())
    assert nn.Upsample(scale_factor=0).scale_factor is None      # a falsy factor is dropped


@pytest.mark.parametrize("name,kw", [
    ("upsample", {"scale_factor": 2}),
    ("upsample", {"size": (3, 5), "mode": "bilinear", "align_corners": True}),
    ("upsample_nearest", {"size": 5}),
    ("upsample_bilinear", {"scale_factor": 1.5}),
])
def test_deprecated_aliases(name, kw):
    """They warn, and equal F.interpolate (upsample_bilinear with align_corners=True)."""
    x = P(seeded(1, 2, 3, 4), False)
    with pytest.warns(UserWarning, match="deprecated"):
        y = getattr(F, name)(x, **kw)
    full = dict(kw)
    full.setdefault("mode", {"upsample_bilinear": "bilinear"}.get(name, "nearest"))
    if name == "upsample_bilinear":
        full["align_corners"] = True
    np.testing.assert_array_equal(y.numpy(), F.interpolate(x, **full).numpy())
    if torch is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t = getattr(TF, name)(torch.tensor(x.numpy()), **kw)
        close(y, t, 1e-12)


@needs_torch
@pytest.mark.parametrize("name", ["interpolate", "upsample", "upsample_nearest",
                                  "upsample_bilinear"])
def test_signatures(name):
    def params(f):
        return [(p.name, p.default) for p in inspect.signature(f).parameters.values()]
    assert params(getattr(F, name)) == params(getattr(TF, name))
    for cls in ("Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d", "PixelShuffle",
                "PixelUnshuffle", "ChannelShuffle"):
        assert params(getattr(nn, cls).__init__) == params(getattr(torch.nn, cls).__init__)


# ==== errors =====================================================================================

_X3, _X4, _X5 = seeded(2, 3, 5), seeded(2, 3, 5, 6), seeded(1, 2, 3, 4, 5)
INTERP = r"(?i)interpolat|upsample|size|scale|mode|input|align|anti|lanczos|pool|overflow"
INF, NAN = math.inf, math.nan


def _i(a, dtype="float64"):
    return np.asarray(a).astype(dtype)


# (id, call(functional module, tensor maker), exception class, loose message regex)
ERRORS = [
    ("size-and-scale", lambda f, mk: f.interpolate(mk(_X4), size=3, scale_factor=2),
     ValueError, "only one"),
    ("neither", lambda f, mk: f.interpolate(mk(_X4)), ValueError, "either"),
    ("align-nearest", lambda f, mk: f.interpolate(mk(_X4), size=3, align_corners=True),
     ValueError, "align_corners"),
    ("align-False-area", lambda f, mk: f.interpolate(mk(_X4), size=3, mode="area",
                                                     align_corners=False), ValueError,
     "align_corners"),
    ("align-exact", lambda f, mk: f.interpolate(mk(_X3), size=3, mode="nearest-exact",
                                                align_corners=False), ValueError,
     "align_corners"),
    ("size-length", lambda f, mk: f.interpolate(mk(_X4), size=(3, 4, 5)), ValueError,
     "spatial dimensions"),
    ("scale-length", lambda f, mk: f.interpolate(mk(_X4), scale_factor=(2, 2, 2)), ValueError,
     "spatial dimensions"),
    ("size-float-in-list", lambda f, mk: f.interpolate(mk(_X4), size=(3.0, 4)), TypeError,
     "size"),
    ("size-float", lambda f, mk: f.interpolate(mk(_X4), size=3.0), TypeError, INTERP),
    ("size-bool", lambda f, mk: f.interpolate(mk(_X4), size=True), TypeError, INTERP),
    ("size-none-in-list", lambda f, mk: f.interpolate(mk(_X4), size=(None, 3)), TypeError,
     "size"),
    ("scale-str", lambda f, mk: f.interpolate(mk(_X4), scale_factor="a"), TypeError, INTERP),
    ("scale-none-in-list", lambda f, mk: f.interpolate(mk(_X4), scale_factor=(None, 2)),
     TypeError, INTERP),
    ("align-not-bool", lambda f, mk: f.interpolate(mk(_X4), size=3, mode="bilinear",
                                                   align_corners=1), TypeError, INTERP),
    ("recompute-with-size", lambda f, mk: f.interpolate(mk(_X4), size=3,
                                                        recompute_scale_factor=True),
     ValueError, "recompute_scale_factor"),
    ("bilinear-3d", lambda f, mk: f.interpolate(mk(_X3), size=3, mode="bilinear"),
     RuntimeError, "3D input.*4D"),
    ("linear-4d", lambda f, mk: f.interpolate(mk(_X4), size=3, mode="linear"), RuntimeError,
     "4D input.*3D"),
    ("trilinear-4d", lambda f, mk: f.interpolate(mk(_X4), size=3, mode="trilinear"),
     RuntimeError, "4D input.*5D"),
    ("linear-5d", lambda f, mk: f.interpolate(mk(_X5), size=3, mode="linear"), RuntimeError,
     "5D input"),
    ("bicubic-3d", lambda f, mk: f.interpolate(mk(_X3), size=3, mode="bicubic"), RuntimeError,
     "bicubic"),
    ("bicubic-5d", lambda f, mk: f.interpolate(mk(_X5), size=3, mode="bicubic"), RuntimeError,
     "bicubic"),
    ("unknown-mode", lambda f, mk: f.interpolate(mk(_X4), size=3, mode="cubic"), RuntimeError,
     "cubic"),
    ("mode-case", lambda f, mk: f.interpolate(mk(_X4), size=3, mode="Bilinear"), RuntimeError,
     "Bilinear"),
    ("mode-none", lambda f, mk: f.interpolate(mk(_X4), size=3, mode=None), RuntimeError,
     "None"),
    ("2d-input", lambda f, mk: f.interpolate(mk(seeded(3, 4)), size=3), RuntimeError, "2D"),
    ("6d-input", lambda f, mk: f.interpolate(mk(seeded(1, 1, 2, 2, 2, 2)), size=3), RuntimeError,
     "6D"),
    ("antialias-nearest", lambda f, mk: f.interpolate(mk(_X4), size=3, antialias=True),
     ValueError, "(?i)anti-alias"),
    ("antialias-linear", lambda f, mk: f.interpolate(mk(_X3), size=3, mode="linear",
                                                     antialias=True), ValueError,
     "(?i)anti-alias"),
    ("antialias-area", lambda f, mk: f.interpolate(mk(_X4), size=3, mode="area",
                                                   antialias=True), ValueError, "(?i)anti-alias"),
    ("antialias-trilinear", lambda f, mk: f.interpolate(mk(_X5), size=3, mode="trilinear",
                                                        antialias=True), ValueError,
     "(?i)anti-alias"),
    ("lanczos-no-antialias", lambda f, mk: f.interpolate(mk(_X4), size=3, mode="lanczos"),
     ValueError, "(?i)lanczos"),
    ("lanczos-align", lambda f, mk: f.interpolate(mk(_X4), size=3, mode="lanczos",
                                                  antialias=True, align_corners=True),
     ValueError, "(?i)lanczos"),
    ("size-0", lambda f, mk: f.interpolate(mk(_X4), size=0), RuntimeError, "greater than 0"),
    ("size-negative", lambda f, mk: f.interpolate(mk(_X4), size=-1, mode="bilinear"),
     RuntimeError, "greater than 0"),
    ("scale-0", lambda f, mk: f.interpolate(mk(_X3), scale_factor=0, mode="linear"),
     RuntimeError, "greater than 0"),
    ("scale-negative", lambda f, mk: f.interpolate(mk(_X5), scale_factor=-2), RuntimeError,
     "greater than 0"),
    ("scale-too-small", lambda f, mk: f.interpolate(mk(_X4), scale_factor=0.1,
                                                    mode="bicubic"), RuntimeError,
     "greater than 0"),
    ("empty-height", lambda f, mk: f.interpolate(mk(seeded(2, 3, 0, 4)), size=3), RuntimeError,
     "greater than 0"),
    ("no-channels", lambda f, mk: f.interpolate(mk(seeded(2, 0, 5, 6)), size=3, mode="bilinear"),
     RuntimeError, "Non-empty 4D"),
    ("no-channels-1d", lambda f, mk: f.interpolate(mk(seeded(2, 0, 5)), size=3), RuntimeError,
     "Non-empty 3D"),
    ("no-channels-aa", lambda f, mk: f.interpolate(mk(seeded(2, 0, 5, 6)), size=3,
                                                   mode="bicubic", antialias=True),
     RuntimeError, "Non-empty"),
    ("area-negative", lambda f, mk: f.interpolate(mk(_X4), size=-1, mode="area"),
     RuntimeError, "output_size"),
    ("area-negative-3d", lambda f, mk: f.interpolate(mk(_X5), size=(2, -1, 2), mode="area"),
     RuntimeError, "output_size"),
    ("area-empty-width", lambda f, mk: f.interpolate(mk(seeded(2, 2, 0)), size=2, mode="area"),
     RuntimeError, "non-zero size"),
    ("area-3d-no-channels", lambda f, mk: f.interpolate(mk(seeded(1, 0, 3, 4, 5)), size=2,
                                                        mode="area"), RuntimeError,
     "non-zero size"),
    ("scale-inf", lambda f, mk: f.interpolate(mk(_X3), scale_factor=INF), RuntimeError,
     "overflow"),
    ("scale-nan", lambda f, mk: f.interpolate(mk(_X3), scale_factor=NAN), RuntimeError,
     "overflow"),
    ("scale-huge", lambda f, mk: f.interpolate(mk(_X3), scale_factor=1e30), RuntimeError,
     "overflow"),
    ("size-huge", lambda f, mk: f.interpolate(mk(_X3), size=2**62), RuntimeError, "overflow"),
    ("recompute-inf", lambda f, mk: f.interpolate(mk(_X4), scale_factor=INF,
                                                  recompute_scale_factor=True), OverflowError,
     "infinity"),
    ("recompute-nan", lambda f, mk: f.interpolate(mk(_X4), scale_factor=NAN,
                                                  recompute_scale_factor=True), ValueError,
     "NaN"),
    # dtypes PyTorch's CPU kernels refuse
    ("int32-nearest", lambda f, mk: f.interpolate(mk(_i(_X4, "int32")), size=3), RuntimeError,
     "Int"),
    ("int64-nearest-exact-1d", lambda f, mk: f.interpolate(mk(_i(_X3, "int64")), size=3,
                                                           mode="nearest-exact"),
     RuntimeError, "Long"),
    ("bool-nearest-3d", lambda f, mk: f.interpolate(mk(_i(_X5, "bool")), size=3),
     RuntimeError, "Bool"),
    ("int16-bilinear", lambda f, mk: f.interpolate(mk(_i(_X4, "int16")), size=3,
                                                   mode="bilinear"), RuntimeError, "Short"),
    ("uint8-linear", lambda f, mk: f.interpolate(mk(_i(_X3, "uint8")), size=3, mode="linear"),
     RuntimeError, "Byte"),
    ("uint8-trilinear", lambda f, mk: f.interpolate(mk(_i(_X5, "uint8")), size=3,
                                                    mode="trilinear"), RuntimeError, "Byte"),
    ("uint8-area", lambda f, mk: f.interpolate(mk(_i(_X4, "uint8")), size=3, mode="area"),
     RuntimeError, "Byte"),
    ("int8-bicubic", lambda f, mk: f.interpolate(mk(_i(_X4, "int8")), size=3, mode="bicubic"),
     RuntimeError, "Char"),
    ("half-antialias", lambda f, mk: f.interpolate(mk(_i(_X4, "float16")), size=3,
                                                   mode="bilinear", antialias=True),
     RuntimeError, "Half"),
    # shuffles
    ("pixel_shuffle-2d", lambda f, mk: f.pixel_shuffle(mk(seeded(4, 4)), 2), RuntimeError,
     "at least 3"),
    ("pixel_shuffle-0", lambda f, mk: f.pixel_shuffle(mk(_X4), 0), RuntimeError, "positive"),
    ("pixel_shuffle-negative", lambda f, mk: f.pixel_shuffle(mk(seeded(1, 4, 2, 2)), -2),
     RuntimeError, "positive"),
    ("pixel_shuffle-channels", lambda f, mk: f.pixel_shuffle(mk(seeded(1, 8, 2, 2)), 3),
     RuntimeError, "divisible"),
    ("pixel_shuffle-float", lambda f, mk: f.pixel_shuffle(mk(_X4), 2.0), TypeError, "int"),
    ("pixel_shuffle-bool", lambda f, mk: f.pixel_shuffle(mk(_X4), True), TypeError, "int"),
    ("pixel_shuffle-huge", lambda f, mk: f.pixel_shuffle(mk(seeded(1, 4, 1, 1)), 2**40),
     ValueError, "too large"),
    ("pixel_shuffle-list", lambda f, mk: f.pixel_shuffle([1.0], 2), TypeError, "Tensor"),
    ("pixel_unshuffle-2d", lambda f, mk: f.pixel_unshuffle(mk(seeded(4, 4)), 2), RuntimeError,
     "at least 3"),
    ("pixel_unshuffle-0", lambda f, mk: f.pixel_unshuffle(mk(_X4), 0), RuntimeError,
     "positive"),
    ("pixel_unshuffle-height", lambda f, mk: f.pixel_unshuffle(mk(seeded(1, 1, 3, 4)), 2),
     RuntimeError, "height"),
    ("pixel_unshuffle-width", lambda f, mk: f.pixel_unshuffle(mk(seeded(1, 1, 4, 3)), 2),
     RuntimeError, "width"),
    ("pixel_unshuffle-float", lambda f, mk: f.pixel_unshuffle(mk(_X4), 1.0), TypeError, "int"),
    ("channel_shuffle-2d", lambda f, mk: f.channel_shuffle(mk(seeded(2, 8)), 2), RuntimeError,
     "> 2 dims"),
    ("channel_shuffle-1d", lambda f, mk: f.channel_shuffle(mk(seeded(8)), 2), RuntimeError,
     "> 2 dims"),
    ("channel_shuffle-0", lambda f, mk: f.channel_shuffle(mk(_X4), 0), RuntimeError,
     "positive"),
    ("channel_shuffle-negative", lambda f, mk: f.channel_shuffle(mk(_X4), -3), RuntimeError,
     "positive"),
    ("channel_shuffle-divisible", lambda f, mk: f.channel_shuffle(mk(seeded(2, 8, 3)), 3),
     RuntimeError, "divisible"),
    ("channel_shuffle-float", lambda f, mk: f.channel_shuffle(mk(_X4), 3.0), TypeError, "int"),
    ("native_channel_shuffle-divisible",
     lambda f, mk: f.native_channel_shuffle(mk(seeded(2, 8, 3)), 3), RuntimeError, "divisible"),
    ("native_channel_shuffle-2d", lambda f, mk: f.native_channel_shuffle(mk(seeded(2, 8)), 2),
     RuntimeError, "> 2 dims"),
    # modules
    ("Upsample-list-scale", lambda f, mk: (nn if f is F else torch.nn).Upsample(
        scale_factor=[2, 3]), TypeError, "float"),
    ("ChannelShuffle-divisible", lambda f, mk: (nn if f is F else torch.nn).ChannelShuffle(3)(
        mk(seeded(2, 8, 3))), RuntimeError, "divisible"),
    ("UpsamplingBilinear2d-3d", lambda f, mk: (nn if f is F else torch.nn).UpsamplingBilinear2d(
        scale_factor=2)(mk(_X3)), RuntimeError, "bilinear"),
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


@needs_torch
@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "int64", "bool", "float16",
                                  "bfloat16", "float32", "float64"])
def test_dtype_support_matches_torch(name):
    """Every mode accepts exactly the dtypes PyTorch's CPU kernels accept (NotImplementedError,
    a RuntimeError, for the others), and keeps the input's dtype."""
    a = np.abs(seeded(1, 2, 4, 5)) * 3
    calls = [(3, {"mode": m}) for m in MODES_BY_DIM[1]] + \
            [(4, {"mode": m}) for m in MODES_BY_DIM[2]] + \
            [(5, {"mode": m}) for m in MODES_BY_DIM[3]] + \
            [(4, {"mode": m, "antialias": True}) for m in ("bilinear", "bicubic", "lanczos")]
    for ndim, kw in calls:
        v = a.reshape((1, 2, 20) if ndim == 3 else (1, 2, 4, 5) if ndim == 4 else (1, 2, 2, 2, 5))
        t = torch.tensor(v.astype(np.float32)).to(getattr(torch, name))
        p = pyth.tensor(v.astype(np.float32)).to(getattr(pyth, name))
        try:
            want = TF.interpolate(t, scale_factor=1.5, **kw)
        except Exception as e:  # noqa: BLE001
            with pytest.raises(expected_error(e)):
                F.interpolate(p, scale_factor=1.5, **kw)
            continue
        got = F.interpolate(p, scale_factor=1.5, **kw)
        assert dtype_name(got) == dtype_name(want) == name, kw
        tol = 0 if name == "uint8" else 2e-2 if name in ("float16", "bfloat16") else 1e-5
        np.testing.assert_allclose(got.float().numpy(), want.float().numpy(), rtol=tol, atol=tol)

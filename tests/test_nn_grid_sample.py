"""F.grid_sample (generic/THNNGridSampler.c) and F.affine_grid: values and gradients for the
input and the grid against PyTorch over modes x padding modes x align_corners, with points
inside, on the border and outside; float32/float64, strided operands, empty batches and outputs;
gradcheck in float64 (no torch needed); the error messages and exception types."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from _support import needs_torch

import pyth
import pyth.nn.functional as F
from pyth.autograd import gradcheck, gradgradcheck
from pyth.nn._grid_sample import _composed

try:
    import torch
    import torch.nn.functional as TF
except ImportError:   # the torch comparisons skip; gradcheck and the composed oracle still run
    torch = TF = None

MODES_2D = ["bilinear", "nearest", "bicubic"]
MODES_3D = ["bilinear", "nearest"]
PADDINGS = ["zeros", "border", "reflection"]
TOL = {"float32": 2e-5, "float64": 1e-12}


def _grid(rng, shape, dtype="float64"):
    """Grid points of shape (..., k): random ones inside and outside [-1, 1] mixed with the
    borders (+-1), the centre and points far outside, so every padding rule is exercised."""
    g = rng.uniform(-1.7, 1.7, shape)
    special = np.array([-1.0, 1.0, 0.0, -1.5, 1.5, -3.25, 4.0, 1 / 3])
    flat = g.reshape(-1)
    flat[: 3 * len(special): 3] = special[np.arange(len(flat[: 3 * len(special): 3])) %
                                          len(special)]
    return g.astype(dtype)


def _compare(x, g, mode, padding, align, dtype, views=(None, None)):
    """grid_sample of x and g (numpy) in pyth and PyTorch through views; values, then the
    gradients of input and grid for one upstream gradient."""
    px = pyth.tensor(x, dtype=getattr(pyth, dtype)).requires_grad_()
    pg = pyth.tensor(g, dtype=getattr(pyth, dtype)).requires_grad_()
    tx = torch.tensor(x, dtype=getattr(torch, dtype), requires_grad=True)
    tg = torch.tensor(g, dtype=getattr(torch, dtype), requires_grad=True)
    vx, vg = (v or (lambda t: t) for v in views)
    y = F.grid_sample(vx(px), vg(pg), mode, padding, align)
    ty = TF.grid_sample(vx(tx), vg(tg), mode, padding, align)
    assert tuple(y.shape) == tuple(ty.shape) and y.dtype is getattr(pyth, dtype)
    tol = TOL[dtype]
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=tol, atol=tol)
    if ty.numel():
        up = np.random.default_rng(7).standard_normal(tuple(ty.shape))
        y.backward(pyth.tensor(up, dtype=y.dtype))
        ty.backward(torch.tensor(up, dtype=ty.dtype))
        np.testing.assert_allclose(px.grad.numpy(), tx.grad.numpy(), rtol=tol, atol=tol)
        np.testing.assert_allclose(pg.grad.numpy(), tg.grad.numpy(), rtol=tol, atol=tol * 10)
        if mode == "nearest":
            assert not pg.grad.numpy().any()
    return y


# ---- against PyTorch -----------------------------------------------------------------------------

@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("mode,padding,align",
                         list(itertools.product(MODES_2D, PADDINGS, [False, True])))
def test_2d_matches_torch(mode, padding, align, dtype):
    rng = np.random.default_rng(hash((mode, padding, align)) % 2**32)
    x = rng.standard_normal((2, 3, 4, 5))
    _compare(x, _grid(rng, (2, 5, 6, 2)), mode, padding, align, dtype)


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("mode,padding,align",
                         list(itertools.product(MODES_3D, PADDINGS, [False, True])))
def test_3d_matches_torch(mode, padding, align, dtype):
    rng = np.random.default_rng(hash((mode, padding, align, 3)) % 2**32)
    x = rng.standard_normal((2, 2, 3, 4, 5))
    _compare(x, _grid(rng, (2, 3, 2, 4, 3)), mode, padding, align, dtype)


@needs_torch
@pytest.mark.parametrize("mode", MODES_2D)
def test_pixel_centres_and_unit_sizes(mode):
    """Points exactly on pixel centres and cell edges (where floor and rounding decide), and
    inputs one pixel wide (align_corners then maps every point to that pixel)."""
    rng = np.random.default_rng(3)
    for h, w, align in ((4, 5, True), (4, 5, False), (1, 5, True), (3, 1, False), (1, 1, True)):
        xs = np.arange(w) * 2 / max(w - 1, 1) - 1 if align else (2 * np.arange(w) + 1) / w - 1
        ys = np.arange(h) * 2 / max(h - 1, 1) - 1 if align else (2 * np.arange(h) + 1) / h - 1
        edges = np.linspace(-1, 1, 2 * w + 1)
        pts = np.stack(np.meshgrid(np.concatenate([xs, edges]), np.concatenate([ys, [-1, 1]])),
                       -1)[None]
        x = rng.standard_normal((1, 2, h, w))
        for padding in PADDINGS:
            _compare(x, pts, mode, padding, align, "float64")


@needs_torch
def test_strided_operands():
    """A transposed input, a grid permuted from (N, 2, H, W), a grid expanded over the batch
    and a sliced input: read through their strides."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 3, 5, 4))
    g = _grid(rng, (2, 2, 6, 7))
    for mode, padding in (("bilinear", "zeros"), ("bicubic", "reflection"),
                          ("nearest", "border")):
        _compare(x, g, mode, padding, False, "float64",
                 (lambda t: t.transpose(2, 3), lambda t: t.permute(0, 2, 3, 1)))
    g1 = _grid(rng, (1, 6, 7, 2))
    _compare(x, g1, "bilinear", "border", True, "float32",
             (lambda t: t[:, ::2, 1:], lambda t: t.expand(2, 6, 7, 2)))
    x5 = rng.standard_normal((2, 3, 4, 3, 5))
    g5 = _grid(rng, (2, 2, 3, 4, 3))
    _compare(x5, g5, "bilinear", "reflection", False, "float64",
             (lambda t: t.transpose(2, 4), lambda t: t.transpose(1, 3)))


@needs_torch
@pytest.mark.parametrize("shape,gshape", [((0, 3, 4, 5), (0, 2, 3, 2)),
                                          ((2, 0, 4, 5), (2, 2, 3, 2)),
                                          ((2, 3, 4, 5), (2, 0, 3, 2)),
                                          ((0, 2, 2, 3, 4), (0, 1, 2, 3, 3)),
                                          ((2, 3, 2, 3, 4), (2, 1, 0, 3, 3))])
def test_zero_size(shape, gshape):
    x = np.ones(shape)
    g = np.zeros(gshape)
    y = _compare(x, g, "bilinear", "zeros", False, "float64")
    assert y.numel() == 0
    px, pg = pyth.ones(*shape).requires_grad_(), pyth.zeros(*gshape).requires_grad_()
    F.grid_sample(px, pg, align_corners=False).sum().backward()
    assert tuple(px.grad.shape) == shape and not px.grad.numpy().any()
    assert tuple(pg.grad.shape) == gshape and not pg.grad.numpy().any()


@needs_torch
def test_nan_and_infinite_points():
    """Non-finite coordinates as PyTorch treats them: with 'zeros' a NaN weight reaches the
    output (bilinear, bicubic) while nearest reads zero; border and reflection clip a NaN to 0
    and infinities to the edges."""
    nan, inf = float("nan"), float("inf")
    g = np.array([[[[nan, 0.3], [inf, 0.1], [1e30, 0.0], [0.2, -inf], [-1e30, 0.5]]]])
    x = np.arange(12.0).reshape(1, 1, 3, 4)
    for mode, padding, dtype in itertools.product(MODES_2D, PADDINGS, ["float32", "float64"]):
        y = F.grid_sample(pyth.tensor(x, dtype=getattr(pyth, dtype)),
                          pyth.tensor(g, dtype=getattr(pyth, dtype)), mode, padding, False)
        ty = TF.grid_sample(torch.tensor(x, dtype=getattr(torch, dtype)),
                            torch.tensor(g, dtype=getattr(torch, dtype)), mode, padding, False)
        np.testing.assert_allclose(y.numpy(), ty.numpy(), rtol=1e-6, atol=1e-6,
                                   err_msg=f"{mode} {padding} {dtype}")


@needs_torch
def test_half_types_and_threads():
    """float16 / bfloat16 compute in float32 and round once; a sampling large enough to split
    between threads gives the same values and gradients."""
    rng = np.random.default_rng(5)
    x, g = rng.standard_normal((1, 2, 4, 5)), _grid(rng, (1, 3, 3, 2))
    for name, tol in (("float16", 3e-3), ("bfloat16", 3e-2)):
        y = F.grid_sample(pyth.tensor(x).to(getattr(pyth, name)),
                          pyth.tensor(g).to(getattr(pyth, name)), align_corners=True)
        ty = TF.grid_sample(torch.tensor(x).to(getattr(torch, name)),
                            torch.tensor(g).to(getattr(torch, name)), align_corners=True)
        assert y.dtype is getattr(pyth, name)
        np.testing.assert_allclose(y.float().numpy(), ty.float().numpy(), rtol=tol, atol=tol)
    x, g = rng.standard_normal((4, 8, 24, 24)), _grid(rng, (4, 40, 40, 2))
    _compare(x, g, "bilinear", "reflection", False, "float32")


# ---- without PyTorch: gradcheck and the composed sampling ------------------------------------------

def _smooth_grid(rng, shape, sizes, align):
    """Normalised points whose pixel coordinates have fractional parts 0.2, 0.3, 0.7 or 0.8,
    inside and up to two pixels outside: away from cell edges, reflection lines and clip
    limits, where the sampling is not differentiable."""
    k = shape[-1]
    out = np.empty(shape)
    for a in range(k):
        size = sizes[k - 1 - a]
        u = rng.integers(-2, size + 1, shape[:-1]) + rng.choice([0.2, 0.3, 0.7, 0.8], shape[:-1])
        out[..., a] = u * 2 / (size - 1) - 1 if align else (2 * u + 1) / size - 1
    return out


@pytest.mark.parametrize("padding,align", list(itertools.product(PADDINGS, [False, True])))
def test_gradcheck_bilinear(padding, align):
    rng = np.random.default_rng(11)
    x = pyth.tensor(rng.standard_normal((2, 2, 3, 4))).requires_grad_()
    g = pyth.tensor(_smooth_grid(rng, (2, 2, 3, 2), (3, 4), align)).requires_grad_()
    assert gradcheck(lambda a, b: F.grid_sample(a, b, "bilinear", padding, align), (x, g))
    x3 = pyth.tensor(rng.standard_normal((1, 2, 2, 3, 3))).requires_grad_()
    g3 = pyth.tensor(_smooth_grid(rng, (1, 2, 1, 2, 3), (2, 3, 3), align)).requires_grad_()
    assert gradcheck(lambda a, b: F.grid_sample(a, b, "bilinear", padding, align), (x3, g3))


@pytest.mark.parametrize("padding", PADDINGS)
def test_gradcheck_bicubic_and_nearest(padding):
    rng = np.random.default_rng(12)
    x = pyth.tensor(rng.standard_normal((1, 2, 4, 4))).requires_grad_()
    g = pyth.tensor(_smooth_grid(rng, (1, 2, 2, 2), (4, 4), False)).requires_grad_()
    assert gradcheck(lambda a, b: F.grid_sample(a, b, "bicubic", padding, False), (x, g))
    gd = g.detach()
    assert gradcheck(lambda a: F.grid_sample(a, gd, "nearest", padding, True), (x,))


def test_double_backward():
    """Under create_graph the backward is the composed sampling, differentiable again."""
    rng = np.random.default_rng(13)
    x = pyth.tensor(rng.standard_normal((1, 2, 3, 3))).requires_grad_()
    g = pyth.tensor(_smooth_grid(rng, (1, 2, 2, 2), (3, 3), True)).requires_grad_()
    for mode, padding in (("bilinear", "reflection"), ("bicubic", "border")):
        def f(a, b, mode=mode, padding=padding):
            return F.grid_sample(a, b, mode, padding, True)
        assert gradgradcheck(f, (x, g))
    y = F.grid_sample(x, g, "nearest", "zeros", True)
    gx, gg = pyth.autograd.grad(y.sum(), [x, g], create_graph=True)
    inside = F.grid_sample(x.detach() * 0 + 1, g.detach(), "nearest", "zeros", True).sum()
    assert not gg.detach().numpy().any()         # nearest: no gradient for the grid
    assert gx.sum().item() == inside.item() > 0  # one per point that reads the input


@pytest.mark.parametrize("nd", [2, 3])
def test_kernel_matches_composed(nd):
    """The C kernel against the same formulas written with tensor ops, every mode and padding."""
    rng = np.random.default_rng(14 + nd)
    x = pyth.tensor(rng.standard_normal((2, 3, 4, 5) if nd == 2 else (2, 2, 3, 4, 5)))
    g = pyth.tensor(_grid(rng, (2, 5, 6, 2) if nd == 2 else (2, 2, 3, 4, 3)))
    for m, mode in enumerate(MODES_2D if nd == 2 else MODES_3D):
        for p, padding in enumerate(PADDINGS):
            for align in (False, True):
                y = F.grid_sample(x, g, mode, padding, align)
                ref = _composed(x, g, (nd, m, p, int(align)))
                np.testing.assert_allclose(y.numpy(), ref.numpy(), rtol=1e-12, atol=1e-12)


def test_known_values():
    """Hand-computed samples of a 2 x 3 image: corners, centre, border clip, reflection
    (align_corners: x in [0, 2], y in [0, 1])."""
    x = pyth.tensor([[[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]]])
    g = pyth.tensor([[[[-1.0, -1.0], [1.0, 1.0], [0.0, 0.0], [2.0, 0.0], [-2.0, -1.0]]]])
    y = F.grid_sample(x, g, "bilinear", "zeros", True).reshape(-1).tolist()
    assert y == pytest.approx([0.0, 5.0, 2.5, 0.0, 0.0])
    y = F.grid_sample(x, g, "bilinear", "border", True).reshape(-1).tolist()
    assert y == pytest.approx([0.0, 5.0, 2.5, 3.5, 0.0])
    y = F.grid_sample(x, g, "bilinear", "reflection", True).reshape(-1).tolist()
    assert y == pytest.approx([0.0, 5.0, 2.5, 2.5, 1.0])
    # without align_corners the points land on (-0.5, -0.5), (2.5, 1.5), (1, 0.5), (4, 0.5),
    # (-2, -0.5); rounding half to even takes (0, 0), (2, 2): outside, (1, 0), ...
    y = F.grid_sample(x, g, "nearest", "zeros", False).reshape(-1).tolist()
    assert y == [0.0, 0.0, 1.0, 0.0, 0.0]


# ---- affine_grid -----------------------------------------------------------------------------------

@needs_torch
@pytest.mark.parametrize("size", [(2, 3, 4, 5), (1, 1, 7, 3), (2, 3, 1, 5), (2, 1, 3, 4, 5),
                                  (1, 2, 1, 1, 1)])
@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_affine_grid_matches_torch(size, align, dtype):
    rng = np.random.default_rng(len(size) + size[2])
    k = len(size) - 2
    theta = rng.standard_normal((size[0], k, k + 1))
    pt = pyth.tensor(theta, dtype=getattr(pyth, dtype)).requires_grad_()
    tt = torch.tensor(theta, dtype=getattr(torch, dtype), requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y, ty = F.affine_grid(pt, size, align), TF.affine_grid(tt, size, align)
    assert tuple(y.shape) == tuple(ty.shape) and y.dtype is pt.dtype
    tol = TOL[dtype] * 10
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=tol, atol=tol)
    up = rng.standard_normal(tuple(ty.shape))
    y.backward(pyth.tensor(up, dtype=y.dtype))
    ty.backward(torch.tensor(up, dtype=ty.dtype))
    np.testing.assert_allclose(pt.grad.numpy(), tt.grad.numpy(), rtol=tol, atol=tol)


@needs_torch
def test_affine_grid_positions_exact():
    """The identity's grid is PyTorch's linspace bit for bit (each half from its own end)."""
    for n, align in itertools.product((2, 3, 7, 10, 33), (False, True)):
        eye = np.array([[[1.0, 0, 0], [0, 1, 0]]], np.float32)
        y = F.affine_grid(pyth.tensor(eye), (1, 1, n, n + 2), align)
        ty = TF.affine_grid(torch.tensor(eye), (1, 1, n, n + 2), align)
        assert np.array_equal(y.numpy(), ty.numpy()), (n, align)


def test_affine_grid_then_sample_identity():
    """The identity transform resamples an image onto itself (any align_corners)."""
    rng = np.random.default_rng(21)
    x = pyth.tensor(rng.standard_normal((2, 3, 5, 6)))
    theta = pyth.tensor(np.tile(np.eye(2, 3), (2, 1, 1)))
    for align in (False, True):
        grid = F.affine_grid(theta, (2, 3, 5, 6), align)
        for mode in MODES_2D:
            y = F.grid_sample(x, grid, mode, "zeros", align)
            np.testing.assert_allclose(y.numpy(), x.numpy(), atol=1e-12)
    theta = pyth.tensor(rng.standard_normal((1, 3, 4))).requires_grad_()
    assert gradcheck(lambda t: F.affine_grid(t, (1, 1, 2, 3, 2), False), (theta,))


def test_affine_grid_errors_and_warnings():
    th = pyth.zeros(2, 2, 3)
    with pytest.warns(UserWarning, match="Default grid_sample and affine_grid behavior"):
        F.affine_grid(th, (2, 3, 4, 5))
    with pytest.warns(UserWarning, match="unit-size grids when align_corners=True"):
        F.affine_grid(th, (2, 3, 1, 5), align_corners=True)
    cases = [
        (lambda: F.affine_grid(th.long(), (2, 3, 4, 5), False), ValueError,
         "Expected theta to have floating point type"),
        (lambda: F.affine_grid(th, (2, 3, 4, 5, 6), False), ValueError,
         r"Expected a batch of 3D affine matrices of shape Nx3x4 for size \(2, 3, 4, 5, 6\)"),
        (lambda: F.affine_grid(th[0], (2, 3, 4, 5), False), ValueError,
         r"Expected a batch of 2D affine matrices of shape Nx2x3 for size \(2, 3, 4, 5\)"),
        (lambda: F.affine_grid(th, (2, 3, 5), False), NotImplementedError,
         r"affine_grid only supports 4D and 5D sizes.*Got size \(2, 3, 5\)"),
        (lambda: F.affine_grid(th, (2, 0, 4, 5), False), ValueError,
         r"Expected non-zero, positive output size. Got \(2, 0, 4, 5\)"),
        (lambda: F.affine_grid(th, (3, 3, 4, 5), False), RuntimeError,
         (r"Expected size for first two dimensions of batch2 tensor to be: \[3, 3\] but got: "
         r"\[2, 3\]")),
    ]
    for call, exc, msg in cases:
        with pytest.raises(exc, match=msg):
            call()


# ---- errors --------------------------------------------------------------------------------------

def _error_cases():
    x, g = pyth.zeros(2, 3, 4, 5), pyth.zeros(2, 6, 7, 2)
    return [
        ("mode", lambda: F.grid_sample(x, g, mode="foo"), ValueError,
         "expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: 'foo'"),
        ("padding", lambda: F.grid_sample(x, g, padding_mode="edge"), ValueError,
         "expected padding_mode to be 'zeros', 'border', or 'reflection', but got: 'edge'"),
        ("batch", lambda: F.grid_sample(x, g[:1], align_corners=False), RuntimeError,
         ("expected grid and input to have same batch size, but got input with sizes "
         "[2, 3, 4, 5] and grid with sizes [1, 6, 7, 2]")),
        ("last dim", lambda: F.grid_sample(x, pyth.zeros(2, 6, 7, 3), align_corners=False),
         RuntimeError, ("expected grid to have size 2 in last dimension, but got grid with "
                       "sizes [2, 6, 7, 3]")),
        ("empty", lambda: F.grid_sample(x[:, :, :0], g, align_corners=False), RuntimeError,
         ("expected input to have non-empty spatial dimensions, but input has sizes "
         "[2, 3, 0, 5] with dimension 2 being empty")),
        ("dims", lambda: F.grid_sample(x, pyth.zeros(2, 1, 6, 7, 2), align_corners=False),
         RuntimeError, ("expected 4D input and grid with same number of dimensions, but got "
                       "input with sizes [2, 3, 4, 5] and grid with sizes [2, 1, 6, 7, 2]")),
        ("unbatched", lambda: F.grid_sample(x[0], pyth.zeros(3, 7, 1), align_corners=False),
         RuntimeError, ("expected 5D input and grid with same number of dimensions, but got "
                       "input with sizes [3, 4, 5] and grid with sizes [3, 7, 1]")),
        ("bicubic 3d", lambda: F.grid_sample(pyth.zeros(1, 1, 2, 2, 2), pyth.zeros(1, 1, 1, 1, 3),
                                             "bicubic", align_corners=False),
         RuntimeError, "bicubic interpolation only supports 4D input"),
        ("int", lambda: F.grid_sample(x.int(), g, align_corners=False), NotImplementedError,
         "\"grid_sampler_2d_cpu_kernel_impl\" not implemented for 'Int'"),
        ("dtypes", lambda: F.grid_sample(x, g.double(), align_corners=False), RuntimeError,
         "expected scalar type Float but found Double"),
    ]


@pytest.mark.parametrize("case", _error_cases(), ids=lambda c: c[0])
def test_errors(case):
    _, call, exc, msg = case
    with pytest.raises(exc) as info:
        call()
    assert msg in str(info.value)


@needs_torch
@pytest.mark.parametrize("case", _error_cases(), ids=lambda c: c[0])
def test_errors_as_torch(case):
    """The same call in PyTorch raises the same class with the same message."""
    name, _, exc, msg = case
    to_torch = {"mode": lambda: TF.grid_sample(torch.zeros(2, 3, 4, 5), torch.zeros(2, 6, 7, 2),
                                               mode="foo")}
    x, g = torch.zeros(2, 3, 4, 5), torch.zeros(2, 6, 7, 2)
    to_torch.update({
        "padding": lambda: TF.grid_sample(x, g, padding_mode="edge"),
        "batch": lambda: TF.grid_sample(x, g[:1], align_corners=False),
        "last dim": lambda: TF.grid_sample(x, torch.zeros(2, 6, 7, 3), align_corners=False),
        "empty": lambda: TF.grid_sample(x[:, :, :0], g, align_corners=False),
        "dims": lambda: TF.grid_sample(x, torch.zeros(2, 1, 6, 7, 2), align_corners=False),
        "unbatched": lambda: TF.grid_sample(x[0], torch.zeros(3, 7, 1), align_corners=False),
        "bicubic 3d": lambda: TF.grid_sample(torch.zeros(1, 1, 2, 2, 2),
                                             torch.zeros(1, 1, 1, 1, 3), "bicubic",
                                             align_corners=False),
        "int": lambda: TF.grid_sample(x.int(), g, align_corners=False),
        "dtypes": lambda: TF.grid_sample(x, g.double(), align_corners=False),
    })
    with pytest.raises(exc) as info:
        to_torch[name]()
    assert msg in str(info.value)


def test_default_align_corners_warns():
    x, g = pyth.zeros(1, 1, 2, 2), pyth.zeros(1, 1, 1, 2)
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        F.grid_sample(x, g)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F.grid_sample(x, g, align_corners=False)


@needs_torch
@pytest.mark.parametrize("dtype,tol", [("float64", 1e-12), ("float32", 1e-5), ("float16", 3e-3),
                                       ("bfloat16", 3e-2)])
@pytest.mark.parametrize("nd", [2, 3])
def test_node_and_gradients_in_every_float_type_as_torch(nd, dtype, tol):
    """The node PyTorch records (GridSampler2DBackward0 / GridSampler3DBackward0, half and
    bfloat16 too, which compute in float32), both gradients in the operands' dtype, and the
    error of a second backward without retain_graph."""
    rng = np.random.default_rng(21 + nd)
    x = rng.standard_normal((2, 3) + (4,) * nd)
    g = _grid(rng, (2,) + (3,) * nd + (nd,))
    up = rng.standard_normal((2, 3) + (3,) * nd)
    got = []
    for lib, fn in ((pyth, F), (torch, TF)):
        dt = getattr(lib, dtype)
        a = lib.tensor(x).to(dt).requires_grad_()
        b = lib.tensor(g).to(dt).requires_grad_()
        y = fn.grid_sample(a, b, "bilinear", "border", False)
        y.backward(lib.tensor(up).to(dt))
        assert a.grad.dtype == b.grad.dtype == dt
        with pytest.raises(RuntimeError) as e:
            y.backward(lib.tensor(up).to(dt))
        got.append((y.grad_fn.name(), a.grad.float().numpy(), b.grad.float().numpy(),
                    str(e.value).split(".")[0]))
    (name, ga, gb, msg), (tname, tga, tgb, tmsg) = got
    assert name == tname == f"GridSampler{nd}DBackward0"
    assert msg == tmsg
    np.testing.assert_allclose(ga, tga, rtol=tol, atol=tol)
    np.testing.assert_allclose(gb, tgb, rtol=tol, atol=tol * max(1.0, np.abs(tgb).max()))


def test_half_types_double_backward_through_float32():
    """Under create_graph a half or bfloat16 sampling differentiates its float32 composition:
    the gradients keep the operands' dtype and are the float64 ones rounded."""
    rng = np.random.default_rng(31)
    x = rng.standard_normal((1, 2, 3, 3))
    g = _smooth_grid(rng, (1, 2, 2, 2), (3, 3), True)
    want = None
    for name, tol in (("float64", 0.0), ("float16", 2e-2), ("bfloat16", 1e-1)):
        dt = getattr(pyth, name)
        a = pyth.tensor(x).to(dt).requires_grad_()
        b = pyth.tensor(g).to(dt).requires_grad_()
        gx, gg = pyth.autograd.grad(F.grid_sample(a, b, "bilinear", "zeros", True).sum(), [a, b],
                                    create_graph=True)
        assert gx.dtype is gg.dtype is dt
        h = pyth.autograd.grad((gg * gg).sum() + (gx * gx).sum(), [a, b])
        assert h[0].dtype is h[1].dtype is dt
        vals = [t.detach().double().numpy() for t in (gx, gg, *h)]
        if want is None:
            want = vals
        for v, w in zip(vals, want):
            np.testing.assert_allclose(v, w, rtol=tol, atol=tol * max(1.0, np.abs(w).max()))

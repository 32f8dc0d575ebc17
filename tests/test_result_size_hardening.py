"""Work sized from the result: calls whose result is empty or small return at once however big
their arguments, and a result too big to hold fails with MemoryError from one checked
allocation, before any Python list or numpy temporary of the arguments' size is built (F.pad's
per-position index list never returned; triu_indices and affine_grid made 16 GiB of numpy
scratch and were OOM-killed). Each case that could hang or exhaust memory runs in a child
process with a time limit and an address-space cap (_support.run_child)."""

from __future__ import annotations

import itertools
import warnings
from contextlib import nullcontext

import numpy as np
import pytest
from _support import run_child

import pyth
import pyth.nn.functional as F


# ---- F.pad -------------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["replicate", "constant"])
def test_pad_of_an_empty_batch_by_a_huge_amount_returns_at_once(mode):
    """(0, 1, 3) padded by 2^40 is an empty (0, 1, 2^40 + 3) tensor, as PyTorch gives."""
    run_child(f"""
        import pyth, pyth.nn.functional as F
        x = pyth.randn(0, 1, 3, requires_grad=True)
        y = F.pad(x, (2**40, 0), mode={mode!r})
        assert tuple(y.shape) == (0, 1, 2**40 + 3), y.shape
        y.sum().backward()
        assert tuple(x.grad.shape) == (0, 1, 3)
        """)


@pytest.mark.parametrize("mode", ["replicate", "constant"])
def test_pad_to_a_huge_result_is_a_memory_error(mode):
    run_child(f"""
        import pyth, pyth.nn.functional as F
        for pads in ((2**40, 0), (2**62, 2**62), (0, 2**35)):
            try:
                F.pad(pyth.randn(1, 1, 3), pads, mode={mode!r})
            except MemoryError:
                pass
            else:
                raise AssertionError(pads)
        """)


def test_reflect_and_circular_refuse_huge_pads_like_torch():
    x = pyth.randn(0, 1, 3)
    with pytest.raises(RuntimeError, match="Padding size should be less than"):
        F.pad(x, (2**40, 0), mode="reflect")
    with pytest.raises(RuntimeError, match="wrapping around more than once"):
        F.pad(x, (2**40, 0), mode="circular")


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_pad_slices_match_torch_values_and_gradients(mode):
    """Every mode is built from slices now: values and gradients against PyTorch, crops too."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 3, 4, 5))
    pads_list = [(1, 2), (3, 0, 0, 2), (1, 1, 2, 1), (-1, 2), (2, -1, 1, -2), (0, 0, 1, 0)]
    for pads in pads_list:
        try:
            want = torch.nn.functional.pad(torch.tensor(a, requires_grad=True), pads, mode=mode)
        except RuntimeError:
            continue
        tx = torch.tensor(a, requires_grad=True)
        ty = torch.nn.functional.pad(tx, pads, mode=mode)
        px = pyth.tensor(a, requires_grad=True)
        py = F.pad(px, pads, mode=mode)
        np.testing.assert_array_equal(py.detach().numpy(), want.detach().numpy())
        g = rng.standard_normal(tuple(ty.shape))
        ty.backward(torch.tensor(g))
        py.backward(pyth.tensor(g))
        np.testing.assert_allclose(px.grad.numpy(), tx.grad.numpy(), rtol=1e-12)
        assert py.data_ptr() != px.data_ptr()


def test_a_crop_alone_is_a_new_tensor():
    x = pyth.arange(12.0).reshape(1, 3, 4)
    y = F.pad(x, (-1, 0), mode="circular")
    y[0, 0, 0] = 100
    assert x[0, 0, 1].item() == 1


# ---- tril_indices / triu_indices ----------------------------------------------------------------

def test_triangle_indices_match_numpy_on_every_small_case():
    for row, col, off in itertools.product(range(6), range(6), range(-7, 8)):
        for ours, ref in ((pyth.tril_indices, np.tril_indices),
                          (pyth.triu_indices, np.triu_indices)):
            want = np.stack(ref(row, off, col)).reshape(2, -1)
            got = ours(row, col, off)
            assert got.dtype is pyth.int64
            np.testing.assert_array_equal(got.numpy(), want)


def test_triangle_indices_of_huge_matrices_are_sized_from_the_result():
    """triu_indices(2^31, 2^31, 2^62) is empty (PyTorch: (2, 0)); a thin triangle of a huge
    matrix holds few indices; a huge triangle is a MemoryError."""
    run_child("""
        import pyth
        assert tuple(pyth.triu_indices(2**31, 2**31, 2**62).shape) == (2, 0)
        assert tuple(pyth.tril_indices(2**31, 2**31, -2**62).shape) == (2, 0)
        assert tuple(pyth.tril_indices(2**62, 2**62, -2**62).shape) == (2, 0)
        t = pyth.tril_indices(2**62, 3, -2**62 + 2)
        assert t.tolist() == [[2**62 - 2, 2**62 - 1, 2**62 - 1], [0, 0, 1]], t.tolist()
        u = pyth.triu_indices(3, 2**62, 2**62 - 2)
        assert u.tolist() == [[0, 0, 1], [2**62 - 2, 2**62 - 1, 2**62 - 1]], u.tolist()
        for f, args in ((pyth.triu_indices, (2**31, 2**31)), (pyth.tril_indices, (2**40, 1)),
                        (pyth.tril_indices, (2**63, 2**63))):
            try:
                f(*args)
            except MemoryError:
                pass
            else:
                raise AssertionError(args)
        """)


def test_triangle_indices_keep_the_requested_dtype():
    torch = pytest.importorskip("torch")
    for dt in ("int32", "int64"):
        got = pyth.tril_indices(4, 3, 1, dtype=getattr(pyth, dt))
        want = torch.tril_indices(4, 3, 1, dtype=getattr(torch, dt))
        assert got.dtype is getattr(pyth, dt) and got.tolist() == want.tolist()


# ---- affine_grid --------------------------------------------------------------------------------

def test_affine_grid_of_a_huge_size_is_a_memory_error():
    """[2, 1, 5, 2^31 - 1] needs a 160 GiB grid: one checked allocation refuses it before any
    axis or mesh is built."""
    run_child("""
        import pyth, pyth.nn.functional as F
        for size in ([2, 1, 5, 2**31 - 1], [1, 1, 2**40, 2**40], [1, 1, 2, 2**20, 2**20]):
            theta = pyth.zeros(1 if size[0] == 1 else 2, len(size) - 2, len(size) - 1)
            try:
                F.affine_grid(theta, size, align_corners=False)
            except MemoryError:
                pass
            else:
                raise AssertionError(size)
        """)


@pytest.mark.parametrize("size", [[2, 1, 5, 7], [1, 3, 1, 4], [3, 1, 2, 3, 4], [1, 1, 1, 1]])
@pytest.mark.parametrize("align", [False, True])
def test_affine_grid_matches_torch(size, align):
    torch = pytest.importorskip("torch")
    k = len(size) - 2
    theta = np.random.default_rng(1).standard_normal((size[0], k, k + 1))
    with pytest.warns(UserWarning) if align and min(size[2:]) == 1 else nullcontext():
        got = F.affine_grid(pyth.tensor(theta, requires_grad=True), size, align_corners=align)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = torch.nn.functional.affine_grid(torch.tensor(theta), size, align_corners=align)
    np.testing.assert_allclose(got.detach().numpy(), want.numpy(), rtol=0, atol=1e-15)
    assert tuple(got.shape) == tuple(want.shape)



# ---- unfold / fold ------------------------------------------------------------------------------

def test_unfold_and_fold_never_materialise_the_padding():
    """unfold padded the input first (a padding of 10^5 made a 4 * 10^10-element image for a
    3 x 3 grid of blocks); the block cells now index the unpadded image, so the work is the
    result's. PyTorch gives the same (1, 1, 9) result."""
    run_child("""
        import pyth, pyth.nn.functional as F
        y = F.unfold(pyth.randn(1, 1, 4, 4), 1, padding=10**5, stride=10**5)
        assert tuple(y.shape) == (1, 1, 9) and y.tolist()[0][0][:4] == [0.0] * 4, y
        z = F.fold(pyth.ones(1, 1, 9), (4, 4), 1, padding=10**5, stride=10**5)
        assert tuple(z.shape) == (1, 1, 4, 4) and z.sum().item() == 1.0, z
        """)


@pytest.mark.parametrize("k,d,p,s", [((2, 3), 1, 0, 1), ((2, 2), (1, 2), (1, 2), (2, 1)),
                                     ((3, 3), 1, 1, 1), ((1, 1), 1, (3, 0), (2, 3))])
def test_unfold_and_fold_match_torch(k, d, p, s):
    """Values (a NaN in the image must not leak into padding cells) and gradients."""
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(0).standard_normal((2, 3, 5, 6))
    a[0, 0, 0, 0] = np.nan
    tx, px = torch.tensor(a, requires_grad=True), pyth.tensor(a, requires_grad=True)
    ty, py = torch.nn.functional.unfold(tx, k, d, p, s), F.unfold(px, k, d, p, s)
    np.testing.assert_array_equal(py.detach().numpy(), ty.detach().numpy())
    g = np.random.default_rng(1).standard_normal(tuple(ty.shape))
    ty.backward(torch.tensor(g))
    py.backward(pyth.tensor(g))
    np.testing.assert_allclose(px.grad.numpy(), tx.grad.numpy(), rtol=1e-12)
    want = torch.nn.functional.fold(torch.tensor(g), (5, 6), k, d, p, s)
    np.testing.assert_allclose(F.fold(pyth.tensor(g), (5, 6), k, d, p, s).numpy(),
                               want.numpy(), rtol=1e-12)


def test_repeat_interleave_of_an_empty_input_is_sized_from_the_result():
    """(1, 0) repeated 2^40 times along dim 0 built a 2^40-entry index (8 TiB, MemoryError);
    the result is empty (PyTorch: (2^40, 0)), and its gradient flows back."""
    run_child("""
        import pyth
        x = pyth.zeros(1, 0, requires_grad=True)
        y = x.repeat_interleave(2**40, dim=0)
        assert tuple(y.shape) == (2**40, 0), y.shape
        y.sum().backward()
        assert tuple(x.grad.shape) == (1, 0)
        z = pyth.zeros(2, 0).repeat_interleave(pyth.tensor([1, 3]), dim=0)
        assert tuple(z.shape) == (4, 0)
        """)

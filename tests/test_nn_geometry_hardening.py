"""Checked geometry in the THNN kernels: a pooling's window and plane sizes, an adaptive
pooling's cell arithmetic and a convolution's products are found once with checked arithmetic,
so absurd sizes (a 2^32 x 2^32 kernel, an empty batch of 2^90-element planes, an empty weight
with a 2^64-tap kernel) are a RuntimeError, never a signed overflow (UBSan reported those in
the window's byte count and the average's divisor). Each overflow case runs in a child process
(_support.run_child), so under scripts/sanitize.sh a report fails only its test; the in-range
cases compare values and gradients with PyTorch."""

from __future__ import annotations

import numpy as np
import pytest
from _support import run_child

import pyth
import pyth.nn.functional as F

# (name, statement that must raise RuntimeError matching words)
_OVERFLOWS = [
    ("max_pool2d_huge_kernel_ceil",
     "F.max_pool2d(x4, 2**32, padding=2**31, ceil_mode=True)", "overflow int64"),
    ("avg_pool2d_huge_kernel_ceil",
     "F.avg_pool2d(x4, 2**32, ceil_mode=True, count_include_pad=False)", "overflow int64"),
    ("avg_pool2d_huge_kernel_padded",
     "F.avg_pool2d(x4, 2**32, padding=2**31, count_include_pad=True)", "overflow int64"),
    ("max_pool3d_kernel_volume",
     "F.max_pool3d(x5, 2**21, padding=2**20)", "overflow int64"),
    ("max_pool1d_huge_kernel",
     "F.max_pool1d(pyth.randn(1, 1, 4), 2**62, padding=2**61, ceil_mode=True)",
     "overflow int64"),
    ("max_pool3d_empty_batch_huge_planes",
     "F.max_pool3d(Z(0, 1, 2**30, 2**30, 2**30), 1)", "overflow int64"),
    ("avg_pool3d_empty_batch_huge_planes",
     "F.avg_pool3d(Z(0, 1, 2**30, 2**30, 2**30), 1)", "overflow int64"),
    ("adaptive_avg_pool2d_empty_batch",
     "F.adaptive_avg_pool2d(Z(0, 1, 2**40, 2**40), 2**30)", "overflow int64"),
    ("adaptive_max_pool2d_empty_batch",
     "F.adaptive_max_pool2d(Z(0, 1, 2**40, 2**40), 2**30)", "overflow int64"),
    ("adaptive_avg_pool3d_empty_batch",
     "F.adaptive_avg_pool3d(Z(0, 1, 2**30, 2**30, 2**30), 1)", "overflow int64"),
    ("conv2d_empty_weight_huge_kernel",
     "F.conv2d(Z(1, 0, 2**32, 2**32), Z(1, 0, 2**32, 2**32))", "overflow int64"),
]


@pytest.mark.parametrize("stmt,words", [c[1:] for c in _OVERFLOWS], ids=[c[0] for c in _OVERFLOWS])
def test_absurd_geometry_is_a_runtime_error(stmt, words):
    run_child(f"""
        import re
        import pyth, pyth.nn.functional as F
        x4, x5 = pyth.randn(1, 1, 4, 4), pyth.randn(1, 1, 2, 2, 2)
        def Z(*size):   # a tensor of any size without memory (stride 0)
            return pyth.zeros(1).as_strided(size, (0,) * len(size))
        try:
            {stmt}
        except RuntimeError as e:
            assert re.search({words!r}, str(e)), e
        else:
            raise AssertionError("no error")
        """)


def test_the_issue_examples_match_torch_in_kind():
    """PyTorch refuses both (a RuntimeError: it narrows the sizes to int)."""
    torch = pytest.importorskip("torch")
    x = torch.randn(1, 1, 4, 4)
    for f in (lambda F: F.max_pool2d(x, 2**32, padding=2**31, ceil_mode=True),
              lambda F: F.avg_pool2d(x, 2**32, ceil_mode=True, count_include_pad=False)):
        with pytest.raises(RuntimeError):
            f(torch.nn.functional)


@pytest.mark.parametrize("count_include_pad", [True, False])
@pytest.mark.parametrize("ceil_mode", [False, True])
def test_avg_pool_with_a_large_kernel_matches_torch(count_include_pad, ceil_mode):
    """Kernels far larger than the input (divisors up to 2^40) within int32, as PyTorch takes
    them: values and gradients."""
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(3).standard_normal((2, 3, 4, 5))
    k, p, s = (2**20, 2**19 + 1), (2**19, 2**18), (2**18, 2**19)
    px, tx = pyth.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    py = F.avg_pool2d(px, k, s, p, ceil_mode, count_include_pad)
    ty = torch.nn.functional.avg_pool2d(tx, k, s, p, ceil_mode, count_include_pad)
    assert tuple(py.shape) == tuple(ty.shape)
    np.testing.assert_allclose(py.detach().numpy(), ty.detach().numpy(), rtol=1e-12, atol=0)
    g = np.random.default_rng(4).standard_normal(tuple(ty.shape))
    py.backward(pyth.tensor(g))
    ty.backward(torch.tensor(g))
    np.testing.assert_allclose(px.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("ceil_mode", [False, True])
def test_max_pool_with_a_large_kernel_matches_torch(ceil_mode):
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(5).standard_normal((1, 2, 5, 4))
    args = ((2**20, 2**21), 1, (2**19, 2**20), (1, 1), ceil_mode, True)
    py, pi = F.max_pool2d(pyth.tensor(a), *args)
    ty, ti = torch.nn.functional.max_pool2d(torch.tensor(a), *args)
    np.testing.assert_array_equal(py.numpy(), ty.numpy())
    np.testing.assert_array_equal(pi.numpy(), ti.numpy())


def test_empty_batches_of_reasonable_planes_still_pool():
    """The checks refuse only overflow: an empty batch of big planes is an empty result."""
    z = pyth.zeros(1).as_strided((0, 1, 2**20, 2**20), (0, 0, 0, 0))
    assert tuple(F.max_pool2d(z, 2).shape) == (0, 1, 2**19, 2**19)
    assert tuple(F.avg_pool2d(z, 4).shape) == (0, 1, 2**18, 2**18)
    assert tuple(F.adaptive_avg_pool2d(z, 3).shape) == (0, 1, 3, 3)


@pytest.mark.parametrize("call", [
    "F.max_pool2d(x, 2**64)", "F.max_pool2d(x, 2, stride=-2**64)",
    "F.avg_pool2d(x, 2, padding=2**63)", "F.avg_pool2d(x, 2, divisor_override=2**64)",
    "F.adaptive_avg_pool2d(x, 2**64)", "F.adaptive_max_pool2d(x, (2, 2**64))",
    "F.max_pool1d(x[0], 2**63)", "F.max_pool2d(x, (2, 2**63))", "F.avg_pool3d(x[None], 2**63)"])
def test_geometry_arguments_outside_int64_raise_as_torch(call):
    """cffi's OverflowError escaped; PyTorch's ValueError (TypeError inside a tuple) now."""
    torch = pytest.importorskip("torch")
    env = {"F": torch.nn.functional, "x": torch.randn(1, 1, 4, 4)}
    with pytest.raises(Exception) as want:
        eval(call, env)
    with pytest.raises(want.type, match="Overflow when unpacking long long"):
        eval(call, {"F": F, "x": pyth.randn(1, 1, 4, 4)})

"""Regression tests for the bugs the reliability gates found (fuzz suites, misuse table).

One test per bug, named after it; the misuse table (test_misuse.py) holds the wrong-exception
cases (fill_("x"), dtype="float", isnan([..]), Storage.type(3), from_file("a\\0b"), ...).
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import pyth

torch = pytest.importorskip("torch")


def test_copy_between_tensors_borrowing_one_ndarray_acts_through_a_temporary():
    """Two storages over one ndarray overlap: copy_ compared storages, not memory, and wrote
    over its own source (the contiguous case even ran memcpy on overlapping memory)."""
    a = np.arange(9.).reshape(3, 3)
    expected = a.T.copy()
    pyth.from_numpy(a).copy_(pyth.from_numpy(a.T))
    np.testing.assert_array_equal(a, expected)
    b = np.arange(10.)
    pyth.from_numpy(b[1:]).copy_(pyth.from_numpy(b[:-1]))
    np.testing.assert_array_equal(b, [0, 0, 1, 2, 3, 4, 5, 6, 7, 8])


@pytest.mark.parametrize("dtype", ["float32", "int32", "float64"])
def test_where_refuses_an_input_partially_overlapping_out(dtype):
    """where(..., out=w) read w.t() while writing w (elements already overwritten, and above
    the OpenMP grain in a thread-dependent order); every other pointwise op refuses partial
    overlap as torch does, and now where() does too."""
    n = 200  # 40,000 elements: above the grain size
    base = np.arange(n * n).reshape(n, n).astype(dtype)
    w = pyth.tensor(base)
    with pytest.raises(RuntimeError, match="single memory location"):
        pyth.where(w > 5, w.t(), w, out=w)
    m = pyth.tensor(base > 5)
    with pytest.raises(RuntimeError, match="single memory location"):
        pyth.where(m.t(), m, m, out=m)  # the condition overlaps the (bool) output
    np.testing.assert_array_equal(w.numpy(), base)  # refused before anything was written
    pyth.where(w > 5, w, -w, out=w)  # the same view is fine: elementwise read-then-write
    np.testing.assert_array_equal(w.numpy(), np.where(base > 5, base, -base))


def test_empty_expanded_tensor_is_writable():
    """A 2x0 tensor with a stride-0 dim has no elements; copy_ into it raised 'single memory
    location' although nothing is written (torch allows it)."""
    e = pyth.zeros(1, 0).expand(2, 0)
    e.copy_(pyth.zeros(2, 0))
    pyth.add(pyth.zeros(2, 0), 1, out=e)
    assert e.shape == (2, 0)


def test_setitem_scalar_on_an_expanded_view_raises_like_torch():
    """t.expand(3, 3)[:, 0] = 1 wrote through fill_ (copy_ refused the same write)."""
    e = pyth.zeros(3).expand(3, 3)
    with pytest.raises(RuntimeError, match="single memory location"):
        e[:, 0] = 1.0
    with pytest.raises(RuntimeError):
        torch.zeros(3).expand(3, 3)[:, 0] = 1.0


def test_integer_pow_with_negative_tensor_exponent_truncates_like_torch():
    base = [0, 1, 2, -1, -2, 5]
    got = pyth.tensor(base) ** pyth.tensor(-1)
    assert got.tolist() == (torch.tensor(base) ** torch.tensor(-1)).tolist() == [0, 1, 0, -1, 0, 0]
    assert (pyth.tensor([2], dtype=pyth.uint8) ** pyth.tensor([-3], dtype=pyth.int8)).tolist() == [0]
    with pytest.raises(RuntimeError, match="negative integer powers"):
        pyth.tensor([2]) ** -1  # a Python scalar exponent is refused, as torch does


@pytest.mark.parametrize("make", [lambda m: m.tensor([1]) - m.tensor(True),
                                  lambda m: m.tensor([True]) - 1,
                                  lambda m: m.tensor([1.0]) - True,
                                  lambda m: m.tensor([True]) - 0.5])
def test_sub_with_any_bool_operand_raises_like_torch(make):
    with pytest.raises(RuntimeError, match="bool tensor is not supported"):
        make(torch)
    with pytest.raises(RuntimeError, match="bool tensor is not supported"):
        make(pyth)


def test_alpha_takes_no_part_in_promotion():
    """add(float16, uint8, alpha=0.5) is float16 in torch; pyth multiplied first and promoted
    to float32. A float alpha with integer inputs is refused."""
    h, u = pyth.tensor([1.5], dtype=pyth.float16), pyth.tensor([3], dtype=pyth.uint8)
    r = pyth.add(h, u, alpha=0.5)
    assert r.dtype is pyth.float16 and r.tolist() == [3.0]
    assert pyth.sub(pyth.tensor([3]), pyth.tensor([1.5]), alpha=2).tolist() == [0.0]
    with pytest.raises(RuntimeError, match="alpha must not be a floating point"):
        pyth.add(u, u, alpha=0.5)


@pytest.mark.parametrize("shape,index", [
    ((1, 3, 3, 1), (0, None, [0, 0], 0, [0, 0])),
    ((3, 4, 5, 6), (slice(None), [0, 1], 0, [0, 1])),
    ((3, 4, 5, 6), (0, [0, 1], slice(None), [1, 1])),
])
def test_an_int_between_advanced_indices_does_not_separate_them(shape, index):
    """pyth counted an int between two index lists as a separator and moved the advanced dims
    first: (S, [0, 1], 0, [0, 1]) gave (2, 3) where numpy and torch give (3, 2)."""
    x = np.arange(int(np.prod(shape))).reshape(shape)
    expected = torch.from_numpy(x)[index]
    got = pyth.from_numpy(x)[index]
    assert tuple(got.shape) == tuple(expected.shape)
    np.testing.assert_array_equal(got.numpy(), expected.numpy())


def test_inplace_comparison_never_resizes_self():
    """bool_0dim.ge_(uint8 (1, 1, 4)) resized self to (1, 1, 4) instead of refusing: self was
    converted to the compute dtype, so the kernel did not see it as an input and resized it."""
    b = pyth.tensor(False)
    with pytest.raises(RuntimeError, match=r"output with shape \[\] doesn't match the broadcast"):
        b.ge_(pyth.zeros(1, 1, 4, dtype=pyth.uint8))
    assert b.shape == () and b.item() is False
    with pytest.raises(RuntimeError):
        torch.tensor(False).ge_(torch.zeros(1, 1, 4, dtype=torch.uint8))
    m = pyth.tensor([True, False])
    m.lt_(pyth.tensor([1, 0], dtype=pyth.int32))
    assert m.tolist() == [False, False]


def test_addcmul_value_wraps_like_the_binary_ops():
    """addcmul(uint8, .., value=-1) raised 'cannot be converted' while uint8 + -1 wraps (as in
    torch); found by the long fuzz profile."""
    a, x = pyth.tensor([5], dtype=pyth.uint8), pyth.tensor([2], dtype=pyth.uint8)
    r = pyth.addcmul(a, x, x, value=-1)
    e = torch.addcmul(torch.tensor([5], dtype=torch.uint8), torch.tensor([2], dtype=torch.uint8),
                      torch.tensor([2], dtype=torch.uint8), value=-1)
    assert r.tolist() == e.tolist() == [1]


@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_qr_of_a_batch_of_matrices_without_columns(mode):
    """UBSan (scripts/sanitize.sh): linalg.qr of (2, 3, 0) passed q's NULL data to memcpy for 0
    bytes (undefined behaviour the compiler may exploit: memcpy's arguments are nonnull)."""
    q, r = pyth.linalg.qr(pyth.zeros(2, 3, 0), mode=mode)
    tq, tr = torch.linalg.qr(torch.zeros(2, 3, 0), mode=mode)
    assert tuple(q.shape) == tuple(tq.shape) and tuple(r.shape) == tuple(tr.shape)


_INPLACE_UNARY = ["logical_not_", "neg_", "abs_", "sign_", "floor_", "ceil_", "trunc_",
                  "round_", "frac_", "bitwise_not_", "exp_", "sqrt_"]


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "float32"])
@pytest.mark.parametrize("method", _INPLACE_UNARY)
def test_inplace_unary_on_an_expanded_tensor_without_elements_is_allowed(method, dtype):
    """logical_not_ (and the unary in-place ops that keep the input for a dtype, such as
    floor_ on an integer) refused an expanded tensor with no elements, which writes nothing
    and which torch accepts; the Python check now is the core's THShape_checkWritable. With
    elements, both refuse the same stride-0 tensor, or both refuse the dtype."""
    def outcome(lib, shape, expand):
        t = lib.zeros(shape, dtype=getattr(lib, dtype)).expand(*expand)
        try:
            r = getattr(t, method)()
        except (RuntimeError, TypeError) as e:   # NotImplementedError is a RuntimeError
            return RuntimeError if isinstance(e, RuntimeError) else type(e)
        assert r is t
        return tuple(r.shape)

    for shape, expand in (((1, 0, 3), (2, 0, 3)), ((1, 3), (2, 3))):
        got, expected = outcome(pyth, shape, expand), outcome(torch, shape, expand)
        assert got == expected, (method, dtype, shape, expand, got, expected)


_POW_BASES = [-float("inf"), -1e20, -2.0, -0.0, 0.0, 3.3, 1e20, float("inf"), float("nan")]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("exponent", [0.5, -0.5, 3, 3.0, -2, 2, -1, 1.5])
def test_pow_of_a_number_exponent_takes_torchs_rewrites(exponent, dtype):
    """(-inf) ** 0.5 gave inf where torch gives nan: torch computes a float tensor to a number
    power of 0.5, -0.5, 3 or -2 as sqrt, rsqrt, x*x*x and 1/(x*x) (the sign of a zero, -inf
    and overflowing squares differ from C's pow), in every form; a tensor exponent, even a
    0-dim one, takes pow itself."""
    a = pyth.tensor(_POW_BASES, dtype=getattr(pyth, dtype))
    b = torch.tensor(_POW_BASES, dtype=getattr(torch, dtype))
    expected = (b ** exponent).numpy()
    got = {"operator": a ** exponent, "function": pyth.pow(a, exponent),
           "method": a.pow(exponent), "inplace": a.clone().pow_(exponent),
           "out": pyth.pow(a, exponent, out=pyth.empty(0, dtype=a.dtype))}
    def same(r, e, form):   # equal, zeros of the same sign (a NaN's sign means nothing)
        np.testing.assert_array_equal(r, e, err_msg=form)
        np.testing.assert_array_equal(np.signbit(r) & ~np.isnan(r),
                                      np.signbit(e) & ~np.isnan(e), err_msg=form)

    for form, r in got.items():
        same(r.numpy(), expected, form)
    same(pyth.pow(a, pyth.tensor(float(exponent), dtype=a.dtype)).numpy(),
         torch.pow(b, torch.tensor(float(exponent), dtype=b.dtype)).numpy(), "0-dim exponent")


def _conv_both(fn, x, w, **kw):
    """fn's output and input and weight gradients in pyth and torch (float64)."""
    out = []
    for lib in (pyth, torch):
        a = lib.tensor(x).requires_grad_()
        b = lib.tensor(w).requires_grad_()
        y = getattr(lib.nn.functional, fn)(a, b, **kw)
        y.backward(lib.ones(tuple(y.shape), dtype=y.dtype))
        out.append([v.detach().numpy() for v in (y, a.grad, b.grad)])
    return out


@pytest.mark.parametrize("fn, xshape, wshape, kw", [
    ("conv2d", (1, 1, 4, 2), (1, 1, 1, 7), {"padding": (0, 3)}),
    ("conv2d", (2, 2, 5, 3), (3, 2, 1, 2), {"padding": (0, 5), "dilation": (1, 10)}),
    ("conv2d", (1, 1, 4, 2), (1, 1, 7, 7), {"padding": 3}),
    ("conv_transpose2d", (1, 1, 4, 2), (1, 1, 1, 7), {"padding": (0, 3)}),
    ("conv3d", (1, 2, 2, 4, 2), (2, 2, 1, 1, 7), {"padding": (0, 0, 3)}),
    ("conv_transpose3d", (1, 1, 2, 4, 2), (1, 1, 1, 1, 7), {"padding": (0, 0, 3)}),
])
def test_convolution_taps_outside_the_image_stay_inside_the_plane(fn, xshape, wshape, kw):
    """A "same" convolution (unit strides, output as wide as the input) whose kernel is wider
    than the image has taps with no column inside it; the fast path for such convolutions
    copied whole rows for them anyway, reading (forward, weight gradient) and adding zeros to
    (input gradient, transposed forward) memory up to a row outside the plane: the values came
    out right, the sanitizer leg of CI sees the accesses. Such taps now take the general loop."""
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal(xshape), rng.standard_normal(wshape)
    got, expected = _conv_both(fn, x, w, **kw)
    for g, e, what in zip(got, expected, ("output", "input grad", "weight grad")):
        np.testing.assert_allclose(g, e, rtol=1e-10, atol=1e-12, err_msg=what)


@pytest.mark.parametrize("call", [
    lambda F: F.conv2d(pyth.ones(1, 1, 3, 6), pyth.ones(1, 1, 1, 5), dilation=(1, 2 ** 62)),
    lambda F: F.conv2d(pyth.ones(1, 1, 3, 6), pyth.ones(1, 1, 1, 5), padding=(0, 2 ** 62)),
    lambda F: F.conv3d(pyth.ones(1, 1, 3, 3, 6), pyth.ones(1, 1, 1, 1, 5),
                       dilation=(1, 1, 2 ** 62)),
    lambda F: F.conv_transpose2d(pyth.ones(1, 1, 5, 5), pyth.ones(1, 1, 3, 3), stride=2 ** 62),
    lambda F: F.conv_transpose2d(pyth.ones(1, 1, 5, 5), pyth.ones(1, 1, 3, 3),
                                 dilation=2 ** 62),
])
def test_convolution_geometry_that_overflows_int64_raises(call):
    """The dilated kernel's span, the padded size and the transposed output size wrapped
    around: dilation 2^62 segfaulted (taps read far outside the image), a transposed stride of
    2^62 returned a 3x3 result. They are computed with overflow checks now (pooling already
    was). PyTorch wraps too (conv2d with dilation 2^62 returns a result as if undilated)."""
    with pytest.raises(RuntimeError, match="overflow"):
        call(pyth.nn.functional)


def test_convolution_stride_near_int64_max_still_works():
    """The overflow bound leaves out the stride (tapSpan divides by it without adding it), so
    a stride of 2^63 - 1 is a valid one-column convolution, as in PyTorch."""
    x, w = np.ones((1, 1, 3, 6)), np.ones((1, 1, 1, 5))
    got = pyth.nn.functional.conv2d(pyth.tensor(x), pyth.tensor(w), stride=(1, 2 ** 63 - 1))
    expected = torch.nn.functional.conv2d(torch.tensor(x), torch.tensor(w),
                                          stride=(1, 2 ** 63 - 1))
    np.testing.assert_array_equal(got.numpy(), expected.numpy())


def test_max_pool_with_a_huge_padding_and_dilation_returns_at_once():
    """A dilated window's first tap inside the input was found by stepping the dilation from
    -padding up to 0, once per output cell: padding 10^13 with dilation 2 took minutes (days at
    10^15), beyond the reach of Ctrl-C. One division now. Run in a child with a time limit."""
    code = ("import pyth; x = pyth.tensor([[[[2.5]]]]); p = 10 ** 15\n"
            "y, i = pyth.nn.functional.max_pool2d(x, (1, p + 1), stride=1, padding=(0, p),\n"
            "    dilation=(1, 2), return_indices=True)\n"
            "assert y.tolist() == [[[[2.5]]]] and i.tolist() == [[[[0]]]], (y, i)\n")
    r = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True,
                       timeout=120)   # -P: the installed pyth, not the source tree in the cwd
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("fn", ["softmax", "log_softmax", "softmin"])
def test_softmax_of_an_empty_tensor_with_huge_dims_returns_at_once(fn):
    """softmax over dim 1 of a (2^31, 0, 2^31) tensor walked outer * inner = 2^62 empty slices
    (a hang; and the product overflows for larger sizes): a tensor with no elements now has no
    slice. Forward and backward, in a child with a time limit; PyTorch returns the empty
    tensor too."""
    code = ("import pyth; import pyth.nn.functional as F\n"
            "x = pyth.zeros(1).as_strided((2**31, 0, 2**31), (0, 0, 0)).requires_grad_()\n"
            f"y = F.{fn}(x, 1)\n"
            "assert tuple(y.shape) == (2**31, 0, 2**31)\n"
            "y.sum().backward()\n"
            "assert tuple(x.grad.shape) == (2**31, 0, 2**31)\n")
    r = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr

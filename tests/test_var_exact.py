"""var / std: exactly 0 for equal values (as PyTorch's Welford gives it), and otherwise the
values numpy and PyTorch compute, over every float dtype, dims, keepdim, correction and
layout, at sizes that take the threaded paths."""

import math

import numpy as np
import pytest

import pyth

FLOATS = [pyth.float16, pyth.bfloat16, pyth.float32, pyth.float64]
# values whose running sum does not divide back to them exactly (0.1 * 3 / 3 != 0.1)
VALUES = [0.1, 1 / 3, -2.3, 1e10 + 0.7, 0.0]
LENGTHS = [1, 2, 3, 7, 1000, 100001]  # 100001: above the grain size, the split paths


def _np(t):
    """float64 numpy: numpy's own float32 var accumulates in float32, not an oracle."""
    return t.double().numpy()


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_constant_whole_is_exactly_zero(n, dtype):
    for v in VALUES:
        x = pyth.full((n,), v, dtype=dtype)
        if not math.isfinite(x[0].item()):  # 1e10 overflows float16: NaN, as in numpy
            assert math.isnan(x.var().item())
            continue
        for fn in (pyth.var, pyth.std):
            r = fn(x)
            assert r.dtype is dtype
            if n == 1:  # one element, correction 1: no degrees of freedom
                assert math.isnan(r.item())
            else:
                assert r.item() == 0.0, (fn.__name__, n, v, r.item())
            assert fn(x, correction=0).item() == 0.0


@pytest.mark.parametrize("n", [2, 3, 7, 1000, 100001])
@pytest.mark.parametrize("dtype", [pyth.float32, pyth.float64], ids=str)
def test_constant_rows_and_columns(n, dtype):
    """Each slice constant, a different constant per slice, reduced along either dim (the
    vertical and the horizontal kernels, threaded for n = 100001)."""
    c = pyth.tensor([0.1, 1 / 3, -2.3, 1e10 + 0.7], dtype=dtype)
    cols = c.reshape(1, 4).expand(n, 4).contiguous()   # constant down each column
    rows = c.reshape(4, 1).expand(4, n).contiguous()   # constant along each row
    for r in (cols.var(0), cols.std(0), rows.var(1), rows.std(1), cols.t().var(1),
              rows.t().var(0), pyth.var(cols, 0, keepdim=True), pyth.std(rows, 1, correction=0)):
        assert (r == 0).all().item(), r
    # the other dim is not constant: numpy and PyTorch agree there
    np.testing.assert_allclose(cols.var(1).numpy(), np.var(cols.numpy(), 1, ddof=1),
                               rtol=1e-5 if dtype is pyth.float32 else 1e-12)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("dims", [0, 1, 2, (0, 2), (1, 2), (0, 1, 2), None])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("correction", [0, 1, 2])
def test_constant_dims_keepdim_correction(dtype, dims, keepdim, correction):
    x = pyth.full((5, 7, 3), 0.1, dtype=dtype)
    kw = {} if dims is None else {"dim": dims, "keepdim": keepdim}
    for fn in (pyth.var, pyth.std):
        r = fn(x, correction=correction, **kw)
        want = np.var(np.zeros((5, 7, 3)), axis=dims, ddof=correction,
                      keepdims=keepdim and dims is not None)
        assert list(r.shape) == list(np.shape(want))
        assert (r == 0).all().item()


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_constant_non_contiguous(dtype):
    base = pyth.full((64, 48), -2.3, dtype=dtype)
    views = [base.t(), base[::3, 1::2], base.t()[5:, ::7], base[:, 3],
             pyth.full((1,), 0.1, dtype=dtype).expand(5000),          # stride 0
             pyth.full((3, 1), 1 / 3, dtype=dtype).expand(3, 4000).t()]
    for v in views:
        assert v.var().item() == 0.0 and v.std().item() == 0.0
        for d in range(v.dim()):
            assert (v.var(d) == 0).all().item() and (v.std(d, keepdim=True) == 0).all().item()


def test_var_mean_std_mean_constant():
    x = pyth.full((3, 1001), 0.1, dtype=pyth.float64)
    v, m = pyth.var_mean(x, 1)
    s, m2 = pyth.std_mean(x, 1)
    assert (v == 0).all().item() and (s == 0).all().item()
    np.testing.assert_allclose(m.numpy(), np.full(3, 0.1), rtol=1e-14)
    np.testing.assert_allclose(m2.numpy(), np.full(3, 0.1), rtol=1e-14)


def _random(shape, dtype, offset):
    a = np.random.default_rng(sum(shape) + int(offset)).standard_normal(shape) + offset
    return pyth.from_numpy(a).to(dtype)


TOL = {pyth.float64: 1e-12, pyth.float32: 1e-5, pyth.float16: 2e-3, pyth.bfloat16: 2e-2}


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("offset", [0.0, 1e3, 1e6])
@pytest.mark.parametrize("shape,dims", [((100001,), None), ((1000, 7), 0), ((1000, 7), 1),
                                        ((7, 1000), 1), ((33, 17, 5), (0, 2)),
                                        ((100001, 3), 0), ((3, 100001), 1)])
def test_random_matches_numpy(dtype, offset, shape, dims):
    """Not constant: the values float64 numpy computes from the same (rounded) inputs."""
    if offset == 1e6 and dtype in (pyth.float16, pyth.bfloat16):
        pytest.skip("1e6 is not representable closely enough in 16 bits to have a spread")
    x = _random(shape, dtype, offset)
    xs = (x, x.t()) if x.dim() == 2 else (x,)
    for t in xs:
        d = dims if t is x else (None if dims is None else 1 - dims)
        for correction in (0, 1):
            want = np.var(_np(t), axis=d, ddof=correction)
            got = pyth.var(t, dim=d, correction=correction)
            assert got.dtype is dtype
            np.testing.assert_allclose(_np(got), want, rtol=TOL[dtype], atol=0)
            np.testing.assert_allclose(_np(pyth.std(t, dim=d, correction=correction)),
                                       np.sqrt(want), rtol=TOL[dtype], atol=0)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("n", LENGTHS)
def test_matches_pytorch(dtype, n):
    torch = pytest.importorskip("torch")
    tdt = getattr(torch, str(dtype).split(".")[-1])
    for offset in (0.0, 1e4):
        x = _random((n,), pyth.float64, offset).to(dtype)
        tx = torch.from_numpy(x.double().numpy()).to(tdt)
        for correction in (0, 1):
            if n == 1 and correction == 1:
                assert math.isnan(pyth.var(x, correction=1).item())
                continue
            np.testing.assert_allclose(
                float(pyth.var(x, correction=correction).double().item()),
                float(torch.var(tx, correction=correction).double().item()), rtol=TOL[dtype])
        # constants: PyTorch's per-dim Welford gives exactly 0, and so do we, whole or per dim
        if n == 1:
            continue
        c = pyth.full((n, 2), 0.1, dtype=dtype)
        tc = torch.full((n, 2), 0.1, dtype=tdt)
        assert (c.var(0) == 0).all().item() and (tc.var(0) == 0).all().item()
        assert (c.std(0) == 0).all().item() and (tc.std(0) == 0).all().item()


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy's, on inf - inf
def test_special_values():
    """NaN and inf propagate as in numpy; an empty slice is NaN."""
    for vals in ([1.0, float("nan"), 2.0], [float("inf"), 1.0], [float("inf"), float("inf")],
                 [float("-inf"), float("inf")]):
        got = pyth.tensor(vals, dtype=pyth.float64).var().item()
        assert math.isnan(got) and math.isnan(np.var(vals, ddof=1))
    e = pyth.empty(0, 3, dtype=pyth.float64)
    assert np.isnan(e.var(0).numpy()).all() and list(e.var(1).shape) == [0]

"""The exception TYPE for an op called on a dtype it does not take, per call, as PyTorch raises
it: NotImplementedError where PyTorch has no kernel for the dtype ("not implemented for
'Long'"), RuntimeError where it refuses the dtype by a check of its own. NotImplementedError
is a RuntimeError, so `except RuntimeError` code keeps working. Messages are pyth's own but
name the op and the dtype."""


import numpy as np
import pytest

import pyth
from pyth._errors import not_implemented

# PyTorch warns that some of these (cholesky, qr, triangular_solve) are deprecated
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

NIE, RTE = NotImplementedError, RuntimeError
BOOL = ["bool"]
INTS = ["uint8", "int32", "int64"]
HALF = ["float16", "bfloat16"]
FLOATS = ["float32", "float64"]
M = [[4, 1, 0], [1, 3, 1], [0, 1, 2]]  # symmetric positive definite


def _t(lib, dt, *shape):
    return lib.ones(*shape, dtype=dt)


def _m(lib, dt):
    return lib.tensor(M, dtype=lib.float64).to(dt)


def _b(lib, dt):
    return lib.tensor([[1, 0], [0, 1], [1, 1]], dtype=lib.float64).to(dt)


def _rows(lib, dt):  # (2, 3) logits and their class targets
    return lib.ones(2, 3, dtype=dt), lib.tensor([0, 2])


# (op named in the message, expected type, dtypes, call(lib, F, dt)); lib is pyth or torch,
# F its nn.functional.
# -- pointwise (pyth/_prims/pointwise.py's kinds table) --
POINTWISE = [
    ("lerp", NIE, INTS + BOOL, lambda lib, F, dt: lib.lerp(_t(lib, dt, 3), _t(lib, dt, 3), 0.5)),
    ("lerp", NIE, INTS, lambda lib, F, dt: _t(lib, dt, 3).lerp_(_t(lib, dt, 3), 0.5)),
    ("frac", NIE, INTS + BOOL, lambda lib, F, dt: lib.frac(_t(lib, dt, 3))),
    ("hypot", NIE, INTS + BOOL, lambda lib, F, dt: lib.hypot(_t(lib, dt, 3), _t(lib, dt, 3))),
    ("logaddexp", NIE, INTS, lambda lib, F, dt: lib.logaddexp(_t(lib, dt, 3), _t(lib, dt, 3))),
    ("logaddexp2", NIE, BOOL, lambda lib, F, dt: lib.logaddexp2(_t(lib, dt, 3),
                                                                _t(lib, dt, 3))),
    ("nextafter", NIE, INTS, lambda lib, F, dt: lib.nextafter(_t(lib, dt, 3), _t(lib, dt, 3))),
    ("bitwise_and", NIE, FLOATS + HALF, lambda lib, F, dt: lib.bitwise_and(_t(lib, dt, 3),
                                                                           _t(lib, dt, 3))),
    ("bitwise_xor", NIE, FLOATS, lambda lib, F, dt: _t(lib, dt, 3) ^ _t(lib, dt, 3)),
    ("bitwise_not", NIE, FLOATS + HALF, lambda lib, F, dt: lib.bitwise_not(_t(lib, dt, 3))),
    ("bitwise_left_shift", NIE, BOOL + FLOATS,
     lambda lib, F, dt: lib.bitwise_left_shift(_t(lib, dt, 3), _t(lib, dt, 3))),
    ("gcd", NIE, BOOL + FLOATS, lambda lib, F, dt: lib.gcd(_t(lib, dt, 3), _t(lib, dt, 3))),
    ("lcm", NIE, BOOL + FLOATS, lambda lib, F, dt: lib.lcm(_t(lib, dt, 3), _t(lib, dt, 3))),
    ("abs", NIE, BOOL, lambda lib, F, dt: lib.abs(_t(lib, dt, 3))),
    ("ceil", NIE, BOOL, lambda lib, F, dt: lib.ceil(_t(lib, dt, 3))),
    ("round", NIE, BOOL, lambda lib, F, dt: _t(lib, dt, 3).round()),
    ("trunc", NIE, BOOL, lambda lib, F, dt: lib.trunc(_t(lib, dt, 3))),
    ("fmod", NIE, BOOL, lambda lib, F, dt: lib.fmod(_t(lib, dt, 3), _t(lib, dt, 3))),
    ("remainder", NIE, BOOL, lambda lib, F, dt: lib.remainder(_t(lib, dt, 3), _t(lib, dt, 3))),
    ("floor_divide", NIE, BOOL, lambda lib, F, dt: lib.floor_divide(_t(lib, dt, 3),
                                                                    _t(lib, dt, 3))),
    ("pow", NIE, BOOL, lambda lib, F, dt: lib.pow(_t(lib, dt, 3), _t(lib, dt, 3))),
    ("addcmul", NIE, BOOL, lambda lib, F, dt: lib.addcmul(*[_t(lib, dt, 3)] * 3)),
    # refused outright for bool, by PyTorch's own check
    ("neg", RTE, BOOL, lambda lib, F, dt: lib.neg(_t(lib, dt, 3))),
    ("sub", RTE, BOOL, lambda lib, F, dt: lib.sub(_t(lib, dt, 3), _t(lib, dt, 3))),
    ("sub", RTE, BOOL, lambda lib, F, dt: F.l1_loss(_t(lib, dt, 3), _t(lib, dt, 3))),
    ("exp", RTE, INTS, lambda lib, F, dt: _t(lib, dt, 3).exp_()),  # a cast error in place
]

OTHER = [
    # sorting, counting, searching, scans
    ("median", NIE, BOOL, lambda lib, F, dt: lib.median(_t(lib, dt, 3))),
    ("nanmedian", NIE, BOOL, lambda lib, F, dt: _t(lib, dt, 4).nanmedian(0)),
    ("kthvalue", NIE, BOOL, lambda lib, F, dt: _t(lib, dt, 3).kthvalue(1)),
    ("topk", RTE, BOOL, lambda lib, F, dt: _t(lib, dt, 3).topk(1)),
    ("bincount", NIE, BOOL + FLOATS + HALF, lambda lib, F, dt: lib.bincount(_t(lib, dt, 3))),
    ("repeat_interleave", NIE, BOOL + ["uint8", "int8", "int16"] + FLOATS,
     lambda lib, F, dt: lib.repeat_interleave(lib.ones(3), _t(lib, dt, 3))),
    ("repeat_interleave", NIE, ["int16", "float32"],
     lambda lib, F, dt: lib.repeat_interleave(_t(lib, dt, 3))),
    ("searchsorted", NIE, BOOL, lambda lib, F, dt: lib.searchsorted(_t(lib, dt, 3),
                                                                    _t(lib, dt, 2))),
    ("isin", RTE, BOOL, lambda lib, F, dt: lib.isin(_t(lib, dt, 3), _t(lib, dt, 2))),
    ("cross", NIE, BOOL, lambda lib, F, dt: lib.cross(_t(lib, dt, 3), _t(lib, dt, 3), dim=0)),
    ("cross", NIE, BOOL, lambda lib, F, dt: lib.linalg.cross(_t(lib, dt, 3), _t(lib, dt, 3))),
    ("histogram", NIE, INTS + BOOL + HALF, lambda lib, F, dt: lib.histogram(_t(lib, dt, 4), 3)),
    ("cumsum", NIE, BOOL, lambda lib, F, dt: _t(lib, dt, 3).cumsum_(0)),
    ("cumprod", NIE, BOOL, lambda lib, F, dt: _t(lib, dt, 3).cumprod_(0)),
    ("cumsum", NIE, BOOL, lambda lib, F, dt: lib.cumsum(lib.ones(3), 0, dtype=dt)),
    ("cumsum", NIE, BOOL, lambda lib, F, dt: lib.cumsum(lib.ones(3), 0, out=_t(lib, dt, 3))),
    ("mean", RTE, INTS, lambda lib, F, dt: _t(lib, dt, 3).mean()),
    # sampling
    ("normal", NIE, INTS + BOOL, lambda lib, F, dt: lib.normal(_t(lib, dt, 3), 1.0)),
    ("normal", NIE, INTS, lambda lib, F, dt: lib.normal(0.0, _t(lib, dt, 3))),
    ("exponential_", RTE, INTS + BOOL, lambda lib, F, dt: _t(lib, dt, 3).exponential_()),
    ("cauchy_", RTE, INTS, lambda lib, F, dt: _t(lib, dt, 3).cauchy_()),
    # linear algebra: no float16 / integer LAPACK kernel, or a check of PyTorch's own
    ("cholesky", NIE, HALF, lambda lib, F, dt: lib.linalg.cholesky(_m(lib, dt))),
    ("cholesky", RTE, INTS, lambda lib, F, dt: lib.linalg.cholesky(_m(lib, dt))),
    ("cholesky", NIE, INTS + BOOL + HALF, lambda lib, F, dt: lib.cholesky(_m(lib, dt))),
    ("cholesky_inverse", NIE, INTS + HALF, lambda lib, F, dt: lib.cholesky_inverse(_m(lib, dt))),
    ("cholesky_solve", NIE, INTS + HALF,
     lambda lib, F, dt: lib.cholesky_solve(_b(lib, dt), _m(lib, dt))),
    ("triangular_solve", NIE, INTS + HALF,
     lambda lib, F, dt: lib.triangular_solve(_b(lib, dt), _m(lib, dt))),
    ("solve_triangular", NIE, INTS + BOOL + HALF,
     lambda lib, F, dt: lib.linalg.solve_triangular(_m(lib, dt), _b(lib, dt), upper=True)),
    ("det", NIE, HALF, lambda lib, F, dt: lib.linalg.det(_m(lib, dt))),
    ("det", NIE, HALF, lambda lib, F, dt: lib.det(_m(lib, dt))),
    ("logdet", RTE, HALF, lambda lib, F, dt: lib.logdet(_m(lib, dt))),
    ("slogdet", RTE, HALF, lambda lib, F, dt: lib.linalg.slogdet(_m(lib, dt))),
    ("inv", RTE, INTS + HALF, lambda lib, F, dt: lib.linalg.inv(_m(lib, dt))),
    ("eigh", NIE, INTS + BOOL + HALF, lambda lib, F, dt: lib.linalg.eigh(_m(lib, dt))),
    ("eigh", NIE, INTS + HALF, lambda lib, F, dt: lib.linalg.eigvalsh(_m(lib, dt))),
    ("eig", NIE, HALF, lambda lib, F, dt: lib.linalg.eig(_m(lib, dt))),
    ("qr", NIE, HALF, lambda lib, F, dt: lib.linalg.qr(_m(lib, dt))),
    ("qr", NIE, HALF, lambda lib, F, dt: lib.qr(_m(lib, dt))),
    ("svd", NIE, HALF, lambda lib, F, dt: lib.linalg.svd(_m(lib, dt))),
    ("svd", NIE, HALF, lambda lib, F, dt: lib.linalg.svdvals(_m(lib, dt))),
    ("svd", NIE, HALF, lambda lib, F, dt: lib.linalg.cond(_m(lib, dt))),
    ("pinv", RTE, HALF + INTS, lambda lib, F, dt: lib.linalg.pinv(_m(lib, dt))),
    ("solve", NIE, HALF, lambda lib, F, dt: lib.linalg.solve(_m(lib, dt), _b(lib, dt))),
    ("solve", RTE, INTS, lambda lib, F, dt: lib.linalg.solve(_m(lib, dt), _b(lib, dt))),
    ("solve", NIE, ["float16"],
     lambda lib, F, dt: lib.linalg.tensorsolve(lib.eye(4, dtype=dt).reshape(2, 2, 4),
                                               lib.ones(2, 2, dtype=dt))),
    ("svd_lowrank", RTE, INTS, lambda lib, F, dt: lib.svd_lowrank(_m(lib, dt), q=2)),
    ("cdist", NIE, HALF, lambda lib, F, dt: lib.cdist(_m(lib, dt), _m(lib, dt))),
    ("cdist", RTE, INTS, lambda lib, F, dt: lib.cdist(_m(lib, dt), _m(lib, dt))),
    # nn
    ("elu", NIE, INTS + BOOL, lambda lib, F, dt: F.elu(_t(lib, dt, 3))),
    ("gelu", NIE, INTS, lambda lib, F, dt: F.gelu(_t(lib, dt, 3))),
    ("leaky_relu", NIE, INTS + BOOL, lambda lib, F, dt: F.leaky_relu(_t(lib, dt, 3))),
    ("silu", NIE, INTS, lambda lib, F, dt: F.silu(_t(lib, dt, 3))),
    ("softplus", NIE, INTS, lambda lib, F, dt: F.softplus(_t(lib, dt, 3))),
    ("relu", RTE, BOOL, lambda lib, F, dt: F.relu(_t(lib, dt, 3))),
    ("hardtanh", RTE, BOOL, lambda lib, F, dt: F.hardtanh(_t(lib, dt, 3))),
    ("softmax", NIE, INTS + BOOL, lambda lib, F, dt: F.softmax(_t(lib, dt, 2, 3), 1)),
    ("log_softmax", NIE, INTS, lambda lib, F, dt: F.log_softmax(_t(lib, dt, 2, 3), 1)),
    ("log_softmax", NIE, INTS, lambda lib, F, dt: F.cross_entropy(*_rows(lib, dt))),
    ("nll_loss", NIE, INTS, lambda lib, F, dt: F.nll_loss(*_rows(lib, dt))),
    ("mse_loss", NIE, INTS + BOOL, lambda lib, F, dt: F.mse_loss(_t(lib, dt, 3), _t(lib, dt, 3))),
    ("huber_loss", NIE, INTS + BOOL,
     lambda lib, F, dt: F.huber_loss(_t(lib, dt, 3), _t(lib, dt, 3))),
    ("smooth_l1_loss", NIE, INTS + BOOL,
     lambda lib, F, dt: F.smooth_l1_loss(_t(lib, dt, 3), _t(lib, dt, 3))),
    ("binary_cross_entropy", NIE, INTS + BOOL,
     lambda lib, F, dt: F.binary_cross_entropy(_t(lib, dt, 3), _t(lib, dt, 3))),
    ("binary_cross_entropy_with_logits", NIE, INTS + BOOL,
     lambda lib, F, dt: F.binary_cross_entropy_with_logits(_t(lib, dt, 3), _t(lib, dt, 3))),
]


def _cases(table):
    return [pytest.param(op, kind, dt, fn, id=f"{op}-{dt}-{i}")
            for i, (op, kind, dts, fn) in enumerate(table) for dt in dts]


CASES = _cases(POINTWISE) + _cases(OTHER)


def _squash(s):
    return s.lower().replace("_", "").replace(".", "")


@pytest.mark.parametrize("op,kind,dt,fn", CASES)
def test_exception_kind(op, kind, dt, fn):
    """pyth raises exactly `kind`, with a message naming the op and the dtype."""
    import pyth.nn.functional as F
    dtype = getattr(pyth, dt)
    with pytest.raises(RuntimeError) as info:  # NotImplementedError is one too
        fn(pyth, F, dtype)
    assert type(info.value) is kind, f"{type(info.value).__name__}: {info.value}"
    msg = str(info.value)
    assert _squash(op) in _squash(msg), msg
    assert dtype.real.lower() in msg.lower() or dt in msg, msg


@pytest.mark.parametrize("op,kind,dt,fn", CASES)
def test_kind_matches_pytorch(op, kind, dt, fn):
    """The oracle: PyTorch raises the same type for the same call."""
    torch = pytest.importorskip("torch")
    import torch.nn.functional as TF
    with pytest.raises(Exception) as info:
        fn(torch, TF, getattr(torch, dt))
    assert type(info.value) is kind, f"{type(info.value).__name__}: {info.value}"


def test_not_implemented_is_a_runtime_error():
    """Code written against the old RuntimeError keeps catching the new type."""
    assert issubclass(NotImplementedError, RuntimeError)
    with pytest.raises(RuntimeError, match="not implemented for 'Bool'"):
        pyth.median(pyth.ones(3, dtype=pyth.bool))
    e = not_implemented("lerp", pyth.int64, "expects floating tensors")
    assert type(e) is NotImplementedError
    assert str(e) == "lerp(): not implemented for 'Long' (expects floating tensors)"
    assert str(not_implemented("trace", pyth.bool)) == "trace(): not implemented for 'Bool'"


@pytest.mark.parametrize("dt", ["int32", "int64"])
def test_supported_dtypes_still_work(dt):
    """The checks reject only what has no kernel: the neighbouring dtypes still compute."""
    x = pyth.tensor([1, 2, 0, 2], dtype=getattr(pyth, dt))
    assert pyth.bincount(x).tolist() == [1, 1, 2]
    assert pyth.repeat_interleave(pyth.tensor([5, 6]), x[:2]).tolist() == [5, 6, 6]
    assert pyth.repeat_interleave(x[:2]).tolist() == [0, 1, 1]
    assert pyth.cumsum(pyth.tensor([True, True, False]), 0).tolist() == [1, 2, 2]
    assert pyth.searchsorted(pyth.tensor([False, True]), 1).tolist() == 1
    assert pyth.normal(pyth.zeros(3, dtype=pyth.float64), 1.0).dtype is pyth.float64
    assert pyth.cross(x[:3], x[1:], dim=0).tolist() == np.cross([1, 2, 0], [2, 0, 2]).tolist()
    assert pyth.histogram(pyth.tensor([0.0, 1.0, 1.0]), 2).hist.tolist() == [1.0, 2.0]

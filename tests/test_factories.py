"""Oracle tests for pyth's tensor factories, against numpy (and PyTorch when present).

pyth.tensor (lists, nested lists, scalars, ndarrays, dtype inference), empty / zeros / ones /
full, *_like, arange, linspace, logspace, eye, the legacy per-type constructors, and the error
paths: ragged and non-numeric data, negative sizes, overflowing and impossible allocations.
"""
import math

import numpy as np
import pytest
from _support import (
    DTYPE_NAMES,
    FLOATS,
    ITEMSIZE,
    NP_CARRIER,
    TH_NAME,
    c_strides,
    distinct_values,
    dtype_name,
    kw,
    np_via_tolist,
    pdt,
    torch,
)

import pyth

# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------


def check_fresh(t, shape, name):
    """A freshly allocated, contiguous tensor of the given shape and dtype."""
    assert tuple(t.shape) == tuple(shape)
    assert isinstance(t.shape, tuple)
    assert t.dtype == pdt(name), f"dtype {t.dtype} != {name}"
    assert t.dim() == len(shape)
    assert t.numel() == int(np.prod(shape, dtype=np.int64))
    assert t.is_contiguous()
    if t.numel():
        assert tuple(t.stride()) == c_strides(shape)
    assert t.storage_offset() == 0
    assert t.element_size() == ITEMSIZE[name]


# --------------------------------------------------------------------------------------------
# pyth.tensor
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("data,name,shape", [
    ([1, 2, 3], "int64", (3,)),
    ([1.0, 2.5], "float32", (2,)),
    ([True, False], "bool", (2,)),
    ([1, 2.5], "float32", (2,)),                  # mixed int/float -> default float
    ([True, 1], "int64", (2,)),                   # bool and int -> int64
    ([True, 1.5], "float32", (2,)),
    ([[1, 2], [3, 4], [5, 6]], "int64", (3, 2)),
    ([[[1.5]], [[2.5]]], "float32", (2, 1, 1)),
    ([[True], [False]], "bool", (2, 1)),
    ([], "float32", (0,)),                        # empty: default float
    ([[], []], "float32", (2, 0)),
    (3, "int64", ()),
    (-2.5, "float32", ()),
    (True, "bool", ()),
    ((1, 2, 3), "int64", (3,)),                    # tuples are sequences too
    ([(1, 2), (3, 4)], "int64", (2, 2)),
])
def test_tensor_infers_dtype_and_shape(data, name, shape):
    t = pyth.tensor(data)
    check_fresh(t, shape, name)
    np.testing.assert_array_equal(np_via_tolist(t), np.array(data, dtype=NP_CARRIER[name]))


def test_tensor_inference_matches_torch():
    torch = pytest.importorskip("torch")
    cases = [[1, 2], [1.0, 2], [True, False], [True, 1], [True, 1.5], [[1, 2], [3, 4]], [],
             [[], []], 3, -2.5, True, np.float64(2.5), np.int32(2), np.float16(1.5),
             np.arange(3, dtype=np.int16), np.zeros((2, 0), np.float64), np.array(True)]
    for data in cases:
        tp, tt = pyth.tensor(data), torch.tensor(data)
        assert str(tp.dtype).split(".")[-1] == str(tt.dtype).split(".")[-1], repr(data)
        assert tuple(tp.shape) == tuple(tt.shape), repr(data)
        assert tp.tolist() == tt.tolist(), repr(data)


def test_tensor_large_ints_and_precision():
    t = pyth.tensor([2 ** 62, -2 ** 63])
    assert t.dtype == pyth.int64
    assert t.tolist() == [2 ** 62, -2 ** 63]
    f = pyth.tensor([0.1])
    assert f.dtype == pyth.float32
    assert f.tolist()[0] == float(np.float32(0.1))
    d = pyth.tensor([0.1], dtype=pyth.float64)
    assert d.tolist()[0] == 0.1


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_tensor_with_dtype(name):
    data = [[0, 1, 2], [3, 4, 5]]
    t = pyth.tensor(data, dtype=pdt(name))
    check_fresh(t, (2, 3), name)
    np.testing.assert_array_equal(np_via_tolist(t), np.array(data).astype(NP_CARRIER[name]))
    s = pyth.tensor(7, dtype=pdt(name))
    check_fresh(s, (), name)
    assert s.item() == np.array(7).astype(NP_CARRIER[name]).item()


def test_tensor_float_to_int_truncates_like_torch():
    t = pyth.tensor([1.5, -2.7, 3.9], dtype=pyth.int32)
    assert t.tolist() == [1, -2, 3]
    b = pyth.tensor([0.0, 0.5, -3.0], dtype=pyth.bool)
    assert b.tolist() == [False, True, True]


def test_tensor_half_and_bfloat16_round():
    h = pyth.tensor([1.0 + 2 ** -11, 65504.0, 1 / 3], dtype=pyth.float16)
    np.testing.assert_array_equal(np_via_tolist(h), np.array([1.0 + 2 ** -11, 65504.0, 1 / 3],
                                                     dtype=np.float16))
    b = pyth.tensor([1.0, 1.0 + 2 ** -8, 3.0, 1 / 3, 256.0, 257.0], dtype=pyth.bfloat16)
    vals = b.tolist()
    assert vals[0] == 1.0 and vals[2] == 3.0 and vals[4] == 256.0
    assert vals[1] in (1.0, 1.0 + 2 ** -7)            # round to 8 significant bits
    assert abs(vals[3] - 1 / 3) < 2 ** -9
    assert vals[5] in (256.0, 258.0)


@pytest.mark.parametrize("npdt,name", [
    (np.uint8, "uint8"), (np.int8, "int8"), (np.int16, "int16"), (np.int32, "int32"),
    (np.int64, "int64"), (np.float32, "float32"), (np.float64, "float64"),
    (np.float16, "float16"), (np.bool_, "bool"),
])
def test_tensor_from_ndarray_keeps_dtype_and_copies(npdt, name):
    a = distinct_values((3, 4), name).astype(npdt)
    t = pyth.tensor(a)
    check_fresh(t, (3, 4), name)
    np.testing.assert_array_equal(np_via_tolist(t), a)
    # pyth.tensor copies: later changes of the array do not show
    before = a.copy()
    a[...] = a[::-1]
    np.testing.assert_array_equal(np_via_tolist(t), before)


@pytest.mark.parametrize("make", [
    lambda a: a.T, lambda a: a[::2], lambda a: a[:, 1::3], lambda a: a[1], lambda a: a[1, 2, ...],
    lambda a: np.broadcast_to(a[:1], (3, 6)), lambda a: a[:0], lambda a: a.reshape(3, 2, 3)[..., 0],
], ids=["T", "rows", "stepped", "row", "0d", "broadcast", "empty", "ellipsis"])
def test_tensor_from_noncontiguous_ndarray(make):
    a = make(np.arange(18, dtype=np.float64).reshape(3, 6))
    t = pyth.tensor(a)
    check_fresh(t, np.shape(a), "float64")
    np.testing.assert_array_equal(np_via_tolist(t), a)


def test_tensor_from_ndarray_with_dtype_converts():
    a = np.array([[1.5, 2.5], [-3.5, 4.0]])
    t = pyth.tensor(a, dtype=pyth.float32)
    check_fresh(t, (2, 2), "float32")
    np.testing.assert_array_equal(np_via_tolist(t), a.astype(np.float32))
    b = pyth.tensor(a, dtype=pyth.bfloat16)
    check_fresh(b, (2, 2), "bfloat16")
    np.testing.assert_array_equal(np_via_tolist(b), a.astype(np.float32))


def test_tensor_from_numpy_scalars():
    assert pyth.tensor(np.float64(2.5)).dtype == pyth.float64
    assert pyth.tensor(np.int32(2)).dtype == pyth.int32
    assert pyth.tensor(np.int32(2)).dim() == 0
    assert pyth.tensor(np.bool_(True)).dtype == pyth.bool


def test_tensor_from_list_of_0d_tensors_and_nested_tensors():
    t = pyth.tensor([pyth.tensor(1.5), pyth.tensor(2.5)])
    assert t.tolist() == [1.5, 2.5]
    assert t.dtype == pyth.float32


@pytest.mark.parametrize("data", [
    [[1, 2], [3]], [[1], [2, 3]], [[[1, 2]], [[1]]], [[1, 2], [3, 4], [5]],
    [[[1], [2]], [[3], [4, 5]]],
])
def test_tensor_ragged_raises_value_error(data):
    with pytest.raises(ValueError, match=kw("length|ragged|sequence|shape|dim")):
        pyth.tensor(data)


def test_tensor_ragged_scalar_and_list_mix_raises():
    with pytest.raises((ValueError, TypeError)):
        pyth.tensor([1, [2]])


@pytest.mark.parametrize("data", [["a"], "a", [1, "b"], [None], None, [object()], {"a": 1},
                                  [[1.0], ["x"]]])
def test_tensor_non_numeric_raises_type_error(data):
    with pytest.raises(TypeError):
        pyth.tensor(data)


# --------------------------------------------------------------------------------------------
# empty / zeros / ones / full
# --------------------------------------------------------------------------------------------

SHAPES = [(), (0,), (5,), (2, 3), (2, 0, 3), (1, 1, 1, 4)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("fname,val", [("zeros", 0), ("ones", 1), ("empty", None)])
def test_zeros_ones_empty_default_dtype(fname, val, shape):
    f = getattr(pyth, fname)
    for t in ([f(*shape)] if shape else []) + [f(shape), f(list(shape)), f(pyth.Size(shape))]:
        check_fresh(t, shape, "float32")
        if val is not None:
            np.testing.assert_array_equal(np_via_tolist(t), np.full(shape, val, np.float32))


@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("fname,val", [("zeros", 0), ("ones", 1), ("empty", None)])
def test_zeros_ones_empty_dtype(fname, val, name):
    f = getattr(pyth, fname)
    t = f(2, 3, dtype=pdt(name))
    check_fresh(t, (2, 3), name)
    u = f((4,), dtype=pdt(name))
    check_fresh(u, (4,), name)
    if val is not None:
        np.testing.assert_array_equal(np_via_tolist(t), np.full((2, 3), val, NP_CARRIER[name]))


def test_zeros_of_large_size_is_zero():
    t = pyth.zeros(1 << 20)
    assert np_via_tolist(t).sum() == 0
    assert tuple(t.shape) == (1 << 20,)


@pytest.mark.parametrize("value,name", [(3, "int64"), (1.5, "float32"), (True, "bool"),
                                        (-7, "int64"), (0.0, "float32")])
def test_full_infers_dtype_like_torch(value, name):
    t = pyth.full((2, 3), value)
    check_fresh(t, (2, 3), name)
    np.testing.assert_array_equal(np_via_tolist(t), np.full((2, 3), value, NP_CARRIER[name]))


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_full_with_dtype(name):
    v = True if name == "bool" else (7 if name not in FLOATS else 2.5)
    t = pyth.full((3, 2), v, dtype=pdt(name))
    check_fresh(t, (3, 2), name)
    np.testing.assert_array_equal(np_via_tolist(t), np.full((3, 2), v, NP_CARRIER[name]))
    z = pyth.full((), v, dtype=pdt(name))
    check_fresh(z, (), name)
    e = pyth.full((0, 4), v, dtype=pdt(name))
    check_fresh(e, (0, 4), name)


def test_full_special_values():
    t = pyth.full((3,), float("inf"))
    assert t.tolist() == [math.inf] * 3
    n = pyth.full((2,), float("nan"), dtype=pyth.float64)
    assert all(math.isnan(x) for x in n.tolist())
    m = pyth.full((2,), -128, dtype=pyth.int8)
    assert m.tolist() == [-128, -128]


@pytest.mark.parametrize("alias,name", [("byte", "uint8"), ("char", "int8"), ("short", "int16"),
                                        ("int", "int32"), ("long", "int64"), ("float", "float32"),
                                        ("double", "float64"), ("half", "float16")])
def test_dtype_aliases_in_factories(alias, name):
    t = pyth.zeros(2, dtype=getattr(pyth, alias))
    assert t.dtype == pdt(name)
    assert t.type() == f"pyth.{TH_NAME[name]}Tensor"


def test_factories_match_torch():
    torch = pytest.importorskip("torch")
    for shape in SHAPES:
        for fname in ("zeros", "ones", "empty"):
            tp = getattr(pyth, fname)(shape)
            tt = getattr(torch, fname)(shape)
            assert tuple(tp.shape) == tuple(tt.shape)
            assert tuple(tp.stride()) == tuple(tt.stride())
            assert str(tp.dtype).split(".")[-1] == str(tt.dtype).split(".")[-1]
    for v in (3, 1.5, True):
        assert str(pyth.full((2,), v).dtype).split(".")[-1] == \
            str(torch.full((2,), v).dtype).split(".")[-1]


# --------------------------------------------------------------------------------------------
# *_like
# --------------------------------------------------------------------------------------------

def like_sources():
    base = pyth.tensor(distinct_values((3, 4), "int16"), dtype=pyth.int16)
    return {
        "contig": base,
        "transposed": base.t(),
        "stepped": base.narrow(1, 0, 3),
        "expanded": pyth.tensor(distinct_values((3, 1), "float64"), dtype=pyth.float64).expand(3, 5),
        "0d": pyth.tensor(2.5),
        "empty": pyth.zeros(0, 3, dtype=pyth.bool),
        "bf16": pyth.ones(2, 2, dtype=pyth.bfloat16),
    }


@pytest.mark.parametrize("src", ["contig", "transposed", "stepped", "expanded", "0d", "empty",
                                 "bf16"])
@pytest.mark.parametrize("fname,args,val", [("zeros_like", (), 0), ("ones_like", (), 1),
                                            ("empty_like", (), None), ("full_like", (5,), 5)])
def test_like_factories(fname, args, val, src):
    x = like_sources()[src]
    before = np_via_tolist(x)
    name = dtype_name(x)
    t = getattr(pyth, fname)(x, *args)
    assert tuple(t.shape) == tuple(x.shape)
    assert t.dtype == x.dtype
    assert t.storage().data_ptr() != x.storage().data_ptr() or t.numel() == 0
    if t.numel() > 1:
        assert all(t.stride(d) != 0 for d in range(t.dim()) if t.size(d) > 1), \
            "a *_like result must own one element per position (no stride 0)"
    if val is not None:
        np.testing.assert_array_equal(np_via_tolist(t), np.full(tuple(x.shape), val, NP_CARRIER[name]))
    np.testing.assert_array_equal(np_via_tolist(x), before)   # the source is untouched
    # dtype override
    u = getattr(pyth, fname)(x, *args, dtype=pyth.float64)
    assert u.dtype == pyth.float64 and tuple(u.shape) == tuple(x.shape)
    if val is not None:
        np.testing.assert_array_equal(np_via_tolist(u), np.full(tuple(x.shape), val, np.float64))


# --------------------------------------------------------------------------------------------
# arange
# --------------------------------------------------------------------------------------------

ARANGE = [
    ((5,), "int64"), ((2, 7), "int64"), ((0, 10, 3), "int64"), ((10, 0, -3), "int64"),
    ((-5, 5, 2), "int64"), ((0, 0), "int64"), ((3, 3, 1), "int64"), ((0, 1, 5), "int64"),
    ((0, 1, 0.1), "float32"), ((-1, 1, 0.3), "float32"), ((1, 2.5, 0.5), "float32"),
    ((0.5,), "float32"), ((2.5,), "float32"), ((-3.5, 2), "float32"), ((0, 5, 1.5), "float32"),
    ((1, 1.3, 0.1), "float32"),  # (1.3 - 1) / 0.1 = 3.0000000000000004 -> ceil 4, as torch/numpy
    ((0, 0.3, 0.1), "float32"),  # 2.9999999999999996 -> 3
    ((5.0, 0.0, -1.25), "float32"), ((0, 100, 7), "int64"), ((1e-3, 1e-2, 1e-3), "float32"),
]


@pytest.mark.parametrize("args,name", ARANGE, ids=str)
def test_arange_matches_numpy(args, name):
    t = pyth.arange(*args)
    start, end, step = (0, args[0], 1) if len(args) == 1 else (
        (args[0], args[1], 1) if len(args) == 2 else args)
    n = max(0, math.ceil((end - start) / step))
    exp = start + step * np.arange(n, dtype=np.float64)
    check_fresh(t, (n,), name)
    assert n == len(np.arange(*args))        # the oracle agrees with numpy on the count
    np.testing.assert_allclose(np_via_tolist(t).astype(np.float64), exp, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", [n for n in DTYPE_NAMES if n != "bool"])
def test_arange_with_dtype(name):
    t = pyth.arange(0, 10, 2, dtype=pdt(name))
    check_fresh(t, (5,), name)
    np.testing.assert_array_equal(np_via_tolist(t), np.arange(0, 10, 2).astype(NP_CARRIER[name]))
    if name in FLOATS:
        f = pyth.arange(0, 1, 0.25, dtype=pdt(name))
        check_fresh(f, (4,), name)
        np.testing.assert_array_equal(np_via_tolist(f), np.array([0, 0.25, 0.5, 0.75], np.float32))


def test_arange_keyword_arguments():
    t = pyth.arange(start=1, end=7, step=2)
    assert t.tolist() == [1, 3, 5]
    u = pyth.arange(4, dtype=pyth.float64)
    assert u.dtype == pyth.float64 and u.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_arange_matches_torch():
    torch = pytest.importorskip("torch")
    for args, _ in ARANGE:
        tp, tt = pyth.arange(*args), torch.arange(*args)
        assert tuple(tp.shape) == tuple(tt.shape), args
        assert str(tp.dtype).split(".")[-1] == str(tt.dtype).split(".")[-1], args
        np.testing.assert_allclose(np_via_tolist(tp).astype(np.float64), tt.double().numpy(),
                                   rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("args,words", [
    ((0, 5, 0), ("step",)),
    ((5, 0, 1), ("step|sign|bound",)),
    ((0, 5, -1), ("step|sign|bound",)),
    ((0, float("inf")), ("inf|finite|range|bound",)),
    ((0, float("nan")), ("nan|finite|range|bound",)),
])
def test_arange_errors(args, words):
    with pytest.raises(RuntimeError, match=kw(*words)):
        pyth.arange(*args)


# --------------------------------------------------------------------------------------------
# linspace / logspace
# --------------------------------------------------------------------------------------------

LINSPACE = [(0, 1, 5), (-1, 1, 7), (0, 10, 1), (0, 1, 0), (3, -3, 4), (1, 1, 3), (0, 1, 2),
            (-2.5, 7.5, 101), (0, 1e-3, 11)]


@pytest.mark.parametrize("args", LINSPACE, ids=str)
def test_linspace_matches_numpy(args):
    t = pyth.linspace(*args)
    check_fresh(t, (args[2],), "float32")
    np.testing.assert_allclose(np_via_tolist(t), np.linspace(*args), rtol=1e-6, atol=1e-6)
    if args[2] >= 1:
        assert t.tolist()[0] == np.float32(args[0])
    if args[2] >= 2:
        assert t.tolist()[-1] == np.float32(args[1])   # endpoints exact


@pytest.mark.parametrize("name", ["float64", "float16", "bfloat16", "int64", "int32"])
def test_linspace_dtype(name):
    t = pyth.linspace(0, 10, 5, dtype=pdt(name))
    check_fresh(t, (5,), name)
    if name.startswith("int"):
        # values are computed in floating point and truncated, as PyTorch does
        assert t.tolist() == [0, 2, 5, 7, 10]
        assert pyth.linspace(-5, 5, 4, dtype=pdt(name)).tolist() == [-5, -1, 1, 5]
    else:
        np.testing.assert_allclose(np_via_tolist(t), [0, 2.5, 5, 7.5, 10])


def test_linspace_matches_torch():
    torch = pytest.importorskip("torch")
    for args in LINSPACE:
        tp, tt = pyth.linspace(*args), torch.linspace(*args)
        assert tuple(tp.shape) == tuple(tt.shape)
        np.testing.assert_allclose(np_via_tolist(tp), tt.numpy(), rtol=1e-6, atol=1e-6)
    tp = pyth.linspace(-5, 5, 4, dtype=pyth.int64)
    assert tp.tolist() == torch.linspace(-5, 5, 4, dtype=torch.int64).tolist()


def test_linspace_negative_steps_raises():
    with pytest.raises(RuntimeError, match=kw("step|negative|-1")):
        pyth.linspace(0, 1, -1)


@pytest.mark.parametrize("args,kwargs", [((0, 2, 3), {}), ((0, 3, 4), {"base": 2}),
                                         ((-1, 1, 5), {}), ((1, 1, 1), {}), ((0, 1, 0), {})])
def test_logspace_matches_numpy(args, kwargs):
    t = pyth.logspace(*args, **kwargs)
    check_fresh(t, (args[2],), "float32")
    np.testing.assert_allclose(np_via_tolist(t), np.logspace(*args, **kwargs), rtol=1e-5)


# --------------------------------------------------------------------------------------------
# eye
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("args", [(3,), (2, 4), (4, 2), (0,), (3, 0), (1,), (5, 5)], ids=str)
def test_eye_matches_numpy(args):
    t = pyth.eye(*args)
    exp = np.eye(*args, dtype=np.float32)
    check_fresh(t, exp.shape, "float32")
    np.testing.assert_array_equal(np_via_tolist(t), exp)


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_eye_dtype(name):
    t = pyth.eye(3, 4, dtype=pdt(name))
    check_fresh(t, (3, 4), name)
    np.testing.assert_array_equal(np_via_tolist(t), np.eye(3, 4).astype(NP_CARRIER[name]))


def test_eye_keyword_m():
    assert tuple(pyth.eye(2, m=3).shape) == (2, 3)


def test_eye_negative_raises():
    with pytest.raises(ValueError, match=kw("-1|negative")):
        pyth.eye(-1)
    with pytest.raises(ValueError, match=kw("-2|negative")):
        pyth.eye(2, -2)


# --------------------------------------------------------------------------------------------
# legacy constructors
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_legacy_constructors(name):
    cls = getattr(pyth, TH_NAME[name] + "Tensor")
    scls = getattr(pyth, TH_NAME[name] + "Storage")
    e = cls()
    assert tuple(e.shape) == (0,) and e.dim() == 1 and e.numel() == 0
    assert e.dtype == pdt(name)
    assert e.type() == f"pyth.{TH_NAME[name]}Tensor"
    assert isinstance(e, cls)
    u = cls(2, 3)
    check_fresh(u, (2, 3), name)
    assert isinstance(u, cls)
    z = cls(2, 0)
    check_fresh(z, (2, 0), name)
    data = [[1, 0], [1, 1]]
    d = cls(data)
    check_fresh(d, (2, 2), name)
    np.testing.assert_array_equal(np_via_tolist(d), np.array(data).astype(NP_CARRIER[name]))
    # FloatTensor(storage): a 1-D view of all of it, sharing memory
    vals = [1, 0, 1, 1, 0]
    s = scls(vals)
    v = cls(s)
    assert tuple(v.shape) == (5,) and v.dtype == pdt(name)
    assert v.storage().data_ptr() == s.data_ptr()
    np.testing.assert_array_equal(np_via_tolist(v), np.array(vals).astype(NP_CARRIER[name]))
    s[0] = 0
    assert v.tolist()[0] == np.array(0).astype(NP_CARRIER[name]).item()


def test_legacy_float_tensor_from_float_list():
    t = pyth.FloatTensor([[1, 2], [3, 4]])
    assert t.dtype == pyth.float32
    assert t.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    d = pyth.DoubleTensor([0.1])
    assert d.tolist() == [0.1]
    lng = pyth.LongTensor([2 ** 40])
    assert lng.tolist() == [2 ** 40]


def test_isinstance_by_type_class():
    assert isinstance(pyth.zeros(2), pyth.FloatTensor)
    assert not isinstance(pyth.zeros(2), pyth.DoubleTensor)
    assert isinstance(pyth.arange(3), pyth.LongTensor)
    assert isinstance(pyth.tensor([True]), pyth.BoolTensor)


def test_legacy_constructor_empty_storage():
    s = pyth.FloatStorage(0)
    t = pyth.FloatTensor(s)
    assert tuple(t.shape) == (0,)


# --------------------------------------------------------------------------------------------
# negative sizes, overflow, impossible allocations
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("make,words", [
    (lambda: pyth.empty(-1), ("-1|negative",)),
    (lambda: pyth.zeros(2, -3), ("-3|negative",)),
    (lambda: pyth.ones((-1,)), ("-1|negative",)),
    (lambda: pyth.full((-2, 2), 1.0), ("-2|negative",)),
    (lambda: pyth.empty(3, -1, dtype=pyth.int8), ("-1|negative",)),
    (lambda: pyth.FloatTensor(-1), ("-1|negative",)),
    (lambda: pyth.LongTensor(2, -5), ("-5|negative",)),
    (lambda: pyth.zeros(0, -1), ("-1|negative",)),
], ids=["empty", "zeros", "ones_tuple", "full", "empty_int8", "FloatTensor", "LongTensor",
        "zeros_after_0"])
def test_negative_sizes_raise_value_error(make, words):
    with pytest.raises(ValueError, match=kw(*words)):
        make()


@pytest.mark.parametrize("make", [
    lambda: pyth.empty(2 ** 40, 2 ** 40),
    lambda: pyth.zeros(2 ** 62, 4),
    lambda: pyth.empty(2 ** 32, 2 ** 32, 2 ** 32),
    lambda: pyth.empty(2 ** 63 - 1, dtype=pyth.float64),     # element count fits, bytes do not
    lambda: pyth.FloatTensor(2 ** 40, 2 ** 40),
    lambda: pyth.ones(2 ** 62, 2 ** 2),
], ids=["empty_2d", "zeros", "empty_3d", "bytes_overflow", "legacy", "ones"])
def test_overflowing_sizes_raise_memory_error(make):
    with pytest.raises(MemoryError):
        make()


def test_overflow_with_zero_dim_is_fine():
    t = pyth.empty(2 ** 40, 0, 2 ** 40)       # no elements: nothing to allocate, no overflow
    assert t.numel() == 0 and tuple(t.shape) == (2 ** 40, 0, 2 ** 40)


@pytest.mark.parametrize("make", [
    lambda: pyth.empty(2 ** 62 // 4, dtype=pyth.float32),
    lambda: pyth.zeros(2 ** 61, dtype=pyth.uint8),
    lambda: pyth.full((2 ** 60,), 1.0, dtype=pyth.float32),
    lambda: pyth.FloatTensor(2 ** 60),
], ids=["empty", "zeros", "full", "legacy"])
def test_impossible_allocation_raises_memory_error(make):
    with pytest.raises(MemoryError):
        make()
    # and the library still works afterwards
    assert pyth.zeros(3).tolist() == [0.0, 0.0, 0.0]


def test_failed_allocations_do_not_leak():
    stats = getattr(pyth, "memory_stats", None)
    if stats is None:
        pytest.skip("memory_stats not available")
    pyth.zeros(1)
    before = stats()
    for _ in range(5):
        with pytest.raises(MemoryError):
            pyth.empty(2 ** 62 // 4, dtype=pyth.float32)
        with pytest.raises(ValueError):
            pyth.empty(-1)
    after = stats()

    def live(s):
        for k in ("live_bytes", "live", "bytes"):
            if k in s and isinstance(s[k], int):
                return s[k]
        return None
    if live(before) is None:
        pytest.skip(f"unknown memory_stats layout: {sorted(before)}")
    assert live(after) <= live(before)


_LIST_CASES = [
    [1.0, 2.0], [1, 2, 3], [1, 2.5], [0.1, -0.0, math.inf, -math.inf, math.nan],
    [1e40, -1e40, 3.4028235e38, 3.4028236e38, 1e-46], [2 ** 53 + 1, 2 ** 62, -2 ** 63],
    [2 ** 24 + 1, 0.5], [2 ** 63], [300, -129], [[1.0, 2.0], [3.0, 4.0]], [[1, 2], [3, 4]],
    [[1.0], [2.0, 3.0]], [[1.0, 2.0], 3.0], [True, 1], [], [[]], [1.5, 2.5],
]


@pytest.mark.parametrize("dtype", [None, "float32", "float64", "int64", "int32", "int16",
                                   "int8", "uint8", "float16", "bool"])
@pytest.mark.parametrize("data", _LIST_CASES, ids=repr)
def test_tensor_of_a_number_list_is_the_general_path(data, dtype):
    """A list of Python numbers takes a packed shortcut (factories.number_list): the same
    dtype, shape and bits as the general path (a tuple of the same data), or the same error."""
    dt = pdt(dtype) if dtype else None
    as_tuple = tuple(tuple(v) if type(v) is list else v for v in data)

    def make(d):
        try:
            with np.errstate(over="ignore"):
                return pyth.tensor(d, dtype=dt)
        except Exception as e:   # noqa: BLE001  (the same class either way)
            return type(e)
    a, b = make(data), make(as_tuple)
    if isinstance(b, type):
        assert a is b
        return
    assert a.dtype is b.dtype and a.shape == b.shape
    assert a.numpy().tobytes() == b.numpy().tobytes()


@pytest.mark.skipif(torch is None, reason="needs torch")
@pytest.mark.parametrize("data", [[1.0, 2.0], [1, 2], [1, 2.5], [[0.1, 2], [3, 4e39]],
                                  [2 ** 53 + 1, -7]], ids=repr)
def test_tensor_of_a_number_list_matches_torch(data):
    flat = [v for r in data for v in (r if type(r) is list else [r])]
    for dt in (None, "float32", "float64", "int64"):
        if dt == "int64" and any(type(v) is float for v in flat):
            continue
        p = pyth.tensor(data, dtype=pdt(dt) if dt else None)
        t = torch.tensor(data, dtype=getattr(torch, dt) if dt else None)
        assert p.dtype.name == str(t.dtype).replace("torch.", "")
        assert p.numpy().tobytes() == t.numpy().tobytes()

"""Oracle tests of API.md "Python protocols" and "numpy".

Each test builds the same data in numpy (and, in the torch_ tests, PyTorch when installed) and
compares: values, Python element types, sharing of memory, and the exception types raised.
"""

from __future__ import annotations

import copy
import gc
import pickle

import numpy as np
import pytest
from _support import bf16_round, pdt

import pyth

# dtype name -> numpy dtype (None: numpy has no bfloat16)
NUMPY = {
    "uint8": np.uint8,
    "int8": np.int8,
    "int16": np.int16,
    "int32": np.int32,
    "int64": np.int64,
    "float32": np.float32,
    "float64": np.float64,
    "float16": np.float16,
    "bfloat16": None,
    "bool": np.bool_,
}
ALL = list(NUMPY)
WITH_NUMPY = [n for n in ALL if NUMPY[n] is not None]
PY_TYPE = {n: (bool if n == "bool" else float if "float" in n else int) for n in ALL}


def sample(name: str, shape=(3, 4), seed: int = 0) -> np.ndarray:
    """Values of the right type, with negatives where the type has them."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if name == "bool":
        return rng.integers(0, 2, n).astype(bool).reshape(shape)
    if name == "uint8":
        return rng.integers(0, 256, n).astype(np.uint8).reshape(shape)
    if name in ("int8", "int16", "int32", "int64"):
        info = np.iinfo(NUMPY[name])
        lo, hi = max(info.min, -(2**40)), min(info.max, 2**40)
        return rng.integers(lo, hi, n, dtype=np.int64).astype(NUMPY[name]).reshape(shape)
    # floats: multiples of 1/4 are exact in every float type, bfloat16 included
    return (rng.integers(-64, 64, n) / 4.0).astype(NUMPY[name] or np.float64).reshape(shape)


def same_list(got, expected) -> None:
    """Equal values AND equal Python types, recursively (1 == 1.0 == True must not pass)."""
    assert type(got) is type(expected), (got, expected)
    if isinstance(expected, list):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            same_list(g, e)
    elif isinstance(expected, float) and expected != expected:
        assert got != got
    else:
        assert got == expected


# ---------------------------------------------------------------- construction of scalars

@pytest.mark.parametrize("value", [3, 2.5, True])
def test_tensor_of_a_python_scalar_is_zero_dim(value):
    t = pyth.tensor(value)
    assert t.dim() == np.array(value).ndim == 0
    assert tuple(t.size()) == ()
    assert t.item() == value


# ---------------------------------------------------------------- item()

@pytest.mark.parametrize("name", ALL)
def test_item_gives_the_python_scalar(name):
    a = sample(name, (1,), seed=3)
    t = pyth.tensor(a.astype(np.float32) if name == "bfloat16" else a, dtype=pdt(name))
    got = t.item()
    expected = a.item() if name != "bfloat16" else float(a[0])
    assert type(got) is PY_TYPE[name]
    assert got == expected


@pytest.mark.parametrize("shape", [(1,), (1, 1, 1)])
def test_item_of_any_one_element_shape(shape):
    t = pyth.full(shape, 7.5)
    assert t.item() == 7.5


def test_item_of_zero_dim_view():
    t = pyth.tensor([1, 2, 3])
    assert t[2].item() == 3


@pytest.mark.parametrize("shape", [(2,), (0,), (2, 3)])
def test_item_of_several_or_no_elements_is_a_runtime_error(shape):
    with pytest.raises(RuntimeError):
        pyth.zeros(*shape).item()


# ---------------------------------------------------------------- tolist()

LAYOUTS = {
    "contiguous": (lambda t: t, lambda a: a),
    "transposed": (lambda t: t.t(), lambda a: a.T),
    "stepped": (lambda t: t[::2, 1::2], lambda a: a[::2, 1::2]),
    "narrowed": (lambda t: t.narrow(1, 1, 2), lambda a: a[:, 1:3]),
    "expanded": (lambda t: t[0:1].expand(5, 4), lambda a: np.broadcast_to(a[0:1], (5, 4))),
    "zero_dim": (lambda t: t[1, 2], lambda a: a[1, 2]),
    "row": (lambda t: t[1], lambda a: a[1]),
    "size0_rows": (lambda t: t[0:0], lambda a: a[0:0]),
    "size0_cols": (lambda t: t[:, 0:0], lambda a: a[:, 0:0]),
}


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("name", WITH_NUMPY)
def test_tolist_matches_numpy(name, layout):
    a = sample(name)
    view_t, view_a = LAYOUTS[layout]
    got = view_t(pyth.tensor(a)).tolist()
    same_list(got, view_a(a).tolist())


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_tolist_bfloat16_matches_rounded_float32(layout):
    a = np.linspace(-3, 3, 12, dtype=np.float32).reshape(3, 4) + np.float32(1 / 3)
    view_t, view_a = LAYOUTS[layout]
    got = view_t(pyth.tensor(a).bfloat16()).tolist()
    same_list(got, view_a(bf16_round(a)).astype(np.float64).tolist())


def test_bfloat16_rounding_oracle_is_ties_to_even():
    # 1 + 2**-8 is halfway between 1 and 1 + 2**-7: ties go to the even one, 1.0
    assert bf16_round(np.float32([1 + 2**-8, 1 + 3 * 2**-8]))[0] == 1.0
    assert pyth.tensor([1 + 2**-8, 1 + 3 * 2**-8]).bfloat16().tolist() == [1.0, 1 + 2**-6]


def test_tolist_of_size_zero_shapes():
    same_list(pyth.zeros(0).tolist(), [])
    same_list(pyth.zeros(3, 0).tolist(), np.zeros((3, 0)).tolist())
    same_list(pyth.zeros(0, 3).tolist(), np.zeros((0, 3)).tolist())


def test_tolist_of_zero_dim_is_a_scalar():
    same_list(pyth.tensor([1.5, 2.5])[1].tolist(), 2.5)
    same_list(pyth.tensor([4, 5])[0].tolist(), 4)


def test_tolist_of_three_dims_with_permute():
    a = np.arange(24, dtype=np.int64).reshape(2, 3, 4)
    same_list(pyth.tensor(a).permute(2, 0, 1).tolist(), a.transpose(2, 0, 1).tolist())


def test_tolist_keeps_nan_and_inf():
    values = [float("nan"), float("inf"), -float("inf"), -0.0]
    got = pyth.tensor(values, dtype=pyth.float64).tolist()
    same_list(got, np.array(values).tolist())
    assert str(got[3]) == "-0.0"


def test_torch_tolist_agrees():
    torch = pytest.importorskip("torch")
    a = sample("float32")
    same_list(pyth.tensor(a).t()[1:].tolist(), torch.tensor(a).t()[1:].tolist())
    b = sample("int64")
    same_list(pyth.tensor(b)[::2].tolist(), torch.tensor(b)[::2].tolist())


def test_torch_bfloat16_tolist_agrees():
    torch = pytest.importorskip("torch")
    a = np.linspace(-5, 5, 37, dtype=np.float32) / 3
    expected = torch.tensor(a).bfloat16().tolist()
    same_list(pyth.tensor(a).bfloat16().tolist(), expected)


# ---------------------------------------------------------------- iteration, len

def test_iteration_over_dim_zero():
    a = sample("int64", (3, 4))
    t = pyth.tensor(a)
    rows = list(t)
    assert len(rows) == 3
    for row, expected in zip(rows, a):
        assert tuple(row.size()) == expected.shape
        same_list(row.tolist(), expected.tolist())


def test_iteration_of_one_dim_yields_zero_dim_tensors():
    items = list(pyth.tensor([1.5, 2.5, 3.5]))
    assert [x.dim() for x in items] == [0, 0, 0]
    assert [x.item() for x in items] == [1.5, 2.5, 3.5]


def test_iteration_yields_views():
    t = pyth.zeros(2, 3)
    for i, row in enumerate(t):
        row.fill_(i + 1)
    same_list(t.tolist(), [[1.0] * 3, [2.0] * 3])


def test_iteration_of_transposed_view():
    a = sample("float64")
    same_list([r.tolist() for r in pyth.tensor(a).t()], [r.tolist() for r in a.T])


def test_iteration_over_zero_dim_is_a_type_error():
    with pytest.raises(TypeError):
        iter(pyth.tensor([1.0])[0])


def test_iteration_over_size_zero_is_empty():
    assert list(pyth.zeros(0, 3)) == []


def test_len_is_size_of_dim_zero():
    assert len(pyth.zeros(4, 2)) == 4
    assert len(pyth.zeros(0, 2)) == 0
    assert len(pyth.zeros(4, 2).t()) == 2


def test_len_of_zero_dim_is_a_type_error():
    with pytest.raises(TypeError):
        len(pyth.zeros(3)[0])


# ---------------------------------------------------------------- bool, float, int

@pytest.mark.parametrize("name", ALL)
def test_scalar_conversions_of_one_element(name):
    a = sample(name, (1,), seed=5)
    t = pyth.tensor(a.astype(np.float32) if name == "bfloat16" else a, dtype=pdt(name))
    v = a.astype(np.float64)[0] if name == "bfloat16" else a[0]
    assert bool(t) is bool(v)
    assert float(t) == float(v) and type(float(t)) is float
    assert int(t) == int(v) and type(int(t)) is int


def test_int_truncates_toward_zero():
    assert int(pyth.tensor([3.9])) == 3
    assert int(pyth.tensor([-3.9])) == -3
    assert int(pyth.tensor([[7.5]])) == 7


def test_bool_of_zero_and_nonzero():
    assert bool(pyth.tensor([0.0])) is False
    assert bool(pyth.tensor([-0.0])) is False
    assert bool(pyth.tensor([0.25])) is True
    assert bool(pyth.tensor([float("nan")])) is True
    assert bool(pyth.tensor([0], dtype=pyth.uint8)) is False


@pytest.mark.parametrize("shape", [(2,), (0,), (2, 2)])
def test_bool_of_several_or_no_elements_is_a_runtime_error(shape):
    with pytest.raises(RuntimeError):
        bool(pyth.zeros(*shape))


@pytest.mark.parametrize("convert", [float, int])
@pytest.mark.parametrize("shape", [(2,), (0,), (2, 2)])
def test_float_int_of_several_or_no_elements_is_a_value_error(convert, shape):
    with pytest.raises(ValueError):
        convert(pyth.zeros(*shape))


def test_int_of_nan_is_a_value_error():
    with pytest.raises(ValueError):
        int(pyth.tensor([float("nan")]))


def test_torch_conversion_errors_agree():
    torch = pytest.importorskip("torch")
    cases = [
        (lambda m: m.zeros(2).item(), "item"),
        (lambda m: bool(m.zeros(2)), "bool"),
        (lambda m: bool(m.zeros(0)), "bool-empty"),
        (lambda m: float(m.zeros(2)), "float"),
        (lambda m: int(m.zeros(0)), "int-empty"),
        (lambda m: len(m.zeros(2)[0]), "len-0d"),
        (lambda m: iter(m.zeros(2)[0]), "iter-0d"),
    ]
    for fn, label in cases:
        with pytest.raises(Exception) as expected:
            fn(torch)
        with pytest.raises(Exception) as got:
            fn(pyth)
        assert got.type is expected.type, label


# ---------------------------------------------------------------- copy, deepcopy, pickle

def shares_storage(x, y) -> bool:
    """Whether a write through x is seen by y (at every element of y that x covers)."""
    before = y.tolist()
    x.fill_(123)
    after = y.tolist()
    return before != after


def test_copy_copy_shares_storage_as_torch_does():
    t = pyth.arange(4, dtype=pyth.float32)
    c = copy.copy(t)
    same_list(c.tolist(), t.tolist())
    c[0] = 9
    assert t[0].item() == 9


@pytest.mark.parametrize("name", ALL)
def test_deepcopy_is_independent(name):
    a = sample(name)
    t = pyth.tensor(a.astype(np.float32) if name == "bfloat16" else a, dtype=pdt(name))
    view = t.t()[1:]
    c = copy.deepcopy(view)
    assert c.dtype is view.dtype
    assert tuple(c.size()) == tuple(view.size())
    same_list(c.tolist(), view.tolist())
    before = view.tolist()
    c.fill_(1)
    same_list(view.tolist(), before)


def test_deepcopy_keeps_sharing_inside_a_list():
    base = pyth.arange(12, dtype=pyth.float32).view(3, 4)
    items = [base, base.t(), base[1], base.narrow(1, 2, 2)]
    copies = copy.deepcopy(items)
    for original, c in zip(items, copies):
        same_list(c.tolist(), original.tolist())
        assert c.stride() == original.stride()
        assert c.storage_offset() == original.storage_offset()
    copies[0][1, 2] = 100
    assert copies[1][2, 1].item() == 100
    assert copies[2][2].item() == 100
    assert copies[3][1, 0].item() == 100
    assert base[1, 2].item() == 6  # the original is untouched
    assert copies[0].storage() is copies[1].storage()


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped", "zero_dim",
                                    "size0_rows", "expanded"])
def test_pickle_round_trip(name, layout):
    a = sample(name)
    t = pyth.tensor(a.astype(np.float32) if name == "bfloat16" else a, dtype=pdt(name))
    view = LAYOUTS[layout][0](t)
    back = pickle.loads(pickle.dumps(view))
    assert type(back) is type(view)
    assert back.dtype is view.dtype
    assert tuple(back.size()) == tuple(view.size())
    same_list(back.tolist(), view.tolist())


def test_pickle_keeps_sharing_inside_a_list():
    base = pyth.arange(12, dtype=pyth.int64).view(3, 4)
    other = pyth.zeros(2)
    blob = pickle.dumps([base, base.t(), base[2], other])
    a, at, a2, o = pickle.loads(blob)
    same_list(at.tolist(), np.arange(12).reshape(3, 4).T.tolist())
    a[2, 1] = -5
    assert at[1, 2].item() == -5
    assert a2[1].item() == -5
    assert not shares_storage(a, o)
    assert base[2, 1].item() == 9  # the original is untouched


def test_pickle_protocols_agree():
    t = pyth.tensor([[1.0, 2.0], [3.0, 4.0]]).t()
    for proto in range(2, pickle.HIGHEST_PROTOCOL + 1):
        same_list(pickle.loads(pickle.dumps(t, protocol=proto)).tolist(), t.tolist())


# ---------------------------------------------------------------- t.numpy()

@pytest.mark.parametrize("name", WITH_NUMPY)
def test_numpy_is_zero_copy_both_ways(name):
    a = sample(name)
    t = pyth.tensor(a)
    n = t.numpy()
    assert n.dtype == np.dtype(NUMPY[name])
    assert n.shape == a.shape
    assert n.ctypes.data == t.data_ptr()
    np.testing.assert_array_equal(n, a)
    one = NUMPY[name](1)
    n[0, 0] = one
    assert t[0, 0].item() == one
    t[2, 3] = 0
    assert n[2, 3] == 0


def test_numpy_of_views_has_the_view_strides():
    base = pyth.arange(20, dtype=pyth.float64).view(4, 5)
    a = np.arange(20, dtype=np.float64).reshape(4, 5)
    for view_t, view_a in [(base.t(), a.T), (base[1::2, 1:4], a[1::2, 1:4]),
                           (base[:, 2:3].expand(4, 6), np.broadcast_to(a[:, 2:3], (4, 6)))]:
        n = view_t.numpy()
        assert n.strides == tuple(s * 8 for s in view_t.stride())
        np.testing.assert_array_equal(n, view_a)
        assert np.shares_memory(n, base.numpy())


def test_numpy_keeps_storage_alive():
    n = pyth.arange(1000, dtype=pyth.int64).numpy()
    gc.collect()
    junk = [pyth.full((1000,), -1, dtype=pyth.int64) for _ in range(20)]
    np.testing.assert_array_equal(n, np.arange(1000))
    del junk


def test_numpy_of_bfloat16_is_a_type_error():
    with pytest.raises(TypeError):
        pyth.ones(3, dtype=pyth.bfloat16).numpy()


def test_float16_round_trips_bit_exactly():
    a = np.array([0.0, -0.0, 1 / 3, 65504.0, 6e-8, -2.5, np.inf, np.nan], dtype=np.float16)
    t = pyth.from_numpy(a)
    assert t.dtype is pyth.float16
    np.testing.assert_array_equal(t.numpy().view(np.uint16), a.view(np.uint16))
    copied = pyth.tensor(a)
    assert copied.dtype is pyth.float16
    np.testing.assert_array_equal(copied.numpy().view(np.uint16), a.view(np.uint16))
    same_list(copied.tolist(), a.tolist())


# ---------------------------------------------------------------- pyth.from_numpy

FROM_NUMPY_LAYOUTS = {
    "c_order": lambda: np.arange(12, dtype=np.float32).reshape(3, 4),
    "f_order": lambda: np.asfortranarray(np.arange(12, dtype=np.float32).reshape(3, 4)),
    "sliced": lambda: np.arange(60, dtype=np.float32).reshape(6, 10)[1::2, 2:9:3],
    "transposed": lambda: np.arange(24, dtype=np.float32).reshape(2, 3, 4).transpose(2, 0, 1),
    "zero_dim": lambda: np.array(2.5, dtype=np.float32),
    "size0": lambda: np.zeros((0, 4), dtype=np.float32),
}


@pytest.mark.parametrize("layout", list(FROM_NUMPY_LAYOUTS))
def test_from_numpy_is_zero_copy(layout):
    a = FROM_NUMPY_LAYOUTS[layout]()
    t = pyth.from_numpy(a)
    assert t.dtype is pyth.float32
    assert tuple(t.size()) == a.shape
    assert t.stride() == tuple(s // a.itemsize for s in a.strides) or a.size == 0
    same_list(t.tolist(), a.tolist())
    if a.size:
        assert t.data_ptr() == a.ctypes.data
        assert t.storage().allocator_name() == "numpy"
        a[...] = -1  # numpy -> pyth
        assert set(np.ravel(t.tolist())) == {-1.0}
        t.fill_(4)  # pyth -> numpy
        assert (a == 4).all()


@pytest.mark.parametrize("name", WITH_NUMPY)
def test_from_numpy_every_dtype(name):
    a = sample(name)
    t = pyth.from_numpy(a)
    assert t.dtype is pdt(name)
    assert t.data_ptr() == a.ctypes.data
    same_list(t.tolist(), a.tolist())


def test_from_numpy_broadcast_array_has_zero_strides():
    base = np.arange(3.0)
    a = np.lib.stride_tricks.as_strided(base, (4, 3), (0, 8), writeable=True)
    t = pyth.from_numpy(a)
    assert t.stride() == (0, 1)
    same_list(t.tolist(), a.tolist())
    # np.broadcast_to gives a read-only view: pyth copies it rather than share memory it
    # must not write
    r = np.broadcast_to(base, (4, 3))
    c = pyth.from_numpy(r)
    same_list(c.tolist(), r.tolist())
    assert c.stride() == (3, 1) and c.data_ptr() != r.ctypes.data


def test_from_numpy_keeps_the_array_alive():
    t = pyth.from_numpy(np.arange(500, dtype=np.int64) * 3)
    gc.collect()
    junk = [np.full(500, -1, dtype=np.int64) for _ in range(20)]
    same_list(t.tolist(), (np.arange(500) * 3).tolist())
    del junk


@pytest.mark.parametrize("make", [lambda: np.arange(5.0)[::-1],
                                  lambda: np.arange(12.0).reshape(3, 4)[:, ::-2]])
def test_from_numpy_negative_strides_is_a_value_error(make):
    with pytest.raises(ValueError):
        pyth.from_numpy(make())


@pytest.mark.parametrize("make", [lambda: np.zeros(3, dtype=np.complex64),
                                  lambda: np.zeros(3, dtype=object),
                                  lambda: np.array(["ab", "cd"])])
def test_from_numpy_unsupported_dtype_is_a_type_error(make):
    with pytest.raises(TypeError):
        pyth.from_numpy(make())


def test_from_numpy_non_native_byte_order_is_refused_as_torch():
    a = np.arange(3, dtype=np.float32).astype(">f4")
    with pytest.raises(ValueError):
        pyth.from_numpy(a)


def test_tensor_of_an_array_copies():
    a = np.arange(6.0).reshape(2, 3)
    t = pyth.tensor(a)
    a[0, 0] = 50
    assert t[0, 0].item() == 0


# ---------------------------------------------------------------- __array_interface__, __array__

@pytest.mark.parametrize("name", WITH_NUMPY)
def test_asarray_is_zero_copy(name):
    t = pyth.tensor(sample(name))
    n = np.asarray(t)
    assert n.dtype == np.dtype(NUMPY[name])
    assert n.ctypes.data == t.data_ptr()
    same_list(n.tolist(), t.tolist())
    n[1, 1] = NUMPY[name](0)
    assert t[1, 1].item() == 0


def test_asarray_of_transposed_view_is_zero_copy():
    base = pyth.arange(6, dtype=pyth.int32).view(2, 3)
    n = np.asarray(base.t())
    assert np.shares_memory(n, base.numpy())
    same_list(n.tolist(), np.arange(6).reshape(2, 3).T.tolist())


def test_asarray_describes_the_view():
    base = pyth.arange(20, dtype=pyth.int16).view(4, 5)
    view = base[1:, ::2]
    iface = np.asarray(view).__array_interface__
    assert iface["shape"] == (3, 3)
    assert iface["typestr"] == np.dtype(np.int16).str
    assert iface["data"][0] == view.data_ptr()
    assert iface["strides"] in (None, (10, 4))
    # no __array_interface__ of its own: numpy would hold the tensor, not its memory
    assert not hasattr(view, "__array_interface__")


def test_asarray_of_bfloat16_is_a_type_error_as_torch():
    with pytest.raises(TypeError):
        np.asarray(pyth.ones(2, dtype=pyth.bfloat16))


def test_np_array_copies_by_default():
    t = pyth.arange(4, dtype=pyth.float32)
    n = np.array(t)
    assert not np.shares_memory(n, t.numpy())
    n[0] = 9
    assert t[0].item() == 0


def test_np_array_with_dtype_converts():
    t = pyth.tensor([1.5, -2.5, 3.0])
    n = np.array(t, dtype=np.float64)
    assert n.dtype == np.float64
    same_list(n.tolist(), [1.5, -2.5, 3.0])
    same_list(np.array(t, dtype=np.int64).tolist(), [1, -2, 3])


def test_np_array_copy_false_when_no_copy_is_needed_shares():
    t = pyth.arange(4, dtype=pyth.float32)
    n = np.array(t, copy=False)
    assert np.shares_memory(n, t.numpy())


def test_np_array_copy_false_when_a_copy_is_needed_is_a_value_error():
    t = pyth.arange(4, dtype=pyth.float32)
    with pytest.raises(ValueError):
        np.array(t, dtype=np.float64, copy=False)


def test_dunder_array_follows_numpy2_copy_rules():
    t = pyth.arange(4, dtype=pyth.float32)
    shared = t.__array__()
    assert np.shares_memory(shared, t.numpy())
    assert np.shares_memory(t.__array__(copy=None), t.numpy())
    assert np.shares_memory(t.__array__(np.float32, copy=False), t.numpy())
    copied = t.__array__(copy=True)
    assert not np.shares_memory(copied, t.numpy())
    same_list(copied.tolist(), t.tolist())
    converted = t.__array__(np.float64)
    assert converted.dtype == np.float64
    same_list(converted.tolist(), t.tolist())
    with pytest.raises(ValueError):
        t.__array__(np.float64, copy=False)
    with pytest.raises(ValueError):
        t.__array__(dtype=np.int32, copy=False)


def test_np_asarray_with_other_dtype_copies():
    t = pyth.tensor([1, 2, 3], dtype=pyth.int32)
    n = np.asarray(t, dtype=np.float64)
    n[0] = 50
    assert t[0].item() == 1


def test_torch_numpy_bridge_agrees():
    torch = pytest.importorskip("torch")
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)[:, 1:, ::2]
    same_list(pyth.from_numpy(a).tolist(), torch.from_numpy(a).tolist())
    assert pyth.from_numpy(a).stride() == torch.from_numpy(a).stride()
    for bad in (np.arange(3.0)[::-1], np.zeros(2, dtype=object)):
        with pytest.raises(Exception) as expected:
            torch.from_numpy(bad)
        with pytest.raises(Exception) as got:
            pyth.from_numpy(bad)
        assert got.type is expected.type

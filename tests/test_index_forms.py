"""Every index form numpy and PyTorch accept, against PyTorch: Python ranges, lists, nested
lists, tuples of lists, lists of tensors, numpy integer and bool arrays and integer scalars,
bool lists, mixed with ints, slices, None and Ellipsis, negative and empty indices; in reads
and writes (scalar, tensor and broadcast values), on every dtype and on non-contiguous bases,
with the gradients of both; and the leading size-1 dims PyTorch drops from an assigned
value. Errors compare type and message."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pyth

torch = pytest.importorskip("torch")

SHAPE = (4, 3, 5)

# name -> builder(lib) of an index into a tensor of SHAPE
FORMS = {
    "range": lambda lib: range(3),
    "range_step": lambda lib: range(0, 4, 2),
    "range_reversed": lambda lib: range(3, -1, -1),
    "range_empty": lambda lib: range(0),
    "range_pair": lambda lib: (range(3), [0, 1, 2]),
    "range_and_tensor": lambda lib: (range(3), lib.tensor([2, 0, 1])),
    "range_of_ranges": lambda lib: (range(2), range(1, 3), range(2)),
    "range_then_slice": lambda lib: (slice(None), range(2)),
    "list": lambda lib: [0, 2],
    "list_repeats": lambda lib: [3, 3, 0, -1],
    "list_negative": lambda lib: [-1, -4],
    "nested_list": lambda lib: [[0, 1], [2, 0]],
    "nested_list_of_lists": lambda lib: [[[0, 1], [1, 0]]],
    "list_with_slice": lambda lib: [0, slice(None), 1],
    "list_with_none": lambda lib: [1, None],
    "list_with_ellipsis": lambda lib: [0, Ellipsis],
    "list_of_tensors": lambda lib: [lib.tensor(0), lib.tensor(2)],
    "list_of_ranges": lambda lib: [range(2), [1, 2]],
    "tuple_of_lists": lambda lib: ([0, 1], [1, 2]),
    "tuple_of_nested_lists": lambda lib: ([[0], [3]], [[0, 2]]),
    "tuple_lists_three": lambda lib: ([0, 3], [2, 1], [4, 0]),
    "np_int64": lambda lib: np.array([0, 2], dtype=np.int64),
    "np_int32": lambda lib: np.array([3, 1], dtype=np.int32),
    "np_int16": lambda lib: np.array([1, 0], dtype=np.int16),
    "np_uint16": lambda lib: np.array([2, 1], dtype=np.uint16),
    "np_2d": lambda lib: np.array([[0, 1], [2, 3]]),
    "np_empty": lambda lib: np.array([], dtype=np.int64),
    "np_bool": lambda lib: np.array([True, False, True, False]),
    "np_bool_2d": lambda lib: np.arange(12).reshape(4, 3) % 3 == 0,
    "np_bool_all_false": lambda lib: np.zeros(4, dtype=bool),
    "np_uint8_mask_mismatch": lambda lib: np.array([0, 2], dtype=np.uint8),
    "np_int64_scalar": lambda lib: np.int64(1),
    "np_int32_scalar_negative": lambda lib: np.int32(-2),
    "np_scalars_tuple": lambda lib: (np.int64(1), np.int32(2)),
    "np_scalar_and_list": lambda lib: (np.int64(1), [0, 2]),
    "np_0d_array": lambda lib: np.array(2),
    "np_bool_scalar": lambda lib: np.bool_(True),
    "np_slice_bounds": lambda lib: slice(np.int64(1), np.int64(3)),
    "np_arrays_tuple": lambda lib: (np.array([0, 1]), slice(None), np.array([4, 3])),
    "bool_list": lambda lib: [True, False, True, False],
    "bool_list_inner": lambda lib: (slice(None), [False, True, True]),
    "bool_scalar": lambda lib: True,
    "false_scalar": lambda lib: False,
    "mixed_slice_none": lambda lib: ([0, 2], slice(None), None),
    "mixed_int_between": lambda lib: ([0, 2], 1, [3, 4]),
    "mixed_slice_between": lambda lib: ([0, 2], slice(None), [3, 4]),
    "ellipsis_list": lambda lib: (Ellipsis, [0, 1]),
    "ellipsis_middle": lambda lib: ([1, 2], Ellipsis, [0, 4]),
    "none_list": lambda lib: (None, [0, 1]),
    "none_between": lambda lib: ([1], None, [2]),
    "negative_mixed": lambda lib: ([-1, -4], -2),
    "negative_slice": lambda lib: (slice(-3, None), [-1]),
    "empty_list": lambda lib: [],
    "empty_list_in_tuple": lambda lib: ([], slice(None)),
    "empty_lists": lambda lib: ([], []),
    "nested_empty": lambda lib: [[]],
    "tensor_int32": lambda lib: lib.tensor([1, 3], dtype=lib.int32),
    "tensor_bool": lambda lib: lib.tensor([False, True, True, False]),
    "tensor_0d": lambda lib: lib.tensor(1),
    "tensor_and_range": lambda lib: (lib.tensor([[0], [1]]), range(3)),
    # refused as PyTorch refuses them
    "out_of_range_list": lambda lib: [0, 4],
    "out_of_range_range": lambda lib: range(5),
    "out_of_range_np": lambda lib: (slice(None), np.array([3])),
    "mask_shape_mismatch": lambda lib: [True, False],
    "broadcast_mismatch": lambda lib: ([0, 1], [0, 1, 2]),
    "too_many": lambda lib: (0, 0, 0, 0),
    "float_list_item": lambda lib: (slice(None), 1.5),
    "tensor_int16": lambda lib: lib.tensor([0], dtype=lib.int16),
    "tensor_float": lambda lib: lib.tensor([0.0]),
    "string": lambda lib: "a",
}

DTYPES = ["float32", "float64", "int64", "int32", "int16", "uint8", "bool", "float16",
          "bfloat16"]


def _base(lib, dtype: str, layout: str = "contiguous"):
    dt = getattr(lib, dtype)
    x = lib.arange(60, dtype=lib.float64).reshape(SHAPE)
    x = (x % 7 == 0) if dtype == "bool" else x.to(dt)
    if layout == "transposed":   # the same values in a non-contiguous layout
        x = x.permute(2, 0, 1).contiguous().permute(1, 2, 0)
    elif layout == "stepped":
        big = lib.zeros((8,) + SHAPE[1:], dtype=x.dtype)
        big[::2] = x
        x = big[::2]
    return x


_DIM = re.compile(r"out of bounds for dimension \d+")


def _result(fn):
    """('ok', dtype name, shape, values) or ('err', type name, message with pyth's names)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = fn()
    except Exception as e:  # noqa: BLE001  (the oracle compares every kind)
        # pyth names the dim of the indexed tensor an out-of-range index is for (PyTorch the
        # place of the index among the advanced ones, or in the index for an int)
        return ("err", type(e).__name__, _DIM.sub("out of bounds for dimension d",
                                                  str(e).replace("torch", "pyth")))
    if r is None:
        return ("ok",)
    if isinstance(r, torch.Tensor):
        return ("ok", str(r.dtype).split(".")[1], tuple(r.shape), r.float().tolist())
    return ("ok", str(r.dtype).split(".")[1], tuple(r.shape), r.float().tolist())


def _both(fn):
    return _result(lambda: fn(pyth)), _result(lambda: fn(torch))


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("dtype", DTYPES)
def test_read(form, dtype):
    a, b = _both(lambda lib: _base(lib, dtype)[FORMS[form](lib)])
    assert a == b


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("layout", ["transposed", "stepped"])
def test_read_non_contiguous(form, layout):
    a, b = _both(lambda lib: _base(lib, "float32", layout)[FORMS[form](lib)])
    assert a == b


def _write(lib, dtype, form, value, layout="contiguous"):
    x = _base(lib, dtype, layout)
    x[FORMS[form](lib)] = value(lib, x) if callable(value) else value
    return x


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("dtype", DTYPES)
def test_write_scalar(form, dtype):
    value = True if dtype == "bool" else 7
    assert _both(lambda lib: _write(lib, dtype, form, value)) == \
        _both(lambda lib: _write(lib, dtype, form, value))[::-1][::-1]
    a, b = _both(lambda lib: _write(lib, dtype, form, value))
    assert a == b


def _selected_shape(form):
    r = _result(lambda: _base(torch, "float32")[FORMS[form](torch)])
    return r[2] if r[0] == "ok" else None


def _values(shape, dtype):
    def make(lib, x):
        n = int(np.prod(shape))
        v = lib.arange(n, dtype=lib.float64).reshape(shape) * -1 - 1
        return (v % 2 == 0) if dtype == "bool" else v.to(x.dtype)
    return make


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("dtype", ["float32", "int64", "uint8", "bool", "bfloat16"])
def test_write_tensor(form, dtype):
    shape = _selected_shape(form) or (1,)
    a, b = _both(lambda lib: _write(lib, dtype, form, _values(shape, dtype)))
    assert a == b


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("layout", ["transposed", "stepped"])
def test_write_non_contiguous(form, layout):
    shape = _selected_shape(form) or (1,)
    a, b = _both(lambda lib: _write(lib, "float64", form, _values(shape, "float64"), layout))
    assert a == b


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("how", ["last_dim", "leading_ones", "leading_ones_last_dim", "one"])
def test_write_broadcast(form, how):
    """Values that broadcast to the selection: its last dim only, the selection's shape under
    extra leading size-1 dims (which PyTorch drops), a single element."""
    shape = _selected_shape(form)
    if shape is None or not shape:
        shape = ()
    vshape = {"last_dim": shape[-1:], "leading_ones": (1, 1) + tuple(shape),
              "leading_ones_last_dim": (1,) + tuple(shape[-1:]), "one": (1,)}[how]
    a, b = _both(lambda lib: _write(lib, "float32", form, _values(vshape, "float32")))
    assert a == b


# ---- gradients ----

def _grad_of_read(lib, form, layout):
    x = _base(lib, "float64", layout).detach().requires_grad_(True)
    y = x[FORMS[form](lib)]
    w = lib.arange(y.numel(), dtype=lib.float64).reshape(tuple(y.shape)) + 1
    (y * w).sum().backward()
    return x.grad


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_read_gradient(form, layout):
    a, b = _both(lambda lib: _grad_of_read(lib, form, layout))
    assert a == b


def _grads_of_write(lib, form, vshape):
    x = _base(lib, "float64").detach().requires_grad_(True)
    v = (lib.arange(int(np.prod(vshape)), dtype=lib.float64).reshape(vshape) - 2.5)
    v.requires_grad_(True)
    y = x * 1.0
    y[FORMS[form](lib)] = v * 3.0
    w = lib.arange(60, dtype=lib.float64).reshape(SHAPE) % 5 + 1
    (y * y * w).sum().backward()
    return lib.cat([x.grad.reshape(-1), v.grad.reshape(-1)])


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("how", ["selection", "last_dim", "scalar"])
def test_write_gradient(form, how):
    if form == "false_scalar":
        pytest.skip("t[False] = v: PyTorch records nothing (v.grad None), pyth a zero gradient")
    shape = _selected_shape(form)
    if shape is None:
        shape = (1,)
    vshape = {"selection": tuple(shape), "last_dim": tuple(shape[-1:]), "scalar": ()}[how]
    a, b = _both(lambda lib: _grads_of_write(lib, form, vshape))
    assert a == b


def test_one_ellipsis_only():
    """pyth refuses a second ellipsis, as numpy does (PyTorch moves each one by the dims the
    first covers, reading past the tensor's dims)."""
    with pytest.raises(IndexError, match=r"an index can only have a single ellipsis \('...'\)"):
        pyth.zeros(2, 3)[..., 0, ...]
    with pytest.raises(IndexError, match="single ellipsis"):
        pyth.zeros(2, 3)[..., ...] = 1.0


@pytest.mark.parametrize("form", ["range_pair", "nested_list", "np_bool", "list_of_tensors",
                                  "mixed_slice_between", "np_int64_scalar", "tensor_and_range"])
def test_gradcheck(form):
    x = _base(pyth, "float64").detach().requires_grad_(True)
    index = FORMS[form](pyth)

    def read(t):
        return t[index] * t[index]

    def write(t):
        y = t * 2.0
        y[index] = t[index].exp()
        return y

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert pyth.autograd.gradcheck(read, (x,))
        assert pyth.autograd.gradcheck(write, (x,))


# ---- the value's leading size-1 dims ----

VALUE_CASES = [
    ((3,), 1, (1,)), ((3,), 1, (1, 1)), ((2, 3), 0, (1, 1, 3)), ((2, 3), (0, 1), (1, 1)),
    ((2, 3), [0, 1], (1, 1, 2, 3)), ((2, 3), (slice(None), 1), (1, 2)),
    ((2, 3), [True, False], (1, 1, 3)), ((2, 3), slice(None), (1, 2, 3)),
    ((2, 3), Ellipsis, (1, 3)),
    # refused, as PyTorch refuses them
    ((3,), 1, (2,)), ((2, 3), 0, (2, 3)), ((2, 3), 0, (1, 2)), ((2, 3), slice(None), (3, 3)),
    ((2, 3), (slice(None), 1), (2, 1)), ((2, 3), [0, 1], (1, 2)), ((2, 3), [0, 1], (1, 1, 4)),
    ((2, 3), [True, False], (1, 2)),
]


@pytest.mark.parametrize("shape, index, vshape", VALUE_CASES)
def test_value_leading_ones_dropped(shape, index, vshape):
    def assign(lib):
        y = lib.zeros(shape)
        y[index] = lib.arange(1, 1 + int(np.prod(vshape)), dtype=lib.float32).reshape(vshape)
        return y
    a, b = _both(assign)
    assert a == b


# With autograd, a basic index's assignment is a copy_ into the view t[index] (CopySlices), made
# by the setitem wrapper of pyth/autograd/derivatives/install.py: the value drops its leading
# size-1 dims there too.
@pytest.mark.parametrize("shape, index, vshape", VALUE_CASES[:9])
def test_value_leading_ones_gradient(shape, index, vshape):
    def grads(lib):
        v = lib.arange(1, 1 + int(np.prod(vshape)), dtype=lib.float64).reshape(vshape)
        v.requires_grad_(True)
        x = lib.ones(shape, dtype=lib.float64, requires_grad=True)
        y = x * 2
        y[index] = v * v
        (y * lib.arange(int(np.prod(shape)), dtype=lib.float64).reshape(shape)).sum().backward()
        return lib.cat([x.grad.reshape(-1), v.grad.reshape(-1)])
    a, b = _both(grads)
    assert a == b


def test_out_of_range_names_the_indexed_dim():
    x = pyth.zeros(SHAPE)
    for index, dim in (((slice(None), [3]), 1), ((0, slice(None), 9), 2), ((None, 0, 7), 1),
                       (([0, 1], 0, [9, 0]), 2), ((Ellipsis, 9), 2)):
        with pytest.raises(IndexError, match=f"out of bounds for dimension {dim} with size"):
            x[index]


def test_the_reported_cases():
    y = pyth.zeros(3)
    y[1] = pyth.ones(1)
    assert y.tolist() == [0.0, 1.0, 0.0]
    x = pyth.zeros(3, 4)
    x_ = x.clone()
    x_[range(3), pyth.tensor([0, 2, 1])] = x.max() + 1
    assert x_.tolist() == [[1, 0, 0, 0], [0, 0, 1, 0], [0, 1, 0, 0]]


def test_sequence_as_tuple_warns_as_pytorch():
    for lib in (torch, pyth):
        x = lib.zeros(2, 3)
        for index in ([[0, 1], [1, 2]], [0, slice(None)]):
            with pytest.warns(UserWarning, match="non-tuple sequence for multidimensional"):
                x[index]
            with pytest.warns(UserWarning, match="non-tuple sequence for multidimensional"):
                x[index] = 1.0
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            x[[0, 1]]
            x[(0, [0, 1])]


# ---- random indices (hypothesis) ----

def _item(draw, size):
    kind = draw(st.sampled_from(["int", "slice", "list", "range", "np", "bool", "none",
                                 "np_scalar"]))
    if kind == "int":
        return draw(st.integers(-size, size - 1))
    if kind == "np_scalar":
        return np.int64(draw(st.integers(-size, size - 1)))
    if kind == "slice":
        start = draw(st.one_of(st.none(), st.integers(-size - 1, size + 1)))
        stop = draw(st.one_of(st.none(), st.integers(-size - 1, size + 1)))
        return slice(start, stop, draw(st.one_of(st.none(), st.integers(1, 3))))
    if kind == "list":
        return draw(st.lists(st.integers(-size, size - 1), min_size=1, max_size=3))
    if kind == "range":
        start = draw(st.integers(0, size - 1))
        return range(start, draw(st.integers(start, size)))
    if kind == "np":
        return np.array(draw(st.lists(st.integers(-size, size - 1), min_size=1, max_size=3)))
    if kind == "bool":
        return draw(st.lists(st.booleans(), min_size=size, max_size=size))
    return None


@st.composite
def indices(draw):
    items, d = [], 0
    while d < len(SHAPE) and draw(st.booleans()):
        item = _item(draw, SHAPE[d])
        items.append(item)
        d += item is not None
    if draw(st.booleans()):
        items.insert(draw(st.integers(0, len(items))), Ellipsis)
    return tuple(items)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(indices())
def test_random_reads_and_writes(index):
    def read(lib):
        return _base(lib, "float32")[index]

    def write(lib):
        x = _base(lib, "float32")
        x[index] = -1.0
        return x

    def read_grad(lib):
        x = _base(lib, "float64").detach().requires_grad_(True)
        y = x[index]
        (y * y).sum().backward()
        return x.grad

    for fn in (read, write, read_grad):
        a, b = _both(fn)
        assert a == b, (fn.__name__, index)

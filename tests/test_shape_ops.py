"""Oracle tests for pyth's construction / shape ops (pyth/_prims/shape.py, generic/THTensorShape.c).

cat/concatenate/stack/hstack/vstack/dstack, split, chunk, unbind, flip/fliplr/flipud/rot90,
roll, repeat/tile, tril/triu (+ in place), diag, diagonal and meshgrid are checked against
numpy (always) and PyTorch (when installed) for every dtype and for inputs that are
contiguous, transposed, sliced with a step, expanded, size-0 and 0-dim; views must share the
input's storage and copies must not. Error paths check exception types and message keywords.
The float-step behaviour of arange / linspace / logspace is checked against PyTorch.
"""
import numpy as np
import pytest
from _support import (
    DTYPE_NAMES,
    LAYOUTS,
    NP_CARRIER,
    kw,
    laid_out_as,
    same_storage,
    to_numpy_exact,
    to_torch,
)

import pyth

# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------


def values(shape, name, seed=0):
    """Distinct-ish values that every dtype represents exactly."""
    n = int(np.prod(shape, dtype=np.int64))
    k = np.random.default_rng(seed).permutation(n) if n else np.zeros(0, np.int64)
    if name == "bool":
        v = k % 3 == 0
    elif name == "uint8":
        v = k % 200 + 1
    else:
        v = k % 200 - 99
    return np.asarray(v).astype(NP_CARRIER[name]).reshape(shape)


def make(a, name, layout="contig"):
    """A pyth tensor with a's values in the given memory layout (laid_out_as). expanded makes
    a's rows equal first, in place, so that the oracle sees what the expanded view holds."""
    if layout == "expanded" and a.ndim and a.shape[0]:
        a[...] = a[:1]
    elif layout == "expanded":
        layout = "contig"                    # no row to expand from
    return laid_out_as(a, name, layout)


def same(t, expected, name=None):
    """t has expected's shape, values and (given name) pyth dtype."""
    if name is not None:
        assert t.dtype is getattr(pyth, name), (t.dtype, name)
    got = to_numpy_exact(t)
    assert got.shape == np.asarray(expected).shape, (got.shape, np.asarray(expected).shape)
    np.testing.assert_array_equal(got, np.asarray(expected).astype(got.dtype))


def torch_same(t, expected):
    """pyth tensor t equals torch tensor expected in dtype name, shape and values."""
    torch = pytest.importorskip("torch")
    assert t.dtype.name == str(expected.dtype).replace("torch.", ""), (t.dtype, expected.dtype)
    assert tuple(t.shape) == tuple(expected.shape)
    exp = expected.float() if expected.dtype == torch.bfloat16 else expected
    np.testing.assert_array_equal(to_numpy_exact(t), exp.numpy())


# --------------------------------------------------------------------------------------------
# cat / stack
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_cat_values_dtypes_layouts(name, layout):
    a, b = values((3, 4), name, 1), values((3, 2), name, 2)
    ta, tb = make(a, name, layout), make(b, name, layout)
    same(pyth.cat([ta, tb], 1), np.concatenate([a, b], 1), name)
    same(pyth.cat((ta, tb), -1), np.concatenate([a, b], -1), name)
    c = values((5, 4), name, 3)
    same(pyth.cat([ta, make(c, name, layout), ta], dim=0), np.concatenate([a, c, a], 0), name)
    same(pyth.concatenate([ta, ta], axis=0), np.concatenate([a, a], 0), name)
    same(pyth.concat([ta], dim=0), a, name)


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_cat_size0_and_3d(name):
    a, z = values((2, 3, 4), name), values((2, 0, 4), name)
    for d in range(-3, 3):
        b = values(tuple(7 if k == d % 3 else s for k, s in enumerate((2, 3, 4))), name, 5)
        same(pyth.cat([make(a, name), make(b, name, "transposed")], d),
             np.concatenate([a, b], d), name)
    same(pyth.cat([make(z, name), make(a, name), make(z, name)], 1),
         np.concatenate([z, a, z], 1), name)
    same(pyth.cat([make(z, name), make(z, name)], 1), np.concatenate([z, z], 1), name)


def test_cat_result_is_a_copy():
    a = pyth.arange(6).view(2, 3)
    r = pyth.cat([a, a])
    assert not same_storage(r, a)
    r.fill_(0)
    same(a, np.arange(6).reshape(2, 3))


def test_cat_promotes_like_torch():
    torch = pytest.importorskip("torch")
    for n1 in DTYPE_NAMES:
        for n2 in DTYPE_NAMES:
            a, b = values((2, 2), n1, 1), values((1, 2), n2, 2)
            got = pyth.cat([make(a, n1), make(b, n2)])
            exp = torch.cat([to_torch(make(a, n1)), to_torch(make(b, n2))])
            torch_same(got, exp)


def test_cat_skips_legacy_empty():
    torch = pytest.importorskip("torch")
    e = pyth.tensor([], dtype=pyth.float64)
    x = pyth.ones(2, 3, dtype=pyth.int8)
    r = pyth.cat([e, x, e], 1)
    te, tx = torch.tensor([], dtype=torch.float64), torch.ones(2, 3, dtype=torch.int8)
    torch_same(r, torch.cat([te, tx, te], 1))
    assert r.dtype is pyth.float64 and tuple(r.shape) == (2, 3)
    assert tuple(pyth.cat([e, e], 5).shape) == (0,)          # nothing to check dim against
    assert pyth.cat([e]).dtype is pyth.float64
    with pytest.raises(IndexError, match=kw("out of range", "2")):
        pyth.cat([e, x], 2)
    # a (0, k) tensor is not legacy: its other sizes count
    with pytest.raises(RuntimeError, match=kw("dimension 0", "size 4", "size 3")):
        pyth.cat([pyth.ones(0, 4), pyth.ones(2, 3)])


@pytest.mark.parametrize("out_name", ["float32", "float64", "int64"])
def test_cat_out(out_name):
    a = pyth.arange(6, dtype=pyth.int32).view(2, 3)
    out = pyth.empty(0, dtype=getattr(pyth, out_name))
    r = pyth.cat([a, a], 1, out=out)
    assert r is out and out.dtype.name == out_name
    same(out, np.concatenate([np.arange(6).reshape(2, 3)] * 2, 1))
    # out of the right shape keeps its layout
    t = pyth.zeros(3, 4, dtype=pyth.float64).t()
    pyth.cat([pyth.ones(2, 3), pyth.zeros(2, 3)], out=t)
    assert t.stride() == (1, 4)
    same(t, np.concatenate([np.ones((2, 3)), np.zeros((2, 3))]))


def test_cat_out_errors():
    a = pyth.ones(2, 3)
    with pytest.raises(TypeError, match=kw("cast", "Long")):
        pyth.cat([a], out=pyth.empty(0, dtype=pyth.int64))
    with pytest.raises(RuntimeError, match=kw("output memory")):
        pyth.cat([a, a], out=a)
    with pytest.raises(RuntimeError, match=kw("expanded|overlap|shar|writ")):
        pyth.cat([a], out=pyth.zeros(1, 3).expand(2, 3))


def test_cat_errors():
    x = pyth.ones(2, 3)
    with pytest.raises(ValueError, match=kw("non-empty")):
        pyth.cat([])
    with pytest.raises(RuntimeError, match=kw("dimension 0", "Expected size 3", "size 4",
                                              "tensor number 1")):
        pyth.cat([x, pyth.ones(2, 4)])
    with pytest.raises(RuntimeError, match=kw("dimension 1", "size 2", "size 3",
                                              "tensor number 2")):
        pyth.cat([x, x, pyth.ones(3, 4)], dim=1)
    with pytest.raises(RuntimeError, match=kw("number of dimensions", "2", "3")):
        pyth.cat([x, pyth.ones(2, 3, 1)])
    with pytest.raises(IndexError, match=kw("out of range", "-2, 1")):
        pyth.cat([x, x], 2)
    with pytest.raises(IndexError, match=kw("out of range")):
        pyth.cat([x, x], -3)
    with pytest.raises(RuntimeError, match=kw("zero-dimensional", "position 1")):
        pyth.cat([pyth.ones(2), pyth.tensor(1.0)])
    with pytest.raises(TypeError):
        pyth.cat(x)
    with pytest.raises(TypeError, match=kw("element 1")):
        pyth.cat([x, 1])
    with pytest.raises(TypeError):
        pyth.cat([x], 0.5)


def test_cat_errors_match_torch_types():
    torch = pytest.importorskip("torch")
    cases = [lambda m: m.cat([]),
             lambda m: m.cat([m.ones(2, 3), m.ones(2, 4)]),
             lambda m: m.cat([m.ones(2, 3), m.ones(2, 3)], 2),
             lambda m: m.cat([m.ones(2), m.tensor(1.0)]),
             lambda m: m.stack([]),
             lambda m: m.stack([m.ones(2, 3), m.ones(3, 2)]),
             lambda m: m.stack([m.ones(2)], 2)]
    for case in cases:
        with pytest.raises(Exception) as ours:
            case(pyth)
        with pytest.raises(Exception) as theirs:
            case(torch)
        assert ours.type is theirs.type, (ours.value, theirs.value)


@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_stack(name, layout):
    a, b = values((3, 4), name, 1), values((3, 4), name, 2)
    ta, tb = make(a, name, layout), make(b, name, layout)
    for d in range(-3, 3):
        same(pyth.stack([ta, tb, ta], d), np.stack([a, b, a], d), name)


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_stack_0dim_and_size0(name):
    s = [values((), name, k) for k in range(3)]
    same(pyth.stack([make(x, name) for x in s]), np.stack(s), name)
    z = values((0, 3), name)
    same(pyth.stack([make(z, name)] * 2, 1), np.stack([z] * 2, 1), name)


def test_stack_promotion_out_and_errors():
    torch = pytest.importorskip("torch")
    r = pyth.stack([pyth.tensor(1), pyth.tensor(2.0)])
    torch_same(r, torch.stack([torch.tensor(1), torch.tensor(2.0)]))
    out = pyth.empty(7, dtype=pyth.float64)
    assert pyth.stack([pyth.ones(2), pyth.zeros(2)], 1, out=out) is out
    same(out, np.stack([np.ones(2), np.zeros(2)], 1))
    with pytest.raises(RuntimeError, match=kw("non-empty")):
        pyth.stack([])
    with pytest.raises(RuntimeError, match=kw("equal size", r"\[2, 3\]", "entry 0",
                                              r"\[2, 4\]", "entry 1")):
        pyth.stack([pyth.ones(2, 3), pyth.ones(2, 4)])
    with pytest.raises(IndexError, match=kw("out of range")):
        pyth.stack([pyth.ones(2, 3)], 3)
    with pytest.raises(IndexError, match=kw("out of range")):
        pyth.stack([pyth.ones(2, 3)], -4)
    with pytest.raises(TypeError, match=kw("cast")):
        pyth.stack([pyth.ones(2)], out=pyth.empty(0, dtype=pyth.int64))


def test_hstack_vstack_dstack():
    for shapes in [[(3,), (2,)], [(2, 3), (2, 1)], [(), ()], [(2, 3, 4), (2, 1, 4)]]:
        arrs = [values(s, "int64", k) for k, s in enumerate(shapes)]
        same(pyth.hstack([make(a, "int64") for a in arrs]), np.hstack(arrs), "int64")
    for shapes in [[(3,), (3,)], [(2, 3), (1, 3)], [(), ()]]:
        arrs = [values(s, "float32", k) for k, s in enumerate(shapes)]
        same(pyth.vstack([make(a, "float32") for a in arrs]), np.vstack(arrs), "float32")
    for shapes in [[(3,), (3,)], [(2, 3), (2, 3)], [(), ()], [(2, 3, 1), (2, 3, 2)]]:
        arrs = [values(s, "float32", k) for k, s in enumerate(shapes)]
        same(pyth.dstack([make(a, "float32") for a in arrs]), np.dstack(arrs), "float32")
    for n, fn in [(1, np.atleast_1d), (2, np.atleast_2d), (3, np.atleast_3d)]:
        for s in [(), (3,), (2, 3), (2, 3, 4)]:
            a = values(s, "int16")
            t = make(a, "int16")
            got = getattr(pyth, f"atleast_{n}d")(t)
            same(got, fn(a), "int16")
            assert same_storage(got, t)


# --------------------------------------------------------------------------------------------
# split / chunk / unbind (views)
# --------------------------------------------------------------------------------------------

def sizes_of(pieces, d):
    return [p.size(d) for p in pieces]


@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_split_int_and_sections(name, layout):
    a = values((10, 4), name)
    t = make(a, name, layout)
    for size in (1, 3, 4, 10, 12):
        pieces = t.split(size)
        bounds = list(range(size, 10, size))
        expected = np.split(a, bounds, 0)
        assert len(pieces) == len(expected)
        for p, e in zip(pieces, expected):
            same(p, e, name)
            assert same_storage(p, t)
    pieces = pyth.split(t, [2, 0, 5, 3])
    for p, e in zip(pieces, np.split(a, [2, 2, 7], 0)):
        same(p, e, name)
    for p, e in zip(pyth.split(t, (1, 3), dim=-1), np.split(a, [1], 1)):
        same(p, e, name)
        assert same_storage(p, t)


def test_split_views_write_through():
    t = pyth.zeros(6, 2)
    a, b = t.split(3)
    b.fill_(7)
    same(t, np.concatenate([np.zeros((3, 2)), np.full((3, 2), 7)]))
    c, d = pyth.chunk(t, 2, 1)
    c.fill_(1)
    same(t[:, 0], np.ones(6))


def test_split_size0_and_errors():
    assert sizes_of(pyth.ones(0, 2).split(0), 0) == [0]
    assert sizes_of(pyth.ones(0, 2).split(3), 0) == [0]
    assert sizes_of(pyth.ones(0, 2).split([0, 0]), 0) == [0, 0]
    with pytest.raises(RuntimeError, match=kw("sum exactly to 10", r"\[3, 3\]")):
        pyth.ones(10).split([3, 3])
    with pytest.raises(RuntimeError, match=kw("non-negative", r"\[3, -1, 8\]")):
        pyth.ones(10).split([3, -1, 8])
    with pytest.raises(RuntimeError, match=kw("non-negative", "-1")):
        pyth.ones(10).split(-1)
    with pytest.raises(RuntimeError, match=kw("0", "dimension size of 10")):
        pyth.ones(10).split(0)
    with pytest.raises(IndexError, match=kw("out of range")):
        pyth.ones(10).split(3, dim=1)
    with pytest.raises(RuntimeError, match=kw("1-dimensional")):
        pyth.tensor(1.0).split(1)


def test_split_matches_torch():
    torch = pytest.importorskip("torch")
    for n in range(0, 9):
        for size in range(0 if n == 0 else 1, 10):
            ours = sizes_of(pyth.ones(n, 2).split(size), 0)
            theirs = [p.size(0) for p in torch.ones(n, 2).split(size)]
            assert ours == theirs, (n, size)


@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_chunk_values(name, layout):
    a = values((3, 10), name)
    t = make(a, name, layout)
    for chunks in (1, 3, 4, 6, 11):
        pieces = t.chunk(chunks, 1)
        size = -(-10 // chunks)
        expected = np.split(a, list(range(size, 10, size)), 1)
        assert len(pieces) == len(expected)
        for p, e in zip(pieces, expected):
            same(p, e, name)
            assert same_storage(p, t)


def test_chunk_sizes_match_torch():
    torch = pytest.importorskip("torch")
    for n in range(0, 13):
        for chunks in range(1, 8):
            ours = sizes_of(pyth.chunk(pyth.ones(2, n), chunks, -1), 1)
            theirs = [p.size(1) for p in torch.chunk(torch.ones(2, n), chunks, -1)]
            assert ours == theirs, (n, chunks, ours, theirs)


def test_chunk_errors():
    with pytest.raises(RuntimeError, match=kw("chunks", "greater than 0", "0")):
        pyth.ones(10).chunk(0)
    with pytest.raises(RuntimeError, match=kw("chunks", "greater than 0", "-1")):
        pyth.ones(10).chunk(-1)
    with pytest.raises(IndexError):
        pyth.ones(10).chunk(3, dim=1)
    with pytest.raises(RuntimeError, match=kw("1-dimensional")):
        pyth.tensor(1.0).chunk(1)
    with pytest.raises(TypeError):
        pyth.ones(10).chunk(2.5)


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_unbind(name):
    a = values((3, 4, 2), name)
    t = make(a, name, "transposed")
    for d in (0, 1, -1):
        pieces = pyth.unbind(t, d)
        assert len(pieces) == a.shape[d]
        for i, p in enumerate(pieces):
            same(p, np.take(a, i, d), name)
            assert same_storage(p, t)
    with pytest.raises(IndexError):
        pyth.tensor(1).unbind()


# --------------------------------------------------------------------------------------------
# flip / rot90 / roll
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_flip(name, layout):
    a = values((3, 4, 5), name)
    t = make(a, name, layout)
    for dims in [(0,), (1,), (2,), (-1,), (0, 1), (0, 2), (1, 2), (0, 1, 2), (-3, -1), ()]:
        r = pyth.flip(t, dims)
        same(r, np.flip(a, dims) if dims else a, name)
        assert not same_storage(r, t)
    same(t.flip(0, 2), np.flip(a, (0, 2)), name)
    same(t.flip([1]), np.flip(a, 1), name)
    same(pyth.fliplr(t), np.fliplr(a), name)
    same(pyth.flipud(t), np.flipud(a), name)


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_flip_size0_0dim_large(name):
    z = values((0, 3), name)
    same(pyth.flip(make(z, name), (0, 1)), z, name)
    s = values((), name)
    same(make(s, name).flip(0), s, name)
    same(make(s, name).flip([]), s, name)
    big = values((70, 90), name)             # large enough to tile / thread in the iterator
    for layout in ("contig", "transposed"):
        same(pyth.flip(make(big, name, layout), (0,)), big[::-1], name)
        same(pyth.flip(make(big, name, layout), (1,)), big[:, ::-1], name)
        same(pyth.flip(make(big, name, layout), (0, 1)), big[::-1, ::-1], name)


def test_flip_threaded_matches_numpy():
    a = np.arange(300 * 500, dtype=np.float32).reshape(300, 500)
    t = pyth.tensor(a)
    same(t.flip(1), a[:, ::-1])
    same(t.t().flip(0), a.T[::-1])


def test_flip_errors_and_torch():
    torch = pytest.importorskip("torch")
    t = pyth.arange(6).view(2, 3)
    with pytest.raises(RuntimeError, match=kw("dim 0", "multiple times")):
        t.flip(0, 0)
    with pytest.raises(RuntimeError, match=kw("multiple times")):
        t.flip(0, -2)
    with pytest.raises(IndexError, match=kw("out of range")):
        t.flip(2)
    with pytest.raises(RuntimeError, match=kw(">= 2")):
        pyth.fliplr(pyth.arange(3))
    with pytest.raises(RuntimeError, match=kw(">= 1")):
        pyth.flipud(pyth.tensor(1))
    x = torch.arange(24).view(2, 3, 4)
    torch_same(pyth.flip(pyth.arange(24).view(2, 3, 4), (0, 2)), torch.flip(x, (0, 2)))


@pytest.mark.parametrize("name", ["int64", "float16", "bool"])
def test_rot90(name):
    a = values((3, 4, 2), name)
    t = make(a, name, "stepped")
    for k in range(-5, 6):
        for dims in [(0, 1), (1, 0), (0, 2), (-1, 1)]:
            same(pyth.rot90(t, k, dims), np.rot90(a, k, dims), name)
    same(t.rot90(), np.rot90(a), name)
    with pytest.raises(RuntimeError, match=kw("rotation dims", "3")):
        pyth.rot90(t, 1, (0, 1, 2))
    with pytest.raises(RuntimeError, match=kw("different")):
        pyth.rot90(t, 1, (1, 1))
    with pytest.raises(RuntimeError, match=kw("total dims", "1")):
        pyth.rot90(pyth.arange(3))


@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_roll(name, layout):
    a = values((3, 4, 5), name)
    t = make(a, name, layout)
    cases = [(1, 0), (-1, 1), (7, 2), (-13, -1), (0, 0), (3, 1), ((1, 2), (0, 1)),
             ((2, -3, 4), (0, 1, 2)), ((1, 1), (1, 1)), ((5, -2), (2, 0))]
    for shifts, dims in cases:
        r = pyth.roll(t, shifts, dims)
        same(r, np.roll(a, shifts, dims), name)
        assert not same_storage(r, t)
    for shift in (0, 1, -4, 61):
        same(t.roll(shift), np.roll(a, shift), name)


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_roll_size0_0dim(name):
    z = values((0, 3), name)
    same(pyth.roll(make(z, name), 2, 1), np.roll(z, 2, 1), name)
    same(pyth.roll(make(z, name), 2), np.roll(z, 2), name)
    s = values((), name)
    same(make(s, name).roll(3), s, name)


def test_roll_errors_and_torch():
    torch = pytest.importorskip("torch")
    t = pyth.arange(6).view(2, 3)
    with pytest.raises(RuntimeError, match=kw("align", "shifts: 2", "dims:1")):
        t.roll((1, 2), 0)
    with pytest.raises(RuntimeError, match=kw("align")):
        t.roll((1, 2))
    with pytest.raises(RuntimeError, match=kw("shifts", "required")):
        t.roll((), ())
    with pytest.raises(IndexError, match=kw("out of range")):
        t.roll(1, 2)
    with pytest.raises(IndexError):
        pyth.tensor(5).roll(1, 0)
    x = torch.arange(6).view(2, 3)
    torch_same(t.roll((1, 2), (0, 1)), x.roll((1, 2), (0, 1)))
    torch_same(t.roll(-7, 1), x.roll(-7, 1))
    torch_same(t.roll(1), x.roll(1))
    torch_same(t.roll((1, 1), (1, 1)), x.roll((1, 1), (1, 1)))


# --------------------------------------------------------------------------------------------
# repeat / tile
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_repeat(name, layout):
    a = values((2, 3), name)
    t = make(a, name, layout)
    for reps in [(1, 1), (2, 1), (1, 3), (2, 3), (2, 1, 1), (3, 2, 2), (2, 0), (1, 1, 1, 2)]:
        r = t.repeat(*reps)
        same(r, np.tile(a, reps), name)
        assert not same_storage(r, t)
    same(t.repeat((2, 2)), np.tile(a, (2, 2)), name)
    same(t.repeat([1, 2]), np.tile(a, (1, 2)), name)
    same(t.repeat(pyth.Size([2, 1])), np.tile(a, (2, 1)), name)


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_repeat_0dim_size0_and_tile(name):
    s = values((), name)
    same(make(s, name).repeat(2, 3), np.tile(s, (2, 3)), name)
    same(make(s, name).repeat(()), s, name)
    z = values((0, 3), name)
    same(make(z, name).repeat(2, 2), np.tile(z, (2, 2)), name)
    a = values((2, 3), name)
    for reps in [(2,), (2, 2), (1, 2, 2), ()]:
        same(pyth.tile(make(a, name, "transposed"), reps), np.tile(a, reps), name)
    same(make(a, name).tile(2), np.tile(a, 2), name)
    same(make(a, name).tile(2, 1), np.tile(a, (2, 1)), name)


def test_repeat_errors_and_torch():
    torch = pytest.importorskip("torch")
    t = pyth.arange(6).view(2, 3)
    with pytest.raises(RuntimeError, match=kw("number of dimensions", "smaller")):
        t.repeat(2)
    with pytest.raises(RuntimeError, match=kw("negative dimension", "-1")):
        t.repeat(-1, 2)
    with pytest.raises(TypeError):
        t.repeat()
    with pytest.raises(TypeError):
        t.repeat(1.5, 2)
    x = torch.arange(6).view(2, 3)
    torch_same(t.repeat(2, 1, 2), x.repeat(2, 1, 2))
    torch_same(t.t().repeat(2, 2), x.t().repeat(2, 2))
    torch_same(pyth.tile(t, (2,)), torch.tile(x, (2,)))


# --------------------------------------------------------------------------------------------
# tril / triu
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_tril_triu(name, layout):
    for shape in [(4, 6), (6, 4), (2, 3, 5, 4)]:
        a = values(shape, name)
        t = make(a.copy(), name, layout)
        a = to_numpy_exact(t)                         # the expanded layout changes the values
        for k in range(-7, 8):
            same(pyth.tril(t, k), np.tril(a, k), name)
            same(t.triu(k), np.triu(a, k), name)
        same(t.tril(), np.tril(a), name)
        same(pyth.triu(t, diagonal=-1), np.triu(a, -1), name)
        assert not same_storage(t.tril(), t)


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_tril_triu_inplace_and_out(name):
    a = values((3, 5, 4), name)
    for op in ("tril", "triu"):
        for k in (-2, 0, 1, 10, -(2**62)):
            t = make(a, name, "stepped")
            r = getattr(t, op + "_")(k)
            assert r is t
            same(t, getattr(np, op)(a, k), name)
        out = pyth.empty(0, dtype=getattr(pyth, name))
        assert getattr(pyth, op)(make(a, name), 1, out=out) is out
        same(out, getattr(np, op)(a, 1), name)
        t = make(a, name)
        assert getattr(pyth, op)(t, -1, out=t) is t
        same(t, getattr(np, op)(a, -1), name)


def test_tril_size0_large_and_errors():
    for shape in [(0, 3), (3, 0), (2, 0, 3)]:
        z = np.zeros(shape, np.float32)
        same(pyth.tril(pyth.tensor(z), 1), np.tril(z, 1))
        same(pyth.triu(pyth.tensor(z)), np.triu(z))
    big = values((3, 200, 150), "float64")  # above the grain size: threaded rows
    same(pyth.tril(make(big, "float64", "transposed"), 5), np.tril(big, 5))
    same(pyth.triu(make(big, "float64"), -5), np.triu(big, -5))
    with pytest.raises(RuntimeError, match=kw("tril", "at least 2 dimensions")):
        pyth.ones(3).tril()
    with pytest.raises(RuntimeError, match=kw("triu", "at least 2 dimensions")):
        pyth.tensor(1.0).triu()
    with pytest.raises(RuntimeError, match=kw("dtype", "int64", "float32")):
        pyth.tril(pyth.ones(2, 2, dtype=pyth.int64), out=pyth.empty(0))
    with pytest.raises(RuntimeError):                  # elements share memory
        pyth.ones(1, 3).expand(2, 3).triu_()


def test_tril_triu_torch():
    torch = pytest.importorskip("torch")
    x = torch.arange(60).view(3, 4, 5)
    t = pyth.arange(60).view(3, 4, 5)
    for k in range(-5, 6):
        torch_same(t.tril(k), x.tril(k))
        torch_same(pyth.triu(t.transpose(1, 2), k), torch.triu(x.transpose(1, 2), k))
    b = torch.ones(2, 3, dtype=torch.bool)
    torch_same(pyth.ones(2, 3, dtype=pyth.bool).triu(1), b.triu(1))


# --------------------------------------------------------------------------------------------
# diag / diagonal
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_diag(name, layout):
    v = values((4,), name)
    tv = make(v, name, layout)
    m = values((4, 6), name, 1)
    tm = make(m.copy(), name, layout)
    m = to_numpy_exact(tm)
    for k in range(-7, 8):
        same(pyth.diag(tv, k), np.diag(v if layout != "expanded" else to_numpy_exact(tv), k), name)
        r = tm.diag(k)
        same(r, np.diag(m, k), name)
        assert not same_storage(r, tm)
    z = values((0,), name)
    same(pyth.diag(make(z, name), 2), np.diag(z, 2), name)


def test_diag_out_errors_torch():
    torch = pytest.importorskip("torch")
    v = pyth.arange(3)
    out = pyth.empty(0, dtype=pyth.int64)
    assert pyth.diag(v, 1, out=out) is out
    same(out, np.diag(np.arange(3), 1))
    out = pyth.full((5,), 9, dtype=pyth.int64)
    pyth.diag(pyth.arange(6).view(2, 3), out=out)
    same(out, [0, 4])
    with pytest.raises(RuntimeError, match=kw("dtype")):
        pyth.diag(v, out=pyth.empty(0))
    with pytest.raises(RuntimeError, match=kw("1D or 2D", "0D")):
        pyth.diag(pyth.tensor(1.0))
    with pytest.raises(RuntimeError, match=kw("1D or 2D", "3D")):
        pyth.diag(pyth.ones(2, 2, 2))
    torch_same(pyth.diag(v, -2), torch.diag(torch.arange(3), -2))
    torch_same(v.diag(diagonal=1), torch.arange(3).diag(diagonal=1))
    a = pyth.arange(6).view(2, 3)
    for k in (-3, -1, 0, 1, 2, 5):
        torch_same(pyth.diag(a, k), torch.diag(torch.arange(6).view(2, 3), k))


@pytest.mark.parametrize("name", ["int32", "bfloat16", "bool"])
def test_diagonal_view(name):
    a = values((3, 4, 5), name)
    t = make(a, name, "transposed")
    for offset in range(-6, 7):
        for d1, d2 in [(0, 1), (1, 0), (0, 2), (2, 1), (-1, 0)]:
            r = pyth.diagonal(t, offset, d1, d2)
            same(r, np.diagonal(a, offset, d1, d2), name)
            assert same_storage(r, t)
    same(t.diagonal(offset=1, dim1=1, dim2=2), np.diagonal(a, 1, 1, 2), name)


def test_diagonal_errors_and_torch():
    torch = pytest.importorskip("torch")
    a = pyth.arange(6).view(2, 3)
    with pytest.raises(RuntimeError, match=kw("same|identical")):
        pyth.diagonal(a, 0, 0, 0)
    with pytest.raises(IndexError):
        pyth.diagonal(a, 0, 0, 2)
    with pytest.raises(IndexError):
        pyth.diagonal(pyth.ones(3))
    x = torch.arange(24).view(2, 3, 4)
    t = pyth.arange(24).view(2, 3, 4)
    for args in [(0, -1, 0), (1, 1, 2), (-2, 2, 0), (10, 0, 1)]:
        torch_same(pyth.diagonal(t, *args), torch.diagonal(x, *args))
        got, exp = pyth.diagonal(t, *args), torch.diagonal(x, *args)
        if got.numel():
            assert got.stride() == exp.stride()
            assert got.storage_offset() == exp.storage_offset()
    d = a.diagonal()
    d.fill_(-1)                                      # a view: writes reach a
    same(a, [[-1, 1, 2], [3, -1, 5]])


# --------------------------------------------------------------------------------------------
# meshgrid
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("indexing", ["ij", "xy"])
def test_meshgrid(name, indexing):
    xs = [values((3,), name, 1), values((2,), name, 2), values((4,), name, 3)]
    ts = [make(xs[0], name), make(xs[1], name, "stepped"), make(xs[2], name, "transposed")]
    for n in (1, 2, 3):
        got = pyth.meshgrid(*ts[:n], indexing=indexing)
        exp = np.meshgrid(*xs[:n], indexing=indexing)
        assert len(got) == n
        for g, e, t in zip(got, exp, ts):
            same(g, e, name)
            assert same_storage(g, t)
        got = pyth.meshgrid(ts[:n], indexing=indexing)         # one list argument
        for g, e in zip(got, exp):
            same(g, e, name)


def test_meshgrid_0dim_size0_default_errors_torch():
    torch = pytest.importorskip("torch")
    x, s, z = pyth.arange(3), pyth.tensor(7), pyth.arange(0)
    g = pyth.meshgrid(s, x, indexing="ij")
    same(g[0], [[7, 7, 7]])
    same(g[1], [[0, 1, 2]])
    assert [tuple(t.shape) for t in pyth.meshgrid(x, z, indexing="xy")] == [(0, 3), (0, 3)]
    assert [tuple(t.shape) for t in pyth.meshgrid(x, z)] == [(3, 0), (3, 0)]   # default 'ij'
    with pytest.raises(RuntimeError, match=kw("same dtype")):
        pyth.meshgrid(x, x.float())
    with pytest.raises(RuntimeError, match=kw("0D or 1D")):
        pyth.meshgrid(pyth.ones(2, 2, dtype=pyth.int64), x)
    with pytest.raises(RuntimeError, match=kw("non-empty")):
        pyth.meshgrid()
    with pytest.raises(RuntimeError, match=kw("indexing", "foo")):
        pyth.meshgrid(x, x, indexing="foo")
    tx, ty = torch.arange(3), torch.arange(2)
    for ours, theirs in zip(pyth.meshgrid(x, pyth.arange(2), indexing="xy"),
                            torch.meshgrid(tx, ty, indexing="xy")):
        torch_same(ours, theirs)
        assert ours.stride() == theirs.stride()


# --------------------------------------------------------------------------------------------
# methods, aliases, functions from one table
# --------------------------------------------------------------------------------------------

def test_function_and_method_forms_agree():
    t = pyth.arange(12).view(3, 4)
    pairs = [("split", (2,)), ("chunk", (2, 1)), ("unbind", (1,)), ("flip", ((0,),)),
             ("roll", (1, 0)), ("tril", (1,)), ("triu", (-1,)), ("diag", (1,)),
             ("fliplr", ()), ("flipud", ()), ("rot90", (1, (0, 1))), ("tile", ((2,),))]
    for name, args in pairs:
        f, m = getattr(pyth, name)(t, *args), getattr(t, name)(*args)
        if isinstance(f, tuple):
            assert len(f) == len(m)
            for x, y in zip(f, m):
                same(x, to_numpy_exact(y))
        else:
            same(f, to_numpy_exact(m))


# --------------------------------------------------------------------------------------------
# arange / linspace / logspace with float steps and int dtypes (pyth/_prims/creation.py)
# --------------------------------------------------------------------------------------------

ARANGE_CASES = [(0, 1, 0.1), (1, 1.3, 0.1), (1, 0, -0.1), (0, -1, -0.3), (0.5,), (10,),
                (0, 10, 3), (10, 0, -3), (-5, 5, 2.5), (0, 1, 1 / 3), (0, 0.3, 0.1),
                (1e-7, 1, 0.05), (0, 1000, 0.1), (-3.3, 1000.7, 0.37), (0, 0), (2, 2, -1),
                (0, 10.0, 1), (0, 2.5, 0.5), (0, 2.5, 1.9), (2.5, 0, -0.5), (-0.5, 0.5, 0.3),
                (-2.9, 2.9, 2), (0.5, 0.9, 1.0), (0, 300, 100), (0.5, 2.9, 1.0), (2.9,)]


def _torch_dtype(name):
    torch = pytest.importorskip("torch")
    return None if name is None else getattr(torch, name)


def _compare_factory(fn, args, name, ulps=1):
    """pyth.fn(*args, dtype) against torch: same outcome (exception type or dtype, length,
    values; floats within `ulps` units in the last place, as torch's SIMD lanes round)."""
    torch = pytest.importorskip("torch")
    kw_p = {} if name is None else {"dtype": getattr(pyth, name)}
    kw_t = {} if name is None else {"dtype": _torch_dtype(name)}
    try:
        expected = getattr(torch, fn)(*args, **kw_t)
    except Exception as e:                                  # noqa: BLE001
        with pytest.raises(type(e)):
            getattr(pyth, fn)(*args, **kw_p)
        return
    got = getattr(pyth, fn)(*args, **kw_p)
    assert got.dtype.name == str(expected.dtype).replace("torch.", ""), (fn, args, name)
    assert tuple(got.shape) == tuple(expected.shape), (fn, args, name, got.shape, expected.shape)
    exp = (expected.float() if expected.dtype == torch.bfloat16 else expected).numpy()
    if got.dtype.is_floating_point:
        # absolute: torch adds step multiples in the dtype within a SIMD vector, so its error
        # scales with the largest value of the range, not with each element
        eps = {"float16": 2.0**-10, "bfloat16": 2.0**-7, "float32": 2.0**-23,
               "float64": 2.0**-52}[got.dtype.name]
        g, x = to_numpy_exact(got).astype(np.float64), exp.astype(np.float64)
        np.testing.assert_array_equal(np.isfinite(g), np.isfinite(x))
        fin = np.isfinite(x)
        np.testing.assert_array_equal(g[~fin], x[~fin])           # inf and nan where torch's
        scale = float(np.max(np.abs(x[fin]), initial=0.0))
        assert np.all(np.abs(g[fin] - x[fin]) <= ulps * eps * scale), (fn, args, name, g, x)
    else:
        np.testing.assert_array_equal(to_numpy_exact(got), exp, err_msg=f"{fn}{args} {name}")


@pytest.mark.parametrize("name", [None] + DTYPE_NAMES)
def test_arange_matches_torch(name):
    for args in ARANGE_CASES:
        _compare_factory("arange", args, name)


def test_arange_counts_and_errors():
    torch = pytest.importorskip("torch")
    for args in ARANGE_CASES:
        assert pyth.arange(*args).numel() == torch.arange(*args).numel(), args
    assert pyth.arange(1, 1.3, 0.1).numel() == 4             # ceil(3.0000000000000004)
    np.testing.assert_allclose(to_numpy_exact(pyth.arange(0, 1, 0.1, dtype=pyth.float64)),
                               np.arange(10) * 0.1)
    with pytest.raises(RuntimeError, match=kw("step", "nonzero")):
        pyth.arange(0, 1, 0)
    with pytest.raises(RuntimeError, match=kw("inconsistent", "step sign")):
        pyth.arange(1, 0)
    with pytest.raises(RuntimeError, match=kw("unsupported range")):
        pyth.arange(0, float("inf"))
    with pytest.raises(NotImplementedError, match=kw("Bool")):
        pyth.arange(3, dtype=pyth.bool)
    assert pyth.arange(True).tolist() == [0]


LINSPACE_CASES = [(0, 1, 0), (0, 1, 1), (3, -1, 1), (0, 1, 2), (0, 1, 5), (-3, 7, 11),
                  (1, 0, 7), (0.1, 0.9, 9), (0, 10, 7), (5, 5, 3), (2.7, 7.9, 3),
                  (-2.7, 7.9, 4), (0, 2**40, 5), (300, 7, 3), (0, 1000, 5), (0, 1, 1000)]


@pytest.mark.parametrize("name", [None] + DTYPE_NAMES)
def test_linspace_matches_torch(name):
    for args in LINSPACE_CASES:
        _compare_factory("linspace", args, name, ulps=2)


LOGSPACE_CASES = [(0, 1, 0), (0, 1, 1), (3, -1, 1), (0, 2, 3), (0, 1, 5), (-3, 3, 7),
                  (1, 0, 7), (0, 3, 4, 2), (0, 3, 4, 2.5), (0, 4, 5, -2.0), (0.5, 2.5, 3),
                  (0.5, 2.5, 3, 2), (0, 10, 3, 2), (0, 70, 3, 2)]


@pytest.mark.parametrize("name", [None] + DTYPE_NAMES)
def test_logspace_matches_torch(name):
    for args in LOGSPACE_CASES:
        _compare_factory("logspace", args, name, ulps=4)


def test_linspace_errors():
    with pytest.raises(RuntimeError, match=kw("non-negative")):
        pyth.linspace(0, 1, -1)
    with pytest.raises(TypeError):
        pyth.linspace(0, 1, 2.0)
    with pytest.raises(NotImplementedError):
        pyth.linspace(0, 1, 3, dtype=pyth.bool)
    same(pyth.linspace(0, 1, 0), np.linspace(0, 1, 0))
    same(pyth.linspace(3, -1, 1), np.linspace(3, -1, 1))
    np.testing.assert_allclose(to_numpy_exact(pyth.linspace(-1, 2, 7, dtype=pyth.float64)),
                               np.linspace(-1, 2, 7))
    np.testing.assert_allclose(to_numpy_exact(pyth.logspace(-1, 2, 7, dtype=pyth.float64)),
                               np.logspace(-1, 2, 7))


@pytest.mark.parametrize("method", ["size", "stride"])
def test_size_and_stride_of_one_dim(method):
    """size(d) / stride(d): negative dims count from the end; a 0-dim tensor has no dim at all
    (not even 0 or -1, as PyTorch), and out-of-range dims raise IndexError naming the dim."""
    t = pyth.zeros(2, 3, 4)[:, ::2]
    assert [getattr(t, method)(d) for d in (0, 1, 2, -1, -3)] == \
        [getattr(t, method)()[d] for d in (0, 1, 2, -1, -3)]
    for bad in (3, -4):
        with pytest.raises(IndexError, match=f"dim {bad} is out of range"):
            getattr(t, method)(bad)
    for d in (0, -1, 1):
        with pytest.raises(IndexError, match=f"specified as {d} but tensor has no dimensions"):
            getattr(pyth.tensor(1.0), method)(d)
    torch = pytest.importorskip("torch")
    for d in (0, -1):
        with pytest.raises(IndexError):
            getattr(torch.tensor(1.0), method)(d)


def test_cat_array_c_api_checks_its_parts():
    """THTensor_(catArray) through the C API: parts that do not fit the result (other dims,
    other sizes, too long, a missing part) give an error, not a write out of bounds."""
    from pyth._th import ffi, lib
    from pyth._errors import check
    r = pyth.zeros(4, 3)
    a, b = pyth.ones(2, 3), pyth.full((2, 3), 2.0)
    check(lib.THFloatTensor_catArray(r._h, [a._h, b._h], 2, 0, 0))
    assert r.tolist() == [[1.0] * 3] * 2 + [[2.0] * 3] * 2
    s = pyth.zeros(2, 2, 3)
    check(lib.THFloatTensor_catArray(s._h, [a._h, b._h], 2, 1, 1))
    assert s[:, 1].tolist() == [[2.0] * 3] * 2 and s[:, 0].tolist() == [[1.0] * 3] * 2
    for parts, dim, stack in (([pyth.ones(2, 4)._h], 0, 0), ([pyth.ones(6)._h], 0, 0),
                              ([a._h, b._h, a._h], 0, 0), ([ffi.NULL], 0, 0),
                              ([a._h], 2, 0), ([pyth.ones(2, 2)._h], 1, 1),
                              ([a._h, a._h, a._h], 1, 1)):
        with pytest.raises(RuntimeError, match=r"(cat|stack)\(\)"):
            check(lib.THFloatTensor_catArray(r._h if not stack else s._h, parts, len(parts),
                                             dim, stack))

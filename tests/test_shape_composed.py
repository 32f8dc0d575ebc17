"""Devices, Size, creation helpers and shape ops against PyTorch (every dtype,
transposed / stepped / expanded / zero-size inputs)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import pyth
from _support import (DTYPE_NAMES, assert_same, check_call, layouts, make_pair, sample,
                      torch_or_skip)


# ---- device ----

def test_device_object():
    d = pyth.device("cpu")
    assert d.type == "cpu" and d.index is None
    assert d == "cpu" and d == pyth.device("cpu") and d != "cpu:1"
    assert pyth.device("cpu:0").index == 0 and pyth.device("cpu", 0) == "cpu:0"
    assert repr(d) == "device(type='cpu')" and str(pyth.device("cpu", 1)) == "cpu:1"
    assert pickle.loads(pickle.dumps(d)) == d and hash(d) == hash(pyth.device("cpu"))
    assert pyth.device(d) == d
    with pytest.raises(RuntimeError, match="foo"):
        pyth.device("foo")
    with pytest.raises(TypeError):
        pyth.device(1.5)
    assert pyth.device("cuda:1").type == "cuda"  # a name may be spelled, not used


def test_tensor_device_surface():
    t = pyth.ones(2, 3)
    assert t.device == pyth.device("cpu") and t.device.type == "cpu"
    assert t.is_cuda is False and t.cpu() is t and t.to("cpu") is t
    assert t.to(pyth.device("cpu")) is t and t.to(device="cpu") is t
    assert t.to("cpu", pyth.float64).dtype is pyth.float64
    assert t.to(device="cpu", dtype=pyth.int32).dtype is pyth.int32
    with pytest.raises(AssertionError, match="not compiled with CUDA enabled"):
        t.cuda()
    for bad in ("cuda", "cuda:0", "mps", pyth.device("meta")):
        error = AssertionError if "cuda" in str(bad) else RuntimeError
        with pytest.raises(error, match="CUDA|mps|meta"):
            t.to(bad)
        with pytest.raises(error):
            t.to(device=bad)


FACTORY_CALLS = {
    "zeros": lambda m, **k: m.zeros(2, 3, **k), "ones": lambda m, **k: m.ones((2, 3), **k),
    "empty": lambda m, **k: m.empty(2, **k), "full": lambda m, **k: m.full((2,), 7, **k),
    "arange": lambda m, **k: m.arange(5, **k), "linspace": lambda m, **k: m.linspace(0, 1, 5, **k),
    "logspace": lambda m, **k: m.logspace(0, 1, 5, **k), "eye": lambda m, **k: m.eye(3, **k),
    "tensor": lambda m, **k: m.tensor([1, 2], **k), "as_tensor": lambda m, **k: m.as_tensor([1, 2], **k),
    "zeros_like": lambda m, **k: m.zeros_like(m.ones(2), **k),
    "ones_like": lambda m, **k: m.ones_like(m.ones(2), **k),
    "full_like": lambda m, **k: m.full_like(m.ones(2), 3, **k),
    "empty_like": lambda m, **k: m.empty_like(m.ones(2), **k),
    "rand": lambda m, **k: m.rand(2, **k), "randn": lambda m, **k: m.randn(2, **k),
    "rand_like": lambda m, **k: m.rand_like(m.ones(2), **k),
    "randint_like": lambda m, **k: m.randint_like(m.ones(2), 5, **k),
    "randint": lambda m, **k: m.randint(0, 5, (2,), **k), "randperm": lambda m, **k: m.randperm(4, **k),
    "tril_indices": lambda m, **k: m.tril_indices(3, 3, **k),
    "triu_indices": lambda m, **k: m.triu_indices(3, 3, **k),
}


@pytest.mark.parametrize("name", sorted(FACTORY_CALLS))
def test_factories_validate_device(name):
    make = FACTORY_CALLS[name]
    for ok in ("cpu", "cpu:0", pyth.device("cpu"), None):
        assert make(pyth, device=ok).device == "cpu"
    for bad in ("cuda", "cuda:0", "meta"):
        with pytest.raises(AssertionError if "cuda" in bad else RuntimeError):
            make(pyth, device=bad)


def test_factories_out_and_keywords():
    torch = torch_or_skip()
    out = pyth.empty(0, dtype=pyth.int32)
    r = pyth.zeros(2, 3, out=out)
    assert r is out and out.shape == (2, 3) and out.dtype is pyth.int32
    assert pyth.arange(4, out=pyth.empty(0)).tolist() == torch.arange(4, out=torch.empty(0)).tolist()
    with pytest.raises(TypeError):
        pyth.zeros(2, bogus=1)
    with pytest.raises(RuntimeError):
        pyth.zeros(2, dtype=pyth.int64, pin_memory=True)
    with pytest.raises(RuntimeError):
        pyth.zeros(2, layout="sparse_coo")
    assert pyth.zeros(2, layout=pyth.strided, requires_grad=False).shape == (2,)


def test_tensor_from_iterables_and_as_tensor():
    torch = torch_or_skip()
    for data in (range(4), [range(2), range(2)], (x * 0.5 for x in range(3)), (1, 2.5),
                 [[True, False]]):
        d2 = list(data) if not isinstance(data, (range, list, tuple)) else data
        assert_same(pyth.tensor(d2), torch.tensor(d2))
    a = np.arange(6.0).reshape(2, 3)
    t = pyth.as_tensor(a)
    a[0, 0] = 42
    assert t[0, 0].item() == 42  # shares memory
    p = pyth.ones(3)
    assert pyth.as_tensor(p) is p and pyth.as_tensor(p, dtype=pyth.int64).dtype is pyth.int64
    assert pyth.asarray([1, 2]).dtype is pyth.int64


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_new_methods_and_type_as(name):
    torch = torch_or_skip()
    p, t = make_pair(sample((2, 3), name), name)
    check_call(lambda: p.new_zeros(2, 3), lambda: t.new_zeros(2, 3))
    check_call(lambda: p.new_ones((4,)), lambda: t.new_ones((4,)))
    check_call(lambda: p.new_full((2,), 1), lambda: t.new_full((2,), 1))
    assert p.new_empty(5).dtype is p.dtype and p.new_empty((2, 2)).shape == (2, 2)
    check_call(lambda: p.new_tensor([1, 0]), lambda: t.new_tensor([1, 0]))
    check_call(lambda: p.new_zeros(2, dtype=pyth.float64), lambda: t.new_zeros(2, dtype=torch.float64))
    q, u = make_pair(sample((2,), "float64"), "float64")
    check_call(lambda: p.type_as(q), lambda: t.type_as(u))


def test_tril_triu_indices():
    torch = torch_or_skip()
    for r, c, off in ((3, 3, 0), (4, 2, 1), (2, 5, -1), (0, 3, 0), (3, 3, -5), (3, 3, 10)):
        assert_same(pyth.tril_indices(r, c, off), torch.tril_indices(r, c, off))
        assert_same(pyth.triu_indices(r, c, off), torch.triu_indices(r, c, off))
    assert_same(pyth.tril_indices(3, 3, dtype=pyth.int32), torch.tril_indices(3, 3, dtype=torch.int32))
    with pytest.raises(RuntimeError):
        pyth.tril_indices(3, 3, dtype=pyth.float32)


# ---- Size ----

def test_size_operations():
    s = pyth.ones(2, 3, 4).shape
    assert isinstance(s[1:], pyth.Size) and s[1:] == (3, 4) and s[::-1] == (4, 3, 2)
    assert isinstance(s[0], int)
    for r in (s + (5,), (1,) + s, s * 2, 2 * s, s + pyth.Size([7])):
        assert isinstance(r, pyth.Size)
    assert s + (5,) == (2, 3, 4, 5) and (1,) + s == (1, 2, 3, 4) and s * 2 == (2, 3, 4) * 2
    assert s.numel() == 24 and pyth.Size([]).numel() == 1 and pyth.Size([3, 0]).numel() == 0
    with pytest.raises(TypeError):
        s + [1]
    assert pickle.loads(pickle.dumps(s)) == s and type(pickle.loads(pickle.dumps(s))) is pyth.Size


# ---- module-level forms and shape ops ----

SHAPE_OPS = {
    "reshape": lambda m, x: m.reshape(x, (-1,)),
    "permute": lambda m, x: m.permute(x, (1, 0)),
    "transpose": lambda m, x: m.transpose(x, 0, 1),
    "swapaxes": lambda m, x: m.swapaxes(x, 0, 1),
    "swapdims": lambda m, x: m.swapdims(x, 1, 0),
    "unsqueeze": lambda m, x: m.unsqueeze(x, -1),
    "flatten": lambda m, x: m.flatten(x),
    "narrow": lambda m, x: m.narrow(x, 1, 1, 2),
    "select": lambda m, x: m.select(x, 1, 0),
    "t": lambda m, x: m.t(x),
    "numel": lambda m, x: m.numel(x),
    "is_floating_point": lambda m, x: m.is_floating_point(x),
    "is_tensor": lambda m, x: m.is_tensor(x),
    "ravel": lambda m, x: m.ravel(x),
    "mT": lambda m, x: x.mT, "mH": lambda m, x: x.mH,
    "adjoint": lambda m, x: m.adjoint(x),
    "unflatten": lambda m, x: m.unflatten(x, 1, (2, -1)),
    "unflatten_m": lambda m, x: x.unflatten(0, (1, 4)),
    "movedim": lambda m, x: m.movedim(x.unsqueeze(0), 0, -1),
    "movedim2": lambda m, x: m.movedim(x.unsqueeze(0), (0, 1), (2, 0)),
    "moveaxis": lambda m, x: m.moveaxis(x, 1, 0),
    "squeeze_tuple": lambda m, x: m.squeeze(x.unsqueeze(0).unsqueeze(-1), (0, -1)),
    "squeeze_tuple_m": lambda m, x: x.unsqueeze(1).squeeze((1, 0)),
    "flip_dims": lambda m, x: x.flip(dims=(0,)),
    "flip_fn": lambda m, x: m.flip(x, dims=[1]),
    "tensor_split3": lambda m, x: m.tensor_split(x, 3, dim=1),
    "tensor_split_idx": lambda m, x: m.tensor_split(x, [1, 4], dim=1),
    "tensor_split_neg": lambda m, x: x.tensor_split((-1, 10), 0),
    "hsplit": lambda m, x: m.hsplit(x, 2),
    "hsplit_idx": lambda m, x: m.hsplit(x, [1]),
    "vsplit": lambda m, x: m.vsplit(x, 2),
    "dsplit": lambda m, x: m.dsplit(x.unsqueeze(-1).expand(4, 6, 2), 2),
    "column_stack": lambda m, x: m.column_stack((x[0], x[1], x[:, :2].t())),
    "row_stack": lambda m, x: m.row_stack((x, x[0])),
    "hstack": lambda m, x: m.hstack((x, x)), "vstack": lambda m, x: m.vstack((x, x[0])),
    "dstack": lambda m, x: m.dstack((x, x)),
    "broadcast_to": lambda m, x: m.broadcast_to(x[0], (3, 6)),
    "broadcast_tensors": lambda m, x: m.broadcast_tensors(x[:1], x[:, :1]),
    "repeat_interleave": lambda m, x: m.repeat_interleave(x, 2),
    "repeat_interleave_dim": lambda m, x: m.repeat_interleave(x, 2, dim=0),
    "repeat_interleave_t": lambda m, x: x.repeat_interleave(m.tensor([1, 0, 2, 1]), dim=0),
    "cartesian_prod": lambda m, x: m.cartesian_prod(x[0], x[1, :2]),
    "cartesian_prod3": lambda m, x: m.cartesian_prod(x[0, :2], x[1, :2], x[2, :3]),
}


@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("op", sorted(SHAPE_OPS))
def test_shape_ops_against_torch(op, name):
    torch = torch_or_skip()
    fn = SHAPE_OPS[op]
    p, t = make_pair(sample((4, 6), name, (op,)), name)
    for label, pv, tv in layouts(p, t):
        check_call(lambda: fn(pyth, pv), lambda: fn(torch, tv))


@pytest.mark.parametrize("op", ["movedim", "unflatten", "tensor_split3", "squeeze_tuple",
                                "broadcast_tensors", "flatten", "ravel", "hsplit"])
def test_shape_ops_zero_size(op):
    torch = torch_or_skip()
    p, t = pyth.zeros(4, 0), torch.zeros(4, 0)
    fn = SHAPE_OPS[op]
    check_call(lambda: fn(pyth, p), lambda: fn(torch, t))


def test_shape_errors():
    torch = torch_or_skip()
    p, t = pyth.ones(4, 6), torch.ones(4, 6)
    for fp, ft in [
        (lambda: pyth.unflatten(p, 1, (4, 2)), lambda: torch.unflatten(t, 1, (4, 2))),
        (lambda: pyth.movedim(p, (0, 1), 0), lambda: torch.movedim(t, (0, 1), 0)),
        (lambda: pyth.movedim(p, 5, 0), lambda: torch.movedim(t, 5, 0)),
        (lambda: pyth.hsplit(p, 4), lambda: torch.hsplit(t, 4)),
        (lambda: pyth.vsplit(p[0], 2), lambda: torch.vsplit(t[0], 2)),
        (lambda: pyth.tensor_split(p, 0), lambda: torch.tensor_split(t, 0)),
        (lambda: pyth.broadcast_shapes((2, 3), (4, 3)), lambda: torch.broadcast_shapes((2, 3), (4, 3))),
        (lambda: pyth.broadcast_to(p, (3, 6)), lambda: torch.broadcast_to(t, (3, 6))),
        (lambda: pyth.repeat_interleave(p, pyth.tensor([1, 2])),
         lambda: torch.repeat_interleave(t, torch.tensor([1, 2]))),
        (lambda: pyth.ones(3).mT, lambda: torch.ones(3).mT),
    ]:
        check_call(fp, ft)
    assert pyth.broadcast_shapes((2, 1), (3,), 1) == torch.broadcast_shapes((2, 1), (3,), 1)
    assert isinstance(pyth.broadcast_shapes((2, 1)), pyth.Size)


def test_views_share_storage():
    p = pyth.arange(24).reshape(2, 3, 4)
    for v in (pyth.movedim(p, 0, -1), pyth.unflatten(p, 2, (2, 2)), p.mT, pyth.squeeze(p, 0),
              pyth.broadcast_to(p, (2, 2, 3, 4)), pyth.tensor_split(p, 2, 2)[1]):
        assert v.storage().data_ptr() == p.storage().data_ptr()
    assert pyth.ravel(p.mT).is_contiguous()

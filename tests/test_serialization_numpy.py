"""numpy arrays and scalars in checkpoints: pyth.save writes them, pyth.load reads them under
PyTorch's weights-only rules (refused unless their globals are allowed, loaded with
weights_only=False), from pyth's format and from torch.save's, and load takes torch.load's
arguments."""

from __future__ import annotations

import io
import pickle

import numpy as np
import pytest
from numpy._core.multiarray import _reconstruct, scalar

import pyth

ARRAYS = [np.arange(6, dtype=np.int64).reshape(2, 3), np.array([True, False]),
          np.linspace(0, 1, 5, dtype=np.float32), np.zeros((0, 3)), np.array(7, dtype=np.int8),
          np.asfortranarray(np.arange(6.0).reshape(2, 3)), np.arange(10, dtype=">i4")[::3],
          np.array([1 + 2j]), np.array([2**64 - 1], dtype=np.uint64)]
SCALARS = [np.float64(2.5), np.int32(-4), np.bool_(True), np.float32(np.nan), np.uint8(255)]


def _globals_for(objs: list) -> list:
    out = [_reconstruct, scalar, np.ndarray, np.dtype]
    for a in objs:
        out.append(type(a.dtype))
        out.append(type(a.dtype.newbyteorder("=")))
    return out


def _same(a: object, b: object) -> None:
    assert type(a) is type(b)
    assert a.dtype == b.dtype and np.shape(a) == np.shape(b)
    np.testing.assert_array_equal(a, b)


def _saved(save: object, obj: object) -> io.BytesIO:
    buf = io.BytesIO()
    save(obj, buf)
    buf.seek(0)
    return buf


@pytest.mark.parametrize("writer", ["pyth", "torch"])
def test_numpy_objects_round_trip_with_weights_only_false(writer: str) -> None:
    save = pyth.save if writer == "pyth" else pytest.importorskip("torch").save
    obj = {"arrays": ARRAYS, "scalars": tuple(SCALARS), "nested": {"x": [ARRAYS[0]]}}
    out = pyth.load(_saved(save, obj), weights_only=False)
    for a, b in zip(ARRAYS, out["arrays"]):
        _same(a, b)
    for a, b in zip(SCALARS, out["scalars"]):
        _same(a, b)
    _same(ARRAYS[0], out["nested"]["x"][0])
    assert out["arrays"][0].flags.writeable and out["arrays"][0].flags.owndata


@pytest.mark.parametrize("writer", ["pyth", "torch"])
@pytest.mark.parametrize("obj, first", [(np.arange(3), "numpy._core.multiarray._reconstruct"),
                                        (np.float64(1.5), "numpy._core.multiarray.scalar")])
def test_weights_only_refuses_numpy_as_pytorch_does(writer: str, obj: object, first: str) -> None:
    torch = pytest.importorskip("torch")
    save = pyth.save if writer == "pyth" else torch.save
    with pytest.raises(pickle.UnpicklingError) as ours:
        pyth.load(_saved(save, {"a": obj}))
    with pytest.raises(pickle.UnpicklingError) as theirs:
        torch.load(_saved(torch.save, {"a": obj}))
    expected = f"Unsupported global: GLOBAL {first} was not an allowed global by default."
    assert expected in str(ours.value) and expected in str(theirs.value)
    assert "weights_only=False" in str(ours.value)
    assert isinstance(ours.value, RuntimeError)   # as every refused checkpoint in pyth


@pytest.mark.parametrize("writer", ["pyth", "torch"])
def test_the_allow_list_names_each_missing_global_in_pytorchs_order(writer: str) -> None:
    torch = pytest.importorskip("torch")
    save = pyth.save if writer == "pyth" else torch.save
    a = np.arange(3)
    steps = [_reconstruct, np.ndarray, np.dtype, type(a.dtype)]
    for k in range(len(steps)):
        with pyth.serialization.safe_globals(steps[:k]), pytest.raises(pickle.UnpicklingError) as e:
            pyth.load(_saved(save, a))
        with torch.serialization.safe_globals(steps[:k]), \
                pytest.raises(pickle.UnpicklingError) as te:
            torch.load(_saved(torch.save, a))
        name = f"{steps[k].__module__}.{steps[k].__qualname__}"
        why = (f"GLOBAL {name} was not an allowed global" if k < 3 else
               f"Can only build Tensor, Parameter, OrderedDict or types allowlisted via "
               f"`add_safe_globals`, but got {steps[k]!r}")
        assert why in str(e.value) and why in str(te.value)
    with pyth.serialization.safe_globals(steps):
        _same(a, pyth.load(_saved(save, a)))
    assert pyth.serialization.get_safe_globals() == []


def test_add_safe_globals_lasts_until_cleared() -> None:
    objs = ARRAYS + SCALARS
    pyth.serialization.add_safe_globals(_globals_for(objs))
    try:
        out = pyth.load(_saved(pyth.save, objs))
        for a, b in zip(objs, out):
            _same(a, b)
        assert pyth.serialization.get_safe_globals()[:2] == [_reconstruct, scalar]
    finally:
        pyth.serialization.clear_safe_globals()
    assert pyth.serialization.get_safe_globals() == []
    with pytest.raises(pickle.UnpicklingError):
        pyth.load(_saved(pyth.save, objs))


def test_tensors_alone_need_no_allow_list() -> None:
    out = pyth.load(_saved(pyth.save, {"w": pyth.ones(2), "n": 3}))
    assert out["w"].tolist() == [1.0, 1.0] and out["n"] == 3


@pytest.mark.parametrize("bad", [np.array([{}], dtype=object), np.array(["text"]),
                                 np.array([b"x"]), np.datetime64("2026-01-01")])
def test_save_refuses_numpy_objects_it_cannot_write_as_bytes(bad: object) -> None:
    with pytest.raises(TypeError, match=r"save\(\): cannot save a numpy array of dtype"):
        pyth.save({"a": bad}, io.BytesIO())


def test_torch_checkpoint_of_object_arrays_is_refused_by_name() -> None:
    torch = pytest.importorskip("torch")
    buf = _saved(torch.save, {"a": np.array(["x"])})
    with pytest.raises(pickle.UnpicklingError, match="numpy array of dtype <U1"):
        pyth.load(buf, weights_only=False)


def test_add_safe_globals_checks_its_argument() -> None:
    with pytest.raises(TypeError, match="expected a list"):
        pyth.serialization.add_safe_globals(np.ndarray)
    with pytest.raises(TypeError, match="expected a callable or"):
        pyth.serialization.add_safe_globals([3])
    assert pyth.serialization.get_safe_globals() == []


def test_load_takes_torch_loads_arguments(tmp_path: object) -> None:
    torch = pytest.importorskip("torch")
    p = tmp_path / "ck.pth"
    pyth.save({"w": pyth.arange(3)}, p)
    assert pyth.load(p, "cpu")["w"].tolist() == [0, 1, 2]      # map_location, positionally
    assert pyth.load(p, map_location="cpu", weights_only=True, mmap=True)["w"].tolist() == \
        [0, 1, 2]
    assert pyth.load(p, encoding="latin1")["w"].tolist() == [0, 1, 2]
    with pytest.raises(TypeError, match="unexpected keyword argument 'fix_imports'"):
        pyth.load(p, fix_imports=True)
    with pytest.raises(TypeError, match="weights_only must be a bool"):
        pyth.load(p, weights_only="yes")
    tp = tmp_path / "t.pth"
    torch.save({"w": torch.arange(3)}, tp)
    with pytest.raises(RuntimeError) as ours:
        pyth.load(p, pickle_module=pickle, weights_only=True)
    with pytest.raises(RuntimeError) as theirs:
        torch.load(tp, pickle_module=pickle, weights_only=True)
    assert str(ours.value) == str(theirs.value)
    # a pickle module alone means weights_only=False, as in torch.load
    assert pyth.load(tp, pickle_module=pickle)["w"].tolist() == [0, 1, 2]
    with pytest.raises(ValueError, match="pickle_module can only be the pickle module"):
        pyth.load(p, pickle_module=io)
    with pytest.raises(TypeError):
        pyth.load(p, "cpu", None, True)   # weights_only is keyword-only, as in torch.load

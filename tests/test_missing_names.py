"""A PyTorch name pyth lacks says so: the AttributeError of pyth's modules and of Tensor adds
"torch.X.name is not in pyth" to Python's message (which is PyTorch's, with pyth's name), stays
an AttributeError (hasattr, getattr with a default, from-imports work as before), and private
and dunder names keep the plain message."""

from __future__ import annotations

import copy
import importlib
import pickle

import numpy as np
import pytest

import pyth

torch = pytest.importorskip("torch")

MODULES = ["", ".nn", ".nn.functional", ".nn.init", ".nn.utils", ".optim", ".utils",
           ".utils.data", ".linalg", ".autograd", ".cuda", ".cuda.amp", ".accelerator",
           ".mps", ".xpu", ".backends", ".backends.cudnn", ".backends.cuda", ".backends.mps",
           ".backends.mkldnn", ".backends.openmp", ".fx", ".overrides", ".compiler",
           "._dynamo"]


def _error(obj, name: str) -> AttributeError:
    with pytest.raises(AttributeError) as info:
        getattr(obj, name)
    assert type(info.value) is AttributeError
    return info.value


@pytest.mark.parametrize("suffix", MODULES)
def test_module_miss_names_the_pytorch_function(suffix):
    mod = importlib.import_module("pyth" + suffix)
    tmod = importlib.import_module("torch" + suffix)
    name = "no_such_function"
    plain = str(_error(tmod, name)).replace("torch", "pyth")
    assert plain == f"module 'pyth{suffix}' has no attribute '{name}'"
    assert str(_error(mod, name)) == f"{plain}: torch{suffix}.{name} is not in pyth"
    assert not hasattr(mod, name) and getattr(mod, name, 42) == 42
    with pytest.raises(ImportError, match=name):
        exec(f"from pyth{suffix} import {name}", {})


@pytest.mark.parametrize("suffix", MODULES)
@pytest.mark.parametrize("name", ["_private", "__array_priority__", "__wrapped__"])
def test_module_private_names_keep_the_plain_message(suffix, name):
    mod = importlib.import_module("pyth" + suffix)
    assert str(_error(mod, name)) == f"module 'pyth{suffix}' has no attribute '{name}'"


@pytest.mark.parametrize("suffix", ["", ".nn", ".nn.functional", ".optim", ".linalg",
                                    ".autograd", ".cuda"])
def test_every_pytorch_name_pyth_lacks(suffix):
    """Each public name of the PyTorch module that pyth's lacks gets the message."""
    mod = importlib.import_module("pyth" + suffix)
    tmod = importlib.import_module("torch" + suffix)
    lacking = [n for n in dir(tmod) if not n.startswith("_") and not hasattr(mod, n)]
    assert lacking, "the check needs names pyth lacks"
    for name in lacking:
        assert str(_error(mod, name)).endswith(f": torch{suffix}.{name} is not in pyth")


def test_tensor_miss_names_the_tensor_method():
    t = pyth.ones(2)
    lacking = [n for n in dir(torch.Tensor) if not n.startswith("_") and not hasattr(type(t), n)]
    assert lacking, "the check needs names pyth lacks"
    for name in lacking:
        assert str(_error(t, name)) == (f"'Tensor' object has no attribute '{name}': "
                                        f"Tensor.{name} is not in pyth")
    plain = str(_error(torch.ones(2), "no_such_method"))
    assert str(_error(t, "no_such_method")) == f"{plain}: Tensor.no_such_method is not in pyth"
    assert not hasattr(t, "no_such_method") and getattr(t, "no_such_method", 7) == 7


def test_subclass_miss_names_its_class():
    p, tp = pyth.nn.Parameter(pyth.ones(2)), torch.nn.Parameter(torch.ones(2))
    plain = str(_error(tp, "no_such_method"))
    assert plain == "'Parameter' object has no attribute 'no_such_method'"
    assert str(_error(p, "no_such_method")) == f"{plain}: Tensor.no_such_method is not in pyth"


@pytest.mark.parametrize("name", ["_private", "__no_such_dunder__", "__array_struct__"])
def test_tensor_private_names_keep_the_plain_message(name):
    for t in (pyth.ones(2), pyth.ones(2, dtype=pyth.int64)[1:], pyth.zeros(())):
        assert str(_error(t, name)) == f"'Tensor' object has no attribute '{name}'"


def test_protocols_that_probe_still_work():
    t = pyth.arange(6.0).view(2, 3)
    np.testing.assert_array_equal(np.asarray(t), np.arange(6.0).reshape(2, 3))
    assert copy.deepcopy(t).tolist() == t.tolist() and copy.copy(t).tolist() == t.tolist()
    assert pickle.loads(pickle.dumps(t)).tolist() == t.tolist()
    p = pyth.nn.Parameter(pyth.ones(2))
    assert pickle.loads(pickle.dumps(p)).tolist() == [1.0, 1.0]


def test_lazy_device_modules_are_attributes():
    for name in ("cuda", "backends", "accelerator", "mps", "xpu"):
        assert hasattr(pyth, name) and hasattr(torch, name)
        assert getattr(pyth, name).__name__ == f"pyth.{name}"

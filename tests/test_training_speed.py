"""The lean training path keeps PyTorch's semantics: gradients a leaf keeps without
a copy are never shared with anything else, the fused layer nodes are recorded only when
needed, and libgomp's spin setting leaves the user's environment alone."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import pyth
import pyth.nn.functional as F


def test_kept_gradient_is_not_the_callers_tensor():
    x = pyth.randn(3, requires_grad=True)
    g = pyth.ones(3)
    x.backward(g)                      # the root's gradient is the caller's: copied
    x.grad.add_(5)
    assert g.tolist() == [1.0, 1.0, 1.0]
    y = pyth.randn(3, requires_grad=True)
    (y * 1).backward(g)
    y.grad.add_(5)
    assert g.tolist() == [1.0, 1.0, 1.0]


def test_one_gradient_for_two_leaves_is_copied_for_each():
    a, b = pyth.randn(3, requires_grad=True), pyth.randn(3, requires_grad=True)
    (a + b).sum().backward()           # add's backward hands the same tensor to both
    a.grad.add_(1)
    assert a.grad.tolist() == [2.0, 2.0, 2.0] and b.grad.tolist() == [1.0, 1.0, 1.0]


def test_gradient_a_hook_kept_is_not_the_leafs():
    x = pyth.randn(4, requires_grad=True)
    seen = []
    y = x * 2
    y.register_hook(lambda g: seen.append(g))
    y.sum().backward()
    x.grad.add_(100)
    assert seen[0].tolist() == [1.0] * 4
    kept = []
    z = pyth.randn(4, requires_grad=True)
    z.register_hook(lambda g: kept.append(g))   # the leaf's own hook sees its gradient
    (z * 3).sum().backward()
    z.grad.add_(1)
    assert kept[0].tolist() == [3.0] * 4


def test_gradient_viewing_a_larger_storage_is_copied():
    w = pyth.randn(2, 3, requires_grad=True)
    rest = pyth.randn(2, 3)
    weights = pyth.arange(12, dtype=pyth.float32).reshape(4, 3)
    (pyth.cat([rest, w]) * weights).sum().backward()   # w's gradient: rows 2-3 of one (4, 3)
    assert w.grad.is_contiguous() and w.grad.storage_offset() == 0
    assert len(w.grad.storage()) == 6
    np.testing.assert_allclose(w.grad.numpy(), weights[2:].numpy())


def test_second_backward_accumulates_into_the_kept_gradient():
    x = pyth.randn(5, requires_grad=True)
    y = (x * 2).sum()
    y.backward(retain_graph=True)
    first = x.grad
    y.backward()
    assert x.grad is first and x.grad.tolist() == [4.0] * 5


def test_linear_and_cross_entropy_record_only_when_needed():
    x, w, b = pyth.randn(4, 3), pyth.randn(2, 3), pyth.randn(2)
    assert F.linear(x, w, b).grad_fn is None
    w.requires_grad_()
    y = F.linear(x, w, b)
    assert type(y.grad_fn).__name__ == "LinearBackward"
    assert [e[0] is not None for e in y.grad_fn.next_functions] == [False, True, False]
    with pyth.no_grad():
        assert F.linear(x, w, b).grad_fn is None
    t = pyth.tensor([0, 1, 1, 0])
    assert F.cross_entropy(F.linear(x, w.detach(), b), t).grad_fn is None
    loss = F.cross_entropy(y, t)
    assert type(loss.grad_fn).__name__ == "CrossEntropyBackward"
    loss.backward()
    assert x.grad is None and b.grad is None and w.grad.shape == (2, 3)


def test_relu_node_kept_under_kernel_path():
    x = pyth.randn(5, dtype=pyth.float64, requires_grad=True)
    y = F.relu(x)
    assert type(y.grad_fn).__name__ == "ReluBackward0"
    assert pyth.autograd.gradgradcheck(lambda v: F.relu(v) * v, (x,))


def test_saved_input_modified_in_place_is_caught_by_the_linear_kernel_row():
    x = pyth.randn(4, 3, requires_grad=True)
    w = pyth.randn(2, 3, requires_grad=True)
    y = F.linear(x, w)
    with pyth.no_grad():
        w.mul_(2)                      # the input's gradient needs w as it was
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def _env_after_import(env: dict) -> str:
    code = "import os, pyth; print(os.environ.get('GOMP_SPINCOUNT'))"
    return subprocess.run([sys.executable, "-P", "-c", code], env=env, capture_output=True,
                          text=True, check=True, cwd=os.path.dirname(os.path.dirname(
                              os.path.abspath(__file__)))).stdout.strip()


def test_spin_setting_leaves_the_environment_alone():
    env = {k: v for k, v in os.environ.items() if k not in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY")}
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(pyth.__file__))
    assert _env_after_import(env) == "None"
    env["GOMP_SPINCOUNT"] = "123"
    assert _env_after_import(env) == "123"

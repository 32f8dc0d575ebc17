"""pyth.nn.utils against PyTorch: clip_grad_norm_ (norm types, clipping or not, None grads,
non-finite norms), clip_grad_value_, parameters_to_vector / vector_to_parameters."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _support import needs_torch, torch

import pyth
from pyth.nn import utils

RNG = np.random.default_rng(5)
SHAPES = [(3, 4), (5,), (2, 1, 3), ()]
GRADS = [RNG.standard_normal(s) for s in SHAPES]


def params(lib, dtype="float64", skip=None, scale=1.0):
    dt = getattr(lib, dtype)
    out = []
    for i, g in enumerate(GRADS):
        p = lib.zeros(g.shape, dtype=dt, requires_grad=True)
        if i != skip:
            p.grad = lib.tensor(g * scale, dtype=dt)
        out.append(p)
    return out


def grads_of(ps):
    return [None if p.grad is None else p.grad.numpy().copy() for p in ps]


@needs_torch
@pytest.mark.parametrize("norm_type", [2.0, 1, 3.5, 0.5, math.inf, -math.inf, 0])
@pytest.mark.parametrize("max_norm", [0.5, 1e6])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_clip_grad_norm_matches_torch(norm_type, max_norm, dtype):
    ours, ref = params(pyth, dtype, skip=1), params(torch, dtype, skip=1)
    total = utils.clip_grad_norm_(ours, max_norm, norm_type=norm_type)
    ttotal = torch.nn.utils.clip_grad_norm_(ref, max_norm, norm_type=norm_type)
    tol = 1e-12 if dtype == "float64" else 1e-6
    assert total.dim() == 0 and total.dtype is getattr(pyth, dtype)
    np.testing.assert_allclose(float(total), float(ttotal), rtol=tol)
    for g, tg in zip(grads_of(ours), grads_of(ref)):
        if tg is None:
            assert g is None
        else:
            np.testing.assert_allclose(g, tg, rtol=tol, atol=tol)


@needs_torch
def test_clip_grad_norm_generator_and_single_tensor():
    ours, ref = params(pyth), params(torch)
    total = utils.clip_grad_norm_((p for p in ours), 1.0)
    ttotal = torch.nn.utils.clip_grad_norm_((p for p in ref), 1.0)
    np.testing.assert_allclose(float(total), float(ttotal), rtol=1e-12)
    one = utils.clip_grad_norm_(ours[0], 0.1)
    tone = torch.nn.utils.clip_grad_norm_(ref[0], 0.1)
    np.testing.assert_allclose(float(one), float(tone), rtol=1e-12)
    np.testing.assert_allclose(ours[0].grad.numpy(), ref[0].grad.numpy(), rtol=1e-12)


def test_clip_grad_norm_clips_to_max_norm():
    ps = params(pyth, scale=10.0)
    before = utils.get_total_norm([p.grad for p in ps])
    total = utils.clip_grad_norm_(ps, 2.0)
    assert float(total) == pytest.approx(float(before))
    after = math.sqrt(sum(float((p.grad * p.grad).sum()) for p in ps))
    assert after == pytest.approx(2.0, rel=1e-5)


def test_clip_grad_norm_edge_cases():
    assert float(utils.clip_grad_norm_([], 1.0)) == 0.0
    with pytest.warns(UserWarning, match="empty generator"):
        utils.clip_grad_norm_((p for p in []), 1.0)
    ps = params(pyth)
    ps[0].grad[0, 0] = math.nan
    with pytest.raises(RuntimeError, match="The total norm of order 2.0 for gradients from "
                                           "`parameters` is non-finite"):
        utils.clip_grad_norm_(ps, 1.0, error_if_nonfinite=True)
    assert math.isnan(float(utils.clip_grad_norm_(ps, 1.0)))
    with pytest.raises(RuntimeError, match="foreach=True was passed"):
        utils.clip_grad_norm_(params(pyth), 1.0, foreach=True)
    with pytest.warns(FutureWarning, match="deprecated"):
        utils.clip_grad_norm(params(pyth), 1.0)


@needs_torch
@pytest.mark.parametrize("clip", [0.3, 2.0, 0])
def test_clip_grad_value_matches_torch(clip):
    ours, ref = params(pyth, skip=2), params(torch, skip=2)
    assert utils.clip_grad_value_(ours, clip) is None
    torch.nn.utils.clip_grad_value_(ref, clip)
    for g, tg in zip(grads_of(ours), grads_of(ref)):
        if tg is None:
            assert g is None
        else:
            np.testing.assert_array_equal(g, tg)


def test_clip_grad_value_single_tensor():
    p = pyth.zeros(4, requires_grad=True)
    p.grad = pyth.tensor([-3.0, -0.5, 0.5, 3.0])
    utils.clip_grad_value_(p, 1)
    assert p.grad.tolist() == [-1.0, -0.5, 0.5, 1.0]


@needs_torch
def test_parameters_to_vector_and_back():
    ours = [pyth.tensor(g, dtype=pyth.float64, requires_grad=True) for g in GRADS]
    ref = [torch.tensor(g, dtype=torch.float64, requires_grad=True) for g in GRADS]
    v, tv = utils.parameters_to_vector(ours), torch.nn.utils.parameters_to_vector(ref)
    np.testing.assert_array_equal(v.detach().numpy(), tv.detach().numpy())
    v.sum().backward()  # differentiable, as in PyTorch
    assert all(p.grad is not None and float(p.grad.sum()) == p.numel() for p in ours)
    new = pyth.arange(float(v.numel()), dtype=pyth.float64)
    utils.vector_to_parameters(new, ours)
    torch.nn.utils.vector_to_parameters(torch.arange(float(tv.numel()), dtype=torch.float64), ref)
    for p, t in zip(ours, ref):
        np.testing.assert_array_equal(p.detach().numpy(), t.detach().numpy())
        assert p.requires_grad and p.is_leaf
    new[0] = 100.0  # the parameters view the vector
    assert float(ours[0][0, 0]) == 100.0


def test_vector_to_parameters_type_error():
    with pytest.raises(TypeError, match="expected torch.Tensor, but got: list"):
        utils.vector_to_parameters([1.0], [pyth.zeros(1)])


def test_module_parameters_round_trip():
    m = pyth.nn.Linear(3, 2)
    v = utils.parameters_to_vector(m.parameters())
    assert v.shape == (8,)
    utils.vector_to_parameters(v.detach() * 0 + 1, m.parameters())
    assert m.weight.tolist() == [[1.0] * 3] * 2 and m.bias.tolist() == [1.0, 1.0]

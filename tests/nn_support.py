"""Helpers the layer test suites share: float64 operands for pyth and PyTorch from one array,
and PyTorch as an optional oracle (its tests skip without it; the rest still run)."""

from __future__ import annotations

import numpy as np
import pytest

import pyth

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def P(a, grad=True, dtype=None):
    """A pyth tensor (float64 unless dtype) of a, requiring grad unless grad=False."""
    return pyth.tensor(a, dtype=dtype or pyth.float64).requires_grad_(grad)


def T(a, grad=True, dtype=None):
    """The PyTorch tensor P(a) mirrors."""
    return torch.tensor(a, dtype=dtype or torch.float64, requires_grad=grad)


def close(p, t, tol=1e-9):
    """p (pyth) equals t (PyTorch tensor or array) within tol, relative and absolute."""
    t = t.detach().numpy() if hasattr(t, "detach") else t
    np.testing.assert_allclose(p.detach().numpy(), t, rtol=tol, atol=tol)

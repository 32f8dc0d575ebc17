"""The losses take PyTorch's keywords, legacy ones included, and refuse any other.

size_average / reduce select the reduction (with PyTorch's deprecation warning) in every
functional loss and loss module that PyTorch gives them; an unknown keyword is Python's
TypeError; the regression losses take PyTorch's elementwise weight=.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import pyth
import pyth.nn.functional as F

_RNG = np.random.default_rng(7)
_X = _RNG.uniform(0.05, 0.95, (4, 3))
_T = _RNG.uniform(0.0, 1.0, (4, 3))
_W = _RNG.uniform(0.5, 2.0, (4, 3))

# name -> (arguments as numpy arrays, whether it takes the legacy pair)
FUNCTIONAL = {
    "mse_loss": (_X, _T),
    "l1_loss": (_X, _T),
    "smooth_l1_loss": (_X, _T),
    "binary_cross_entropy": (_X, _T),
    "binary_cross_entropy_with_logits": (_X, _T),
    "kl_div": (np.log(_X), _T),
    "soft_margin_loss": (_X, np.sign(_T - 0.5)),
    "poisson_nll_loss": (_X, _T),
}
LEGACY = [(None, False), (False, None), (True, False), (False, False), (True, True), (0, 1)]
WANT = {(None, False): "none", (False, None): "sum", (True, False): "none",
        (False, False): "none", (True, True): "mean", (0, 1): "sum"}


def _args(lib: Any, arrays: tuple) -> list:
    return [lib.tensor(a, dtype=lib.float64) for a in arrays]


def _message(reduction: str) -> str:
    return (f"size_average and reduce args will be deprecated, please use "
            f"reduction='{reduction}' instead.")


def _run(fn: Any, *args: Any, **kwargs: Any) -> tuple:
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = fn(*args, **kwargs)
    return r, [str(x.message) for x in w if x.category is UserWarning and
               "size_average" in str(x.message)]


@pytest.mark.parametrize("name", sorted(FUNCTIONAL))
@pytest.mark.parametrize("legacy", LEGACY, ids=str)
def test_functional_legacy_reduction(name: str, legacy: tuple) -> None:
    size_average, reduce = legacy
    fn = getattr(F, name)
    args = _args(pyth, FUNCTIONAL[name])
    got, warned = _run(fn, *args, size_average=size_average, reduce=reduce)
    want = fn(*args, reduction=WANT[legacy]) if name != "kl_div" or WANT[legacy] != "mean" \
        else _run(fn, *args, reduction="mean")[0]
    assert warned == [_message(WANT[legacy])]
    np.testing.assert_allclose(np.asarray(got.tolist()), np.asarray(want.tolist()))


@pytest.mark.parametrize("name", sorted(FUNCTIONAL))
def test_functional_legacy_matches_pytorch(name: str) -> None:
    torch = pytest.importorskip("torch")
    import torch.nn.functional as TF
    got, warned = _run(getattr(F, name), *_args(pyth, FUNCTIONAL[name]), size_average=False)
    want, twarned = _run(getattr(TF, name), *_args(torch, FUNCTIONAL[name]), size_average=False)
    assert warned == twarned == [_message("sum")]
    np.testing.assert_allclose(got.item(), want.item(), rtol=1e-12)


@pytest.mark.parametrize("name", sorted(FUNCTIONAL) + ["huber_loss", "nll_loss",
                                                        "cross_entropy", "gaussian_nll_loss"])
def test_functional_loss_refuses_unknown_keyword(name: str) -> None:
    args = _args(pyth, (_X, _T))
    with pytest.raises(TypeError, match=rf"^{name}\(\) got an unexpected keyword argument "
                                        r"'bogus'$"):
        getattr(F, name)(*args, bogus=3)


MODULES = {"MSELoss": "mse_loss", "L1Loss": "l1_loss", "SmoothL1Loss": "smooth_l1_loss",
           "BCELoss": "binary_cross_entropy", "BCEWithLogitsLoss":
           "binary_cross_entropy_with_logits", "KLDivLoss": "kl_div",
           "SoftMarginLoss": "soft_margin_loss", "PoissonNLLLoss": "poisson_nll_loss"}


@pytest.mark.parametrize("cls", sorted(MODULES))
def test_module_legacy_reduction(cls: str) -> None:
    loss, warned = _run(getattr(pyth.nn, cls), size_average=False)
    assert warned == [_message("sum")] and loss.reduction == "sum"
    args = _args(pyth, FUNCTIONAL[MODULES[cls]])
    np.testing.assert_allclose(loss(*args).item(),
                               getattr(F, MODULES[cls])(*args, reduction="sum").item())
    with pytest.warns(UserWarning, match=r"reduction='none'"):
        assert getattr(pyth.nn, cls)(reduce=False).reduction == "none"
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'bogus'"):
        getattr(pyth.nn, cls)(bogus=3)


def test_vae_style_sum_matches_pytorch() -> None:
    """A VAE's reconstruction term written with size_average=False is a sum, not a mean."""
    torch = pytest.importorskip("torch")
    x = _RNG.uniform(0.01, 0.99, (64, 784))
    t = (_RNG.uniform(size=(64, 784)) > 0.5).astype(np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = F.binary_cross_entropy(pyth.tensor(x), pyth.tensor(t), size_average=False)
        want = torch.nn.functional.binary_cross_entropy(torch.tensor(x), torch.tensor(t),
                                                        size_average=False)
    np.testing.assert_allclose(got.item(), want.item(), rtol=1e-10)


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "huber_loss"])
@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_weighted_regression_losses_match_pytorch(name: str, reduction: str) -> None:
    torch = pytest.importorskip("torch")
    got = getattr(F, name)(*_args(pyth, (_X, _T)), reduction=reduction,
                           weight=pyth.tensor(_W))
    want = getattr(torch.nn.functional, name)(*_args(torch, (_X, _T)), reduction=reduction,
                                              weight=torch.tensor(_W))
    np.testing.assert_allclose(np.asarray(got.tolist()), want.numpy(), rtol=1e-12)


def test_weight_of_another_size_is_refused() -> None:
    with pytest.raises(ValueError, match=r"^Weights and input must have the same size\.$"):
        F.mse_loss(pyth.ones(3), pyth.zeros(3), weight=pyth.ones(2))

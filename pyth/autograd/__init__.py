"""pyth.autograd: reverse-mode automatic differentiation over pyth's tensor ops.

In the manner of PyTorch 0.1: an op run with grad enabled on an input that requires grad
records a node (`grad_fn`); `backward()` walks the nodes in dependency order and accumulates
gradients into the leaves' `.grad`. Layout as PyTorch's: grad_mode (no_grad ...), graph (nodes,
saved tensors, versions), engine (the backward pass), record (the op wrappers), derivatives
(the formula table), function (custom Functions), gradcheck, anomaly, variable (Tensor state),
functional (jacobian, hessian, vjp, jvp, ...), legacy_variable (the old Variable constructor).
"""

from __future__ import annotations


from . import anomaly, derivatives, engine, grad_mode, graph, variable
from .anomaly import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from .function import Function, FunctionCtx, once_differentiable
from .grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .gradients import backward, grad
from .graph import Node
from .legacy_variable import Variable

__all__ = ["Function", "FunctionCtx", "GradcheckError", "Node", "Variable", "anomaly", "backward",
           "derivatives", "detect_anomaly", "enable_grad", "engine", "functional", "grad",
           "grad_mode",
           "gradcheck", "gradgradcheck", "graph", "inference_mode", "is_anomaly_enabled",
           "is_grad_enabled", "is_inference_mode_enabled", "no_grad", "once_differentiable",
           "set_detect_anomaly", "set_grad_enabled", "variable"]


from .._missing import attribute_error  # noqa: E402

_missing_name = attribute_error(__name__)


def __getattr__(name: str) -> object:
    """autograd.functional is loaded on first use (import pyth does not pay for it); a PyTorch
    name pyth lacks says so."""
    if name == "functional":
        import importlib
        return importlib.import_module(f"{__name__}.functional")
    _missing_name(name)

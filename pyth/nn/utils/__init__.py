"""pyth.nn.utils: gradient clipping and parameter/vector conversion, as torch.nn.utils."""

from .clip_grad import (
                        clip_grad_norm,
                        clip_grad_norm_,
                        clip_grad_value_,
                        clip_grads_with_norm_,
                        get_total_norm,
)
from .convert_parameters import parameters_to_vector, vector_to_parameters

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_",
           "get_total_norm", "parameters_to_vector", "vector_to_parameters"]

from ..._missing import attribute_error  # noqa: E402
__getattr__ = attribute_error(__name__)   # a PyTorch name pyth lacks says so

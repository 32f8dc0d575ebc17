"""pyth.nn.functional: the layers as functions, gathered from the modules that define them.

Each group below is one topic of torch.nn.functional's documentation. A topic's compositions of
differentiable ops live in pyth/nn/_<topic>.py; the functions that are one THNN kernel with its
backward live beside their binding in pyth/nn/_<kernel>_kernels.py. This module defines nothing.
"""

from __future__ import annotations

from typing import Any  # noqa: F401

# ---- convolution ---------------------------------------------------------------------------
from ._conv_kernels import (conv1d, conv2d, conv3d, conv_transpose1d,  # noqa: F401
                            conv_transpose2d, conv_transpose3d)
from ._fold import fold, unfold  # noqa: F401
# ---- pooling -------------------------------------------------------------------------------
from ._pool_kernels import (adaptive_avg_pool1d, adaptive_avg_pool2d,  # noqa: F401
                            adaptive_avg_pool3d, adaptive_max_pool1d,
                            adaptive_max_pool1d_with_indices, adaptive_max_pool2d,
                            adaptive_max_pool2d_with_indices, adaptive_max_pool3d,
                            adaptive_max_pool3d_with_indices, avg_pool1d, avg_pool2d, avg_pool3d,
                            max_pool1d, max_pool1d_with_indices, max_pool2d,
                            max_pool2d_with_indices, max_pool3d, max_pool3d_with_indices)
from ._pooling import (lp_pool1d, lp_pool2d, lp_pool3d, max_unpool1d,  # noqa: F401
                       max_unpool2d, max_unpool3d)
# ---- attention -----------------------------------------------------------------------------
from ._attention import (multi_head_attention_forward,  # noqa: F401
                         scaled_dot_product_attention)
# ---- non-linear activations ----------------------------------------------------------------
from ._activations import (celu, elu, gelu, glu, gumbel_softmax, hardshrink,  # noqa: F401
                           hardsigmoid, hardswish, hardtanh, leaky_relu, log_softmax,
                           logsigmoid, mish, prelu, relu, relu6, relu_, rrelu, rrelu_, selu,
                           sigmoid, silu, softmax, softmin, softplus, softshrink, softsign, tanh,
                           tanhshrink, threshold)
# ---- normalization -------------------------------------------------------------------------
from ._normalization import (batch_norm, group_norm, instance_norm,  # noqa: F401
                             layer_norm, local_response_norm, normalize, rms_norm)
# ---- linear --------------------------------------------------------------------------------
from ._linear import bilinear, flatten, linear  # noqa: F401
# ---- dropout -------------------------------------------------------------------------------
from ._dropout import (alpha_dropout, dropout, dropout1d, dropout2d,  # noqa: F401
                       dropout3d, feature_alpha_dropout)
# ---- sparse --------------------------------------------------------------------------------
from ._embedding_kernels import embedding_bag  # noqa: F401
from ._sparse import embedding, one_hot  # noqa: F401
# ---- distance ------------------------------------------------------------------------------
from ._distance import cosine_similarity, pairwise_distance, pdist  # noqa: F401
# ---- loss ----------------------------------------------------------------------------------
from ._ctc_kernels import ctc_loss  # noqa: F401
from ._losses import (binary_cross_entropy,  # noqa: F401
                      binary_cross_entropy_with_logits, cosine_embedding_loss, cross_entropy,
                      gaussian_nll_loss, hinge_embedding_loss, huber_loss, kl_div, l1_loss,
                      margin_ranking_loss, mse_loss, multi_margin_loss, multilabel_margin_loss,
                      multilabel_soft_margin_loss, nll_loss, poisson_nll_loss, smooth_l1_loss,
                      soft_margin_loss, triplet_margin_loss, triplet_margin_with_distance_loss)
from ._reduction import legacy_reduction  # noqa: F401
# ---- vision: padding, interpolation, shuffles, grid sampling -------------------------------
from ._grid_sample import affine_grid, grid_sample  # noqa: F401
from ._interpolate import (channel_shuffle, interpolate,  # noqa: F401
                           native_channel_shuffle, pixel_shuffle, pixel_unshuffle, upsample,
                           upsample_bilinear, upsample_nearest)
from ._padding import pad  # noqa: F401

# ---- the tensor type and argument helpers, reachable as F.Tensor, F.as_dim ... too ----------
from .._errors import not_implemented  # noqa: F401
from .._promotion import result_type  # noqa: F401
from ..tensor import Tensor, as_dim, as_int64  # noqa: F401

from .._missing import attribute_error  # noqa: E402
__getattr__ = attribute_error(__name__)   # a PyTorch name pyth lacks says so

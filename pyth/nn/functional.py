"""torch.nn.functional's names, gathered from the topic modules beside it (pyth/nn/_<topic>.py):
linear, activations, dropout, losses, convolution and fold, pooling, normalization, embedding,
distances, padding, interpolation, grid sampling and attention. This module defines nothing."""

from __future__ import annotations

from ..tensor import Tensor  # noqa: F401  (as torch.nn.functional.Tensor)
from ._linear import bilinear, flatten, linear  # noqa: F401
from ._activations import (celu, elu, gelu, glu, gumbel_softmax, hardshrink,  # noqa: F401
                           hardsigmoid, hardswish, hardtanh, leaky_relu, log_softmax, logsigmoid,
                           mish, prelu, relu, relu6, relu_, rrelu, rrelu_, selu, sigmoid, silu,
                           softmax, softmin, softplus, softshrink, softsign, tanh, tanhshrink,
                           threshold)
from ._dropout import (alpha_dropout, dropout, dropout1d, dropout2d, dropout3d,  # noqa: F401
                       feature_alpha_dropout)
from ._losses import (binary_cross_entropy, binary_cross_entropy_with_logits,  # noqa: F401
                      cosine_embedding_loss, cross_entropy, gaussian_nll_loss, hinge_embedding_loss,
                      huber_loss, kl_div, l1_loss, margin_ranking_loss, mse_loss, multi_margin_loss,
                      multilabel_margin_loss, multilabel_soft_margin_loss, nll_loss,
                      poisson_nll_loss, smooth_l1_loss, soft_margin_loss, triplet_margin_loss,
                      triplet_margin_with_distance_loss)
from ._ctc_kernels import ctc_loss  # noqa: F401
from ._conv_kernels import (conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d,  # noqa: F401
                            conv_transpose3d)
from ._fold import fold, unfold  # noqa: F401
from ._pool_kernels import (adaptive_avg_pool1d, adaptive_avg_pool2d,  # noqa: F401
                            adaptive_avg_pool3d, adaptive_max_pool1d,
                            adaptive_max_pool1d_with_indices, adaptive_max_pool2d,
                            adaptive_max_pool2d_with_indices, adaptive_max_pool3d,
                            adaptive_max_pool3d_with_indices, avg_pool1d, avg_pool2d, avg_pool3d,
                            max_pool1d, max_pool1d_with_indices, max_pool2d,
                            max_pool2d_with_indices, max_pool3d, max_pool3d_with_indices)
from ._pooling import (lp_pool1d, lp_pool2d, lp_pool3d, max_unpool1d, max_unpool2d,  # noqa: F401
                       max_unpool3d)
from ._normalization import (batch_norm, group_norm, instance_norm, layer_norm,  # noqa: F401
                             local_response_norm, rms_norm)
from ._sparse import embedding  # noqa: F401
from ._embedding_kernels import embedding_bag  # noqa: F401
from ._distance import cosine_similarity, normalize, one_hot, pairwise_distance, pdist  # noqa: F401
from ._padding import pad  # noqa: F401
from ._interpolate import (channel_shuffle, interpolate, native_channel_shuffle,  # noqa: F401
                           pixel_shuffle, pixel_unshuffle, upsample, upsample_bilinear,
                           upsample_nearest)
from ._grid_sample import affine_grid, grid_sample  # noqa: F401
from ._attention import multi_head_attention_forward, scaled_dot_product_attention  # noqa: F401
from ._reduction import legacy_reduction  # noqa: F401

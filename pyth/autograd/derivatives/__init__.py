"""The derivatives table: every differentiable op's backward formula (TABLE, one entry per op,
by topic beside the ops' own topics); autograd/recorded.py records the functions with them and
install.py the methods and operators."""

from __future__ import annotations

from ..view_nodes import AsStridedBackward0, CopySlices, view_of_base_node  # noqa: F401
from ._common import TABLE, defop  # noqa: F401
# the topic modules register their formulas in TABLE, in this order
from . import pointwise, reductions, shape, indexing, matmul, linalg  # noqa: F401,E402
from .pointwise import C_GRADS  # noqa: F401,E402

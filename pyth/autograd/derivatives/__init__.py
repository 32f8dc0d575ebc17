"""The derivatives table: every differentiable op's backward formula, one entry per op.

Like PyTorch's derivatives.yaml, in Python. An entry names the op, its differentiable
arguments, what it saves, and the formula: a function (grad, args) -> the gradient of each
differentiable argument (None where there is none). `args` holds the op's arguments by name
(`self` is called `input`), saved tensors as tensors and the others as `Info` (shape, dtype),
and `result` when saved. Formulas are written with pyth's own (recorded) ops, so under
create_graph=True the backward pass is itself recorded and can be differentiated again.
Gradients are brought back to each input's shape (summing broadcast dims) and dtype by the
node, not by the formulas. Reductions' backward hands back expanded views, not copies.

`install()` puts the recording wrappers (record.py) in place of the forward functions: in the
pyth namespace, in the modules that define them (so composite ops such as hstack or dist,
built from recorded ops, record their pieces), and as Tensor methods and operators.
"""

from __future__ import annotations

from ..view_nodes import AsStridedBackward0, CopySlices, view_of_base_node  # noqa: F401
from ._common import TABLE, defop  # noqa: F401
# the topic modules register their formulas in TABLE, in this order
from . import pointwise, reductions, shape, indexing, matmul, linalg  # noqa: F401,E402
from .install import CLASS_METHODS, COMPOSED_METHODS, METHODS, install  # noqa: F401,E402
from .pointwise import C_GRADS  # noqa: F401,E402

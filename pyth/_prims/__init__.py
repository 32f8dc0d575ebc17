"""The ops backed by C kernels, one module per topic; each ends with the tables pyth/_bind.py
reads (FUNCTIONS for the pyth namespace, METHODS for Tensor)."""

import types

# The recorded form of every op with a formula, by its derivatives-table name (matmul, where,
# cat, svd ...), filled by pyth/autograd/recorded.py as pyth loads: code below autograd that
# composes differentiable ops calls them through it (autograd's formulas at backward time, so
# that a create_graph=True pass is itself recorded; compositions such as hstack), so that
# gradients flow through them.
recorded = types.SimpleNamespace()

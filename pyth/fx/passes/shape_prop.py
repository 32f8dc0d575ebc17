"""ShapeProp: run a GraphModule on example inputs and note each node's result in its meta
(torch.fx.passes.shape_prop): `node.meta['tensor_meta']` is a TensorMetadata for a tensor
result (a nest of them for a tuple or list of tensors), `node.meta['type']` the result's type.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ...nn.modules.module import Module
from ...tensor import Tensor
from ..interpreter import Interpreter
from ..node import Node, map_aggregate


class TensorMetadata(NamedTuple):
    """What ShapeProp records of a tensor: shape, dtype, requires_grad, stride, memory_format
    (pyth has contiguous or no format), is_quantized (always False) and qparams (empty)."""

    shape: Any
    dtype: Any
    requires_grad: bool
    stride: tuple[int, ...]
    memory_format: str | None
    is_quantized: bool
    qparams: dict[str, Any]


def _extract_tensor_metadata(result: Tensor) -> TensorMetadata:
    """The TensorMetadata of one tensor."""
    memory_format = "contiguous_format" if result.is_contiguous() else None
    return TensorMetadata(result.shape, result.dtype, result.requires_grad, result.stride(),
                          memory_format, False, {})


class ShapeProp(Interpreter):
    """Runs the module and records each node's result shape and type in node.meta."""

    def __init__(self, gm: Module) -> None:
        super().__init__(gm)

    def run_node(self, n: Node) -> Any:
        result = super().run_node(n)
        found = False

        def meta(x: Any) -> Any:
            nonlocal found
            if isinstance(x, Tensor):
                found = True
                return _extract_tensor_metadata(x)
            return x
        tensor_meta = map_aggregate(result, meta)
        if found:
            n.meta["tensor_meta"] = tensor_meta
        n.meta["type"] = type(result)
        return result

    def propagate(self, *args: Any) -> Any:
        """Run on example inputs, filling node.meta; returns the module's result."""
        return super().run(*args)

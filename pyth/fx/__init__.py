"""pyth.fx: programs as graphs, torch.fx's surface.

`symbolic_trace(module)` runs forward on Proxies and records a Graph of Nodes (placeholder,
get_attr, call_function, call_method, call_module, output); a GraphModule runs it from
generated Python code (`gm.code`). Graphs can be edited and recompiled, run node by node
(Interpreter), rewritten (Transformer), and annotated (passes.shape_prop.ShapeProp).
See docs/compile.md.
"""

from . import passes  # noqa: F401
from ._symbolic_trace import Tracer, symbolic_trace, wrap
from .graph import Graph
from .graph_module import GraphModule
from .interpreter import Interpreter, Transformer
from .node import Node, map_arg
from .proxy import Proxy
from . import proxy  # noqa: F401

__all__ = ["Graph", "GraphModule", "Interpreter", "Node", "Proxy", "Tracer",
           "Transformer", "map_arg", "symbolic_trace", "wrap"]

from .._missing import attribute_error  # noqa: E402
__getattr__ = attribute_error(__name__)   # a torch.fx name pyth lacks says so

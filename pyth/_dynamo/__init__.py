"""pyth._dynamo: what pyth.compile runs on (torch._dynamo's names): the compiled callables and
their caches (eval_frame), the settings (config), the exceptions (exc). See docs/compile.md."""

from . import config, exc  # noqa: F401
from .eval_frame import OptimizedModule, list_backends, reset

__all__ = ["OptimizedModule", "config", "exc", "list_backends", "reset"]

from .._missing import attribute_error  # noqa: E402
__getattr__ = attribute_error(__name__)   # a torch._dynamo name pyth lacks says so

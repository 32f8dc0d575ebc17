"""pyth.compiler: the public controls of pyth.compile (torch.compiler's names)."""

from .._dynamo.eval_frame import list_backends, reset

__all__ = ["list_backends", "reset"]

from .._missing import attribute_error  # noqa: E402
__getattr__ = attribute_error(__name__)   # a torch.compiler name pyth lacks says so

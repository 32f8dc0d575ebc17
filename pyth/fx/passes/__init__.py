"""pyth.fx.passes: analyses and rewrites over fx graphs (shape_prop: ShapeProp)."""

from . import shape_prop  # noqa: F401

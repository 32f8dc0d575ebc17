"""pyth.utils: data loading, safetensors files, DLPack."""

from . import data, dlpack, safetensors  # noqa: F401

from .._missing import attribute_error  # noqa: E402
__getattr__ = attribute_error(__name__)   # a PyTorch name pyth lacks says so

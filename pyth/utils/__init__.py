"""pyth.utils: helpers beside the tensor library (data loading, ...)."""

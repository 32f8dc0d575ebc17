"""pyth.utils.data: datasets, samplers and loaders."""

"""pyth._inductor: the graph passes of pyth.compile's default backend (pointwise fusion)."""

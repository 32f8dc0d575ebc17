"""pyth.backends.opt_einsum: whether einsum orders its contractions with the opt_einsum package:
it does not (pyth picks the cheapest pairwise order itself), so is_available() is False; the
flags are kept as set, as PyTorch keeps them."""

from __future__ import annotations

from .._missing import attribute_error

__all__ = ["get_opt_einsum", "is_available"]

enabled = False
strategy = None


def is_available() -> bool:
    """Whether the opt_einsum package is used: no."""
    return False


def get_opt_einsum() -> None:
    """The opt_einsum package einsum uses: None."""
    return None


__getattr__ = attribute_error(__name__)

"""pyth.utils.tensorboard: TensorBoard logs (SummaryWriter), as torch.utils.tensorboard, through
the tensorboard package (the `tensorboard` extra: pip install "pyth[tensorboard]")."""

try:
    import tensorboard  # noqa: F401
except ImportError:
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above") from None

from .writer import FileWriter, SummaryWriter  # noqa: E402

__all__ = ["FileWriter", "SummaryWriter"]

"""pyth.futures: torch.futures.Future's calls (wait, value, done, then, add_done_callback,
set_result), the type a distributed Work's get_future() returns."""

from .distributed.work import Future

__all__ = ["Future"]

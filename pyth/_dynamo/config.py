"""pyth.compile's settings (torch._dynamo.config's names): how many guard sets one compiled
callable keeps before it runs eagerly. `cache_size_limit` is the older name of
`recompile_limit`, one setting under two names, as in PyTorch."""

from __future__ import annotations

import sys
import types

recompile_limit: int = 8


class _Config(types.ModuleType):
    """The module's class, so that cache_size_limit reads and writes recompile_limit."""

    @property
    def cache_size_limit(self) -> int:
        return self.recompile_limit

    @cache_size_limit.setter
    def cache_size_limit(self, value: int) -> None:
        self.recompile_limit = value


sys.modules[__name__].__class__ = _Config

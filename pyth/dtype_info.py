"""finfo / iinfo: the numeric limits of pyth's dtypes (as torch.finfo / torch.iinfo)."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes as _dt

# bfloat16: 8 exponent bits like float32, 7 stored mantissa bits
_BF16 = {"bits": 16, "eps": 2.0 ** -7, "max": 3.3895313892515355e38,
         "min": -3.3895313892515355e38, "tiny": 2.0 ** -126, "smallest_normal": 2.0 ** -126,
         "resolution": 0.01}


class finfo:
    """Limits of a floating dtype: bits, eps, max, min, tiny (= smallest_normal), resolution."""

    def __init__(self, type: Any = None) -> None:  # noqa: A002
        dt = _dt.resolve(type) or _dt.get_default_dtype()
        if not dt.is_floating_point:
            raise TypeError(f"finfo(): torch.finfo() requires a floating point input type. "
                            f"Use torch.iinfo to handle '{dt.name}'")
        self.dtype = dt.name
        if dt is _dt.bfloat16:
            info = _BF16
        else:
            f = np.finfo(dt.to_numpy())
            info = {"bits": f.bits, "eps": float(f.eps), "max": float(f.max),
                    "min": float(f.min), "tiny": float(f.smallest_normal),
                    "smallest_normal": float(f.smallest_normal),
                    "resolution": 10.0 ** -int(f.precision)}
        for k, v in info.items():
            setattr(self, k, v)

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """Limits of an integer (or bool) dtype: bits, min, max."""

    def __init__(self, type: Any) -> None:  # noqa: A002
        dt = _dt.resolve(type)
        if dt is _dt.bool_:
            raise TypeError("pyth.bool is not supported by iinfo")
        if dt is None or dt.is_floating_point:
            raise TypeError("iinfo(): torch.iinfo() requires an integer input type. Use "
                            "torch.finfo to handle floating point types")
        self.dtype = dt.name
        self.bits = dt.itemsize * 8
        info = np.iinfo(dt.to_numpy())
        self.min, self.max = int(info.min), int(info.max)

    def __repr__(self) -> str:
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"


FUNCTIONS = {"finfo": finfo, "iinfo": iinfo}

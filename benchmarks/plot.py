"""A PNG bar chart of the suite's ratios (needs matplotlib; run.py skips it otherwise)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def bar_chart(cases, path: str) -> None:
    """Per case, other/pyth time for numpy and torch (above 1: pyth is faster)."""
    names = [c.name for c in cases]
    fig, ax = plt.subplots(figsize=(10, max(4, 0.3 * len(names))))
    for k, lib in enumerate(("numpy", "torch")):
        ratios = [c.results[lib] / c.results["pyth"] if lib in c.results else 0 for c in cases]
        ax.barh([i + 0.4 * k for i in range(len(names))], ratios, height=0.4, label=f"{lib}/pyth")
    ax.set_yticks([i + 0.2 for i in range(len(names))], names, fontsize=7)
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("time ratio (other / pyth); right of 1 means pyth is faster")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)

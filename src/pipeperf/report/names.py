"""Short display names for kernels (legends, tables); no plotting imports, so text reports stay light."""

from __future__ import annotations


def short_name(kernel: str, limit: int = 28) -> str:
    """Kernel name without its parameter list, shortened for a legend."""
    base = kernel.split("(")[0].strip() or kernel
    suffix = kernel[kernel.rfind(" ["):] if kernel.endswith("]") and " [" in kernel else ""
    text = base + suffix if suffix and suffix not in base else base
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"

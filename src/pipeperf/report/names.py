"""Short display names for kernels (legends, tables); no plotting imports, so text reports stay light."""

from __future__ import annotations


def short_name(kernel: str, limit: int = 28) -> str:
    """Kernel name without its parameter list, shortened for a legend."""
    base = kernel.split("(")[0].strip() or kernel
    suffix = kernel[kernel.rfind(" ["):] if kernel.endswith("]") and " [" in kernel else ""
    text = base + suffix if suffix and suffix not in base else base
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def fast_forward_text(profile: dict) -> str | None:
    """What ``--fast-forward`` did to a launch's simulation, for the text and HTML reports alike."""
    ff = profile.get("fast_forward")
    if not ff:
        return None
    k1, k2 = ff["simulated_groups"]
    how = ", by the instructions still to come (blocks of several shapes)" if ff.get("by_instructions") else ""
    return (f"pipeline: {profile['groups_on_core']} blocks per SM extrapolated from simulations of {k1} and "
            f"{k2}{how} (--fast-forward {ff['rounds']}; 0 simulates all)")

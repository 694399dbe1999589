"""The launch the report tests share: the unpadded shared-memory transpose (bank conflicts, so
there is a what-if) on two GPUs, and its ``pipeperf analyze`` command line."""

from __future__ import annotations

TRANSPOSE = "tests/kernels/transpose_shared.cu"
N = 512
TRANSPOSE_LAUNCH = dict(grid=(N // 32, N // 32), block=(32, 8),
                        args=[f"in=rand:f32:{N * N}", f"out=zeros:f32:{N * N}", f"rows={N}", f"cols={N}"],
                        gpus=["volta_v100", "ampere_a100"])


def cli_args(*extra: str) -> list[str]:
    """``pipeperf analyze`` argv of the shared launch."""
    L = TRANSPOSE_LAUNCH
    argv = ["analyze", TRANSPOSE, "--grid", ",".join(map(str, L["grid"])),
            "--block", ",".join(map(str, L["block"]))]
    for a in L["args"]:
        argv += ["--arg", a]
    for g in L["gpus"]:
        argv += ["--gpu", g]
    return argv + list(extra)

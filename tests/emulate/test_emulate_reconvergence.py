"""Why lowest-PC-first scheduling reconverges at the immediate post-dominator.

The machine runs the lowest pending PC first. Threads that split at a branch wait at the
branch's immediate post-dominator (ipdom) until no thread is left at a lower PC, so they meet
there exactly when every block on the paths from the branch to its ipdom lies *below* the
ipdom in code order. This checks that property on every conditional branch of the corpus.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeperf.ptx import CFG, parse_file

PTX = Path(__file__).resolve().parents[1] / "kernels" / "ptx"


def _paths_below_ipdom(cfg: CFG, branch: int) -> list[int]:
    r = cfg.reconvergence(branch)
    if r is None:
        return []
    stop = cfg.block_of[r]
    seen, todo, bad = set(), list(cfg.blocks[cfg.block_of[branch]].succs), []
    while todo:
        b = todo.pop()
        if b in seen or b == stop or b == cfg.exit:
            continue
        seen.add(b)
        if cfg.blocks[b].start > r:
            bad.append(b)
        todo.extend(cfg.blocks[b].succs)
    return bad


@pytest.mark.parametrize("path", sorted(PTX.glob("*.sm_80.ptx")), ids=lambda p: p.stem)
def test_paths_to_ipdom_lie_below_it(path):
    m = parse_file(path)
    for f in m.functions:
        if not f.has_body:
            continue
        cfg = CFG(f)
        for i, x in enumerate(f.instructions):
            if x.root == "bra" and x.guard is not None:
                assert _paths_below_ipdom(cfg, i) == [], (f.name, x.line)

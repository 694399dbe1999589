"""CFG: blocks end after every branch, successors, post-dominators, reconvergence."""

from __future__ import annotations

from pipeperf.ptx import CFG, parse_ptx

HEAD = ".version 8.0\n.target sm_80\n.address_size 64\n"


def cfg_of(body: str) -> CFG:
    text = HEAD + (".visible .entry k()\n{\n.reg .pred %p<4>;\n.reg .b32 %r<8>;\n"
                   + body + "\n}\n")
    return CFG(parse_ptx(text).function("k"))


def test_blocks_of_branches_fixture(branches):
    cfg = CFG(branches)
    assert [(b.start, b.end) for b in cfg.blocks] == [(0, 5), (5, 7), (7, 8), (8, 10),
                                                       (10, 14), (14, 21)]
    assert [b.succs for b in cfg.blocks] == [[2, 1], [3], [3], [4], [4, 5], []]
    assert [sorted(b.preds) for b in cfg.blocks] == [[], [0], [0], [1, 2], [3, 4], [4]]
    assert [b.exits for b in cfg.blocks] == [False] * 5 + [True]
    assert cfg.blocks[2].labels == ["$L_then"]
    assert cfg.block_of[6] == 1 and cfg.block_of[7] == 2


def test_postdominators_and_reconvergence(branches):
    cfg = CFG(branches)
    assert cfg.ipdom == [3, 3, 3, 4, 5, cfg.exit]
    assert cfg.postdominators(0) == [0, 3, 4, 5, cfg.exit]
    assert cfg.reconvergence(4) == 8      # if/else joins at $L_join
    assert cfg.reconvergence(13) == 14    # loop exit
    assert cfg.reconvergence(20) is None  # ret: only at function exit


def test_branch_list(branches):
    assert CFG(branches).branch_instructions() == [4, 6, 13]


def test_block_ends_after_unlabelled_fallthrough_branch():
    cfg = cfg_of("@%p1 bra $L1;\nmov.u32 %r1, 1;\n@%p2 bra $L1;\nmov.u32 %r2, 2;\n$L1:\nret;")
    assert [(b.start, b.end) for b in cfg.blocks] == [(0, 1), (1, 3), (3, 4), (4, 5)]
    assert cfg.blocks[1].succs == [3, 2]


def test_guarded_ret_falls_through_and_exits():
    cfg = cfg_of("@%p1 ret;\nmov.u32 %r1, 1;\nret;")
    assert [(b.start, b.end) for b in cfg.blocks] == [(0, 1), (1, 3)]
    assert cfg.blocks[0].succs == [1] and cfg.blocks[0].exits
    assert cfg.ipdom == [cfg.exit, cfg.exit]


def test_brx_successors(features_module):
    f = features_module.function("features")
    cfg = CFG(f)
    brx = next(i for i in f.instructions if i.root == "brx")
    blk = cfg.blocks[cfg.block_of[brx.index]]
    targets = {cfg.blocks[s].start for s in blk.succs}
    assert targets == {f.labels["$L_a"], f.labels["$L_b"]}
    assert cfg.reconvergence(brx.index) == f.labels["$L_end"]


def test_infinite_loop_still_has_postdominators():
    cfg = cfg_of("$L0:\n@%p1 bra $L1;\nbra.uni $L0;\n$L1:\nmov.u32 %r1, 1;\n$L2:\nbra.uni $L2;")
    assert len(cfg.ipdom) == len(cfg.blocks)
    assert all(0 <= d <= cfg.exit for d in cfg.ipdom)


def test_branch_to_label_at_end_leaves_function():
    cfg = cfg_of("@%p1 bra $Lend;\nmov.u32 %r1, 1;\n$Lend:")
    assert cfg.blocks[0].exits and cfg.blocks[0].succs == [1]
    assert cfg.blocks[1].exits


def test_empty_function():
    cfg = cfg_of("")
    assert cfg.blocks == [] and cfg.ipdom == []

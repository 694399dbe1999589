"""tests/kernels/OPCODES.md is reproducible from the committed PTX, and its scanner reads the PTX
statement forms it claims to (guards, labels, newline-terminated .loc lines, multi-line calls)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("opcode_inventory", REPO / "scripts" / "opcode_inventory.py")
inv = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(inv)


def test_committed_inventory_is_up_to_date():
    assert inv.OUT.read_text() == inv.render(inv.scan(inv.PTX_DIR))


def test_statement_scanner_handles_guards_labels_loc_and_multiline_calls():
    ptx = """
    .loc 1 3 5
    @%p1 bra $L__BB0_2;   // comment ; with semicolon
$L__BB0_1:
    .loc 1 4 2, function_name $L__info_string0, inlined_at 1 9 1
    ld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];
    { // callseq 0, 0
    .reg .b32 temp_param_reg;
    call.uni (retval0),
    _Z5poly3ffff,
    (param0);
    }
$L__BB0_2:
    @!%p2 ret;
"""
    got = [(op, guarded, multi) for op, _, guarded, multi in inv.statements(ptx)]
    assert got == [("bra", True, False), ("ld.global.nc.v4.f32", False, False),
                   ("call.uni", False, True), ("ret", True, False)]


def test_scoped_blocks_exclude_function_bodies():
    text = ".entry k(\n .param .u32 p\n)\n{\n {.reg .f16 low;\n cvt.rn.f16.f32 low, %f1;}\n ret;\n}\n"
    assert inv.count_scoped_blocks(text) == 1


def test_inventory_sees_the_corpus_features():
    data = inv.scan(inv.PTX_DIR)
    sm80, sm75 = data["sm_80"], data["sm_75"]
    for label in ("bar.sync", "shfl.sync", "vote.sync", "atom.global", "cp.async", "wmma.*", "mma.sync",
                  "call (with .param argument passing)", "ld/st .local", "ld.global.nc (read-only path)",
                  "redux.sync", "membar / fence", "vector ld/st .v4", "cvt involving f16"):
        assert sm80["notable"][label] > 0, label
    assert sm75["notable"]["mma.sync"] == 0 and sm75["notable"]["redux.sync"] == 0  # sm_80+ only
    assert data["sm_90"]["inlined_at"] > 0 and sm80["inlined_at"] == 0  # -lineinfo only on sm_90

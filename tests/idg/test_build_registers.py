"""The IDG builder's registers come from the IR's operand objects (issue 21)."""

from pathlib import Path

from pipeperf.idg.build import ir_registers, text_registers
from pipeperf.ptx import parse_file

CORPUS = Path(__file__).resolve().parents[1] / "kernels" / "ptx"


def test_ir_and_text_registers_agree_on_the_corpus():
    """The builder reads each entry's registers from its instruction's operand objects; an entry
    known only by its operands' text (a hand-written trace) parses to the same registers."""
    checked = 0
    for path in sorted(CORPUS.glob("*.sm_80.ptx")):
        for f in parse_file(path).functions:
            of = ir_registers(f)
            for x in f.instructions:
                e = {"pc": x.index, "dsts": tuple(map(str, x.dsts)), "srcs": tuple(map(str, x.srcs))}
                reads, writes = of(e)
                if x.guard is not None:
                    reads = reads[:-1]
                assert (reads, writes) == text_registers(e), str(x)
                checked += 1
    assert checked > 1000

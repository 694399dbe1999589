"""PTX front end: parser to a typed IR, printer, CFG, def-use graph, branch slices.

Typical use::

    from pipeperf.ptx import parse_file, CFG, DefUse, Slicer
    module = parse_file("kernel.ptx")
    kernel = module.kernels[0]
    slices = Slicer(kernel).branch_slices()
"""

from pipeperf.ptx.cfg import CFG, BasicBlock
from pipeperf.ptx.defuse import DefUse
from pipeperf.ptx.ir import (
    Address,
    Function,
    HandleRef,
    Immediate,
    Instruction,
    Label,
    Loc,
    Module,
    NotPred,
    OpInfo,
    Param,
    ParamList,
    Register,
    RegDecl,
    Sink,
    SpecialRegister,
    Symbol,
    Variable,
    Vector,
    format_instruction,
)
from pipeperf.ptx.opcodes import decode_opcode
from pipeperf.ptx.parser import parse_file, parse_ptx
from pipeperf.ptx.printer import print_module
from pipeperf.ptx.slices import Slice, Slicer

__all__ = [
    "Address", "BasicBlock", "CFG", "DefUse", "Function", "HandleRef", "Immediate",
    "Instruction", "Label", "Loc", "Module", "NotPred", "OpInfo", "Param", "ParamList",
    "Register", "RegDecl", "Sink", "Slice", "Slicer", "SpecialRegister", "Symbol",
    "Variable", "Vector", "decode_opcode", "format_instruction", "parse_file", "parse_ptx",
    "print_module",
]

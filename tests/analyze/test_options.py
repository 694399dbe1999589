"""One set of analyze options: the command line's defaults are AnalyzeOptions' defaults, and the
Python API takes the same names (an unknown one is a one-line error)."""

import pytest

from pipeperf.analysis.options import AnalyzeOptions
from pipeperf.cli.analyze import options_from_args
from pipeperf.cli.main import build_parser
from pipeperf.errors import PipeperfError


def _cli(*extra):
    argv = ["analyze", "k.cu", "--grid", "4", "--block", "32", "--gpu", "ampere_a100", *extra]
    return options_from_args(build_parser(argv).parse_args(argv))


def test_the_command_lines_defaults_are_the_options_defaults():
    assert _cli() == AnalyzeOptions()


def test_the_command_line_and_keywords_give_the_same_options():
    cli = _cli("--kernel", "k", "--trace-warps", "64", "--max-nodes", "1000", "--fast-forward", "0",
               "--no-what-if", "--warm-l2", "--exact", "--sweep-occupancy", "--shared", "128",
               "--max-blocks-per-sm", "2", "--scheduler", "gto", "--all-ctas", "--no-memory-analysis")
    assert cli == AnalyzeOptions.from_kwargs(kernel="k", trace_warps=64, max_nodes=1000, fast_forward=None,
                                             what_if=False, warm_l2=True, exact=True, sweep=True, shared=128,
                                             max_blocks_per_sm=2, scheduler="gto", all_ctas=True, memory=False)


def test_an_unknown_keyword_is_one_line():
    with pytest.raises(PipeperfError, match="analyze: unknown option 'what_iff'"):
        AnalyzeOptions.from_kwargs(what_iff=False)


def test_exact_turns_the_shortcuts_off_and_the_cut_follows_the_trace_cap():
    assert AnalyzeOptions(exact=True).resolved(None).max_nodes is None
    assert AnalyzeOptions(exact=True).resolved(None).fast_forward is None
    assert AnalyzeOptions().resolved(4096).max_nodes == 4096
    assert AnalyzeOptions(max_nodes=None).resolved(4096).max_nodes is None

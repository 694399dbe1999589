"""``pipeperf gpu list`` and ``pipeperf gpu show``."""

import json


def test_list_names_all_bundled(cli):
    rc, out, _ = cli("gpu", "list")
    assert rc == 0
    for name in ("fermi_c2050", "kepler_gtx650ti", "maxwell_k620", "pascal_gtx1060", "turing_rtx2070", "amd_r9_380"):
        assert name in out


def test_show_prints_sources_and_json(cli):
    rc, out, _ = cli("gpu", "show", "fermi")
    assert rc == 0 and "Table 5 (div.f64)" in out and "253" in out
    rc, out, _ = cli("gpu", "show", "fermi_c2050", "--json")
    assert json.loads(out)["classes"]["ld_global_s32"] == {"subsystem": "mem", "cpi": 23.0, "latency": 475.0}


def test_unknown_gpu(cli):
    rc, _, err = cli("gpu", "show", "geforce256")
    assert rc == 2 and "unknown GPU 'geforce256'" in err and len(err.strip().splitlines()) == 1


def test_list_and_show_new_entries(cli):
    rc, out, _ = cli("gpu", "list")
    assert rc == 0
    for name in ("volta_v100_pcie", "ampere_a100_80gb", "ampere_a100_pcie", "ampere_a100_pcie_80gb", "hopper_h100_pcie",
                 "hopper_h200", "ampere_a40", "ampere_rtx3090", "ada_l40", "ada_l40s", "ada_rtx4090"):
        assert name in out
    rc, out, _ = cli("gpu", "show", "hopper_h200")
    assert rc == 0 and "base hopper_h100" in out and "memory.dram_peak_gbs" in out and "4800" in out
    rc, out, _ = cli("gpu", "show", "ada_l40", "--json")
    d = json.loads(out)
    assert d["memory"]["l2_bytes"] == 100663296 and d["sustained_clock_ghz"] == 1.605
    assert "sustained_clock_ghz" in d["estimates"] and d["sources"]["memory.dram_read_gbs"]


def test_gpu_diff_lists_what_differs_with_the_ratio(cli):
    rc, out, _ = cli("gpu", "diff", "hopper_h100", "hopper_h200")
    assert rc == 0
    line = next(l for l in out.splitlines() if l.startswith("memory.dram_peak_gbs"))
    assert line.split()[1:] == ["3350", "4800", "1.433"]
    assert "classes.fma_f32.cpi" not in out                     # equal numbers are left out
    rc, out, _ = cli("gpu", "diff", "hopper_h100", "hopper_h100")
    assert rc == 0 and "give the same numbers" in out
    rc, _, err = cli("gpu", "diff", "hopper_h100", "no_such_gpu")
    assert rc == 2 and err.count("\n") == 1

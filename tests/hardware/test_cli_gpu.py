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

"""The results cache's keys and integrity, and source bundles: the key changes with any input the
prediction depends on (a header included by the kernel too), and a damaged row is a miss."""

from __future__ import annotations

import sqlite3

from pipeperf.tune.cache import ResultCache, result_key
from pipeperf.tune.sources import bundle, instantiation, materialize


def test_keys_are_canonical_and_sensitive():
    a = result_key({"grid": [4, 4, 1], "flags": ["-DTILE=8"], "gpu": "abc"})
    assert a == result_key({"gpu": "abc", "flags": ["-DTILE=8"], "grid": [4, 4, 1]})     # key order
    assert a != result_key({"grid": [4, 4, 1], "flags": ["-DTILE=16"], "gpu": "abc"})
    assert len(a) == 64


def test_store_reload_and_damaged_rows(tmp_path):
    c = ResultCache(tmp_path)
    c.put("k1", {"gpu": "hopper_h100", "seconds": 1.5e-6})
    c.put("k2", {"gpu": "ampere_a100", "seconds": 2.5e-6})
    c.close()
    c = ResultCache(tmp_path)                         # a new process reads what the last one wrote
    assert c.get_many(["k1", "k2", "k3"]) == {"k1": {"gpu": "hopper_h100", "seconds": 1.5e-6},
                                               "k2": {"gpu": "ampere_a100", "seconds": 2.5e-6}}
    db = sqlite3.connect(str(tmp_path / "results.sqlite"))
    db.execute("UPDATE results SET payload = replace(payload, '1.5e-06', '9.9e-06') WHERE key = 'k1'")
    db.commit()
    assert set(c.get_many(["k1", "k2"])) == {"k2"}     # the edited row fails its checksum
    assert len(c) == 2 and ResultCache(None).get_many(["k2"]) == {}


def test_bundle_follows_local_headers(tmp_path):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "tile.cuh").write_text("#define TILE 8\n")
    (tmp_path / "k.cu").write_text('#include "inc/tile.cuh"\n// #include "missing.cuh"\n__global__ void k() {}\n')
    b = bundle(tmp_path / "k.cu")
    assert [name for name, _ in b.files] == ["k.cu", "inc/tile.cuh"]
    assert materialize(b) == tmp_path / "k.cu"        # here and unchanged: the user's own file
    (tmp_path / "inc" / "tile.cuh").write_text("#define TILE 16\n")
    b2 = bundle(tmp_path / "k.cu")
    assert b2.digest != b.digest
    copy = materialize(b)                             # this machine's file differs: the bundle's copy
    assert copy != tmp_path / "k.cu" and (copy.parent / "inc" / "tile.cuh").read_text() == "#define TILE 8\n"
    inst = materialize(b2, "k", ("16", "float"))
    assert inst.read_text().endswith(instantiation("k", ("16", "float")))
    assert "(void*)&k<16, float>" in inst.read_text()

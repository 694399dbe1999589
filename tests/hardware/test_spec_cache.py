"""GPU specs are read from the JSON cache after their first load, without PyYAML, and give the
same spec; what JSON cannot hold is never cached, and a spoiled entry is a miss."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

import pipeperf
from pipeperf.errors import PipeperfError
from pipeperf.hardware.spec import GPU_DIR, load_gpu
from pipeperf.util.yamlio import load_document


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PIPEPERF_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / "yaml"


def test_second_load_comes_from_the_cache_without_pyyaml(cache):
    first = load_gpu("pascal_gtx1060")
    assert len(list(cache.glob("*.json"))) == 1
    env = {**os.environ, "PYTHONPATH": str(Path(pipeperf.__file__).parents[1])}
    code = ("import sys; from pipeperf.hardware.spec import load_gpu; g = load_gpu('pascal_gtx1060'); "
            "print('yaml' in sys.modules, g.to_dict() if hasattr(g, 'to_dict') else g)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
    assert out.startswith("False ")
    assert load_gpu("pascal_gtx1060") == first


def test_what_json_cannot_hold_is_not_cached(cache, tmp_path):
    path = tmp_path / "k.yaml"
    path.write_text("a: 2024-01-01\n1: one\n")
    assert load_document(path, cache=True).data == load_document(path).data
    assert not cache.exists() or not list(cache.glob("*.json"))


def test_a_spoiled_entry_is_a_miss(cache):
    first = load_gpu("pascal_gtx1060")
    (entry,) = cache.glob("*.json")
    entry.write_text(entry.read_text().replace('"cores"', '"corez"'))
    assert load_gpu("pascal_gtx1060") == first


def test_a_cached_spec_still_names_the_line_of_a_mistake(cache, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text((GPU_DIR / "pascal_gtx1060.yaml").read_text().replace("cores: 10", "cores: -10", 1))
    messages = []
    for _ in range(2):                                  # parsed, then from the cache
        with pytest.raises(PipeperfError) as err:
            load_gpu(bad)
        messages.append(str(err.value))
    assert len(list(cache.glob("*.json"))) == 1
    assert messages[0] == messages[1] and messages[0].startswith(f"{bad}:5: 'cores'")

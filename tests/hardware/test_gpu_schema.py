"""Every GPU file says its schema_version: newer ones are refused in one line, older ones migrated
(or refused naming what changed), and the JSON cache of parsed specs is keyed by the versions."""

import pytest

import pipeperf._version
from pipeperf.errors import PipeperfError
from pipeperf.hardware import schema
from pipeperf.hardware.spec import GPU_DIR, available_gpus, load_gpu, spec_yaml


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PIPEPERF_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / "yaml"


def _spec(tmp_path, version_line: str):
    text = (GPU_DIR / "pascal_gtx1060.yaml").read_text()
    text = "\n".join(ln for ln in text.splitlines() if not ln.startswith("schema_version:"))
    path = tmp_path / "gpu.yaml"
    path.write_text(f"{text}\n{version_line}\n" if version_line else text + "\n")
    return path, text.count("\n") + 2


def test_every_bundled_file_is_of_the_current_version():
    for name in available_gpus():
        text = (GPU_DIR / f"{name}.yaml").read_text()
        assert f"\nschema_version: {schema.SCHEMA_VERSION} " in text, name
    assert spec_yaml("ada_l40s").splitlines()[2] == f"schema_version: {schema.SCHEMA_VERSION}"


def test_a_newer_file_is_one_line_naming_file_and_line(cache, tmp_path):
    path, line = _spec(tmp_path, f"schema_version: {schema.SCHEMA_VERSION + 1}")
    with pytest.raises(PipeperfError) as err:
        load_gpu(path)
    msg = str(err.value)
    assert msg.startswith(f"{path}:{line}: GPU file of schema_version {schema.SCHEMA_VERSION + 1}, newer")
    assert "\n" not in msg and "upgrade pipeperf" in msg


@pytest.mark.parametrize("bad", ["0", "two", "1.5", "true"])
def test_a_version_that_is_no_version_is_refused(cache, tmp_path, bad):
    path, line = _spec(tmp_path, f"schema_version: {bad}")
    with pytest.raises(PipeperfError, match=rf":{line}: 'schema_version' must be a whole number"):
        load_gpu(path)


def test_an_unversioned_file_reads_as_version_1(cache, tmp_path):
    path, _ = _spec(tmp_path, "")
    assert load_gpu(path).cores == load_gpu("pascal_gtx1060").cores


def test_an_older_file_is_migrated_or_refused_with_what_changed(cache, tmp_path, monkeypatch):
    """As if the format were at the next version, which renamed a key: older files are converted."""
    nxt = schema.SCHEMA_VERSION + 1
    monkeypatch.setattr(schema, "SCHEMA_VERSION", nxt)
    monkeypatch.setitem(schema.CHANGES, nxt, "'cores' renamed 'sm_count'")
    path, line = _spec(tmp_path, f"schema_version: {nxt - 1}")
    with pytest.raises(PipeperfError) as err:          # no migration known: what changed since
        load_gpu(path)
    assert str(err.value).startswith(f"{path}:{line}: GPU file of schema_version {nxt - 1} cannot be converted")
    assert "'cores' renamed 'sm_count'" in str(err.value)
    monkeypatch.setitem(schema.MIGRATIONS, nxt - 1, lambda d: {**d, "cores": d["cores"] * 2})
    assert load_gpu(path).cores == 2 * 10


def test_version_2_adds_the_base_clock_and_the_device_memory(cache, tmp_path):
    """A version-1 file reads unchanged; version 2's optional keys are numbers a source can cite."""
    path, _ = _spec(tmp_path, "schema_version: 1")
    g = load_gpu(path)
    assert g.base_clock_ghz is None and "dram_bytes" not in g.memory and "base_clock_ghz" not in g.fields()
    p2 = tmp_path / "v2.yaml"
    p2.write_text("base: pascal_gtx1060\nname: v2\nschema_version: 2\nbase_clock_ghz: 1.5\n"
                  "memory: {dram_bytes: 6442450944}\nsources: {base_clock_ghz: a datasheet, "
                  "memory.dram_bytes: the same datasheet}\n")
    g = load_gpu(str(p2))
    assert g.base_clock_ghz == 1.5 and g.fields()["memory.dram_bytes"] == 6442450944
    assert g.sources["base_clock_ghz"] == "a datasheet"
    p2.write_text("base: pascal_gtx1060\nname: v2\nschema_version: 2\nbase_clock_ghz: 0\n")
    with pytest.raises(PipeperfError, match="'base_clock_ghz' must be > 0"):
        load_gpu(str(p2))


def test_the_spec_cache_is_keyed_by_schema_and_pipeperf_versions(cache, monkeypatch):
    load_gpu("pascal_gtx1060")
    assert len(list(cache.glob("*.json"))) == 1
    load_gpu("pascal_gtx1060")
    assert len(list(cache.glob("*.json"))) == 1          # a hit
    monkeypatch.setattr(pipeperf._version, "__version__", "99.0")
    load_gpu("pascal_gtx1060")
    assert len(list(cache.glob("*.json"))) == 2          # another pipeperf: a miss, parsed again
    monkeypatch.setattr(schema, "SCHEMA_VERSION", schema.SCHEMA_VERSION + 1)
    monkeypatch.setitem(schema.MIGRATIONS, schema.SCHEMA_VERSION - 1, lambda d: d)
    load_gpu("pascal_gtx1060")
    assert len(list(cache.glob("*.json"))) == 3          # another schema: a miss

"""Fast IDG/GPU loading: JSON through json, YAML through libyaml, lines only for errors."""

import json
import random

import numpy as np
import pytest
import yaml

from pipeperf.errors import PipeperfError
from pipeperf.hardware.spec import load_gpu
from pipeperf.idg import load_kernel
from pipeperf.idg.io import parse_kernel
from pipeperf.util import yamlio
from pipeperf.util.yamlio import Document, loads_fast, loads_lines


def _instructions(n, seed=3):
    rng = random.Random(seed)
    out = []
    for i in range(n):
        node = {"id": f"i{i}", "class": rng.choice(["fma_f32", "ld_global_s32", "cos_f32", "add_f32"])}
        if i:
            node["deps"] = [f"i{j}" for j in sorted(rng.sample(range(max(0, i - 6), i), min(i, 2)))]
        if i % 500 == 250:
            node["barrier"] = True
        out.append(node)
    return out


def _kernel_dict(n=2000):
    return {"name": "big", "warp_classes": [
        {"weight": 3, "name": "even", "instructions": _instructions(n)},
        {"weight": 1, "instructions": _instructions(n, seed=4)},
    ], "group_classes": [{"weight": 2, "warps": [0, 0]}, {"weight": 1, "warps": [0, 1]}]}


def _yaml_text(d):
    """Hand-style YAML: one flow mapping per instruction, so line k+3 holds instruction k."""
    rows = [f"name: {d['name']}", "warp_classes:"]
    for wc in d["warp_classes"]:
        rows.append(f"  - weight: {wc['weight']}")
        if "name" in wc:
            rows.append(f"    name: {wc['name']}")
        rows.append("    instructions:")
        rows += [f"      - {json.dumps(node)}" for node in wc["instructions"]]
    rows.append("group_classes:")
    rows += [f"  - {json.dumps(gc)}" for gc in d["group_classes"]]
    return "\n".join(rows) + "\n"


def _reference(path):
    """What the loader gave before: the whole file through the line-tracking loader."""
    tracked = loads_lines(path.read_text(), str(path))
    return parse_kernel(Document(tracked, str(path), yamlio._own_lines(tracked)))


def _same(a, b):
    assert a.name == b.name and a.group_classes == b.group_classes
    assert [w.weight for w in a.warp_classes] == [w.weight for w in b.warp_classes]
    for x, y in zip(a.idgs, b.idgs, strict=True):
        assert x.name == y.name and x.ids == y.ids and x.classes == y.classes
        for f in ("cls", "dep_ptr", "dep_idx", "barrier"):
            assert np.array_equal(getattr(x, f), getattr(y, f))


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_fast_paths_give_the_same_kernel(tmp_path, fmt):
    d = _kernel_dict()
    p = tmp_path / f"k.{fmt}"
    p.write_text(json.dumps(d, indent=1) if fmt == "json" else _yaml_text(d))
    _same(load_kernel(p), _reference(p))


@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_a_valid_file_is_not_parsed_for_lines(tmp_path, fmt, monkeypatch):
    d = _kernel_dict(200)
    p = tmp_path / f"k.{fmt}"
    p.write_text(json.dumps(d, indent=1) if fmt == "json" else _yaml_text(d))

    def refuse(*a, **k):
        raise AssertionError("line tracking on a valid file")
    monkeypatch.setattr(yamlio, "_tracked", refuse)
    assert len(load_kernel(p).idgs[0]) == 200


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["json", "yaml"])
@pytest.mark.parametrize("mistake,message", [
    ("unknown", r"instruction 1501: unknown key 'colour'"),
    ("missing", r"instruction 'i1500' depends on missing id 'nope'"),
    ("noclass", r"instruction 1501: needs 'id' and 'class'"),
    ("cycle", r"dependence cycle: i1500 -> "),
])
def test_an_error_in_a_big_file_names_its_line(tmp_path, fmt, mistake, message):
    d = _kernel_dict()
    node = d["warp_classes"][1]["instructions"][1500]
    if mistake == "unknown":
        node["colour"] = "red"
    elif mistake == "missing":
        node["deps"] = ["nope"]
    elif mistake == "noclass":
        del node["class"]
    else:
        node["deps"] = ["i1600"]
        d["warp_classes"][1]["instructions"][1600]["deps"] = ["i1500"]
    if fmt == "json":
        text = json.dumps(d, indent=1)
        # the second '"id": "i1500"' is warp class 1's; its mapping opens on the line before
        line = text[:text.index('"id": "i1500"', text.index('"id": "i1500"') + 1)].count("\n")
    else:
        text = _yaml_text(d)
        line = text.splitlines().index(f"      - {json.dumps(node)}") + 1
    p = tmp_path / f"big.{fmt}"
    p.write_text(text)
    with pytest.raises(PipeperfError, match=rf"big\.{fmt}:{line}: {message}"):
        load_kernel(p)


def test_yaml_syntax_errors_keep_their_message_and_line(tmp_path):
    p = tmp_path / "s.yaml"
    p.write_text("name: s\ninstructions:\n  - {id: a, class: x}\n  - id: b: c\n")
    with pytest.raises(PipeperfError, match=r"s\.yaml:4: invalid YAML: mapping values are not allowed here"):
        load_kernel(p)


def test_json_syntax_errors_name_their_line(tmp_path):
    p = tmp_path / "s.json"
    p.write_text('{"name": "s",\n "instructions": [\n  {"id": "a", "class": "x"},\n ]}\n')
    with pytest.raises(PipeperfError, match=r"s\.json:4: invalid JSON"):
        load_kernel(p)


@pytest.mark.parametrize("text", [
    "a: 1", "", "- [1, 2.5, true, null, 2001-12-14, '3', 0x10, .inf]",
    "a: &x {b: 1}\nc: *x\nd:\n  <<: *x\n  e: 2", "!!set {a, b}", "x: !!binary aGk=",
    "a: {b: [c, {d: e}]}\n'f': \"g\"", "? [1]\n: 2", "a: !foo 1", "a: 1\na: 2",
])
def test_loads_fast_reads_what_safe_load_reads(text):
    try:
        want = yaml.safe_load(text)
    except yaml.YAMLError:
        with pytest.raises(yaml.YAMLError):
            loads_fast(text)
        return
    assert loads_fast(text) == want


def test_loads_fast_keeps_aliases_shared():
    d = loads_fast("a: &x {b: [1]}\nc: *x\n")
    assert d["a"] is d["c"]


def _gpu_text(extra=""):
    return ("name: toy\ncores: 2\nclock_ghz: 1.0\nissue_limit: 1\nclasses:\n"
            "  comp: {subsystem: alu, cpi: 1, latency: 4}\n"
            "  mem:\n    subsystem: mem\n    cpi: 1\n    latency: 400\n" + extra)


def test_gpu_yaml_error_names_its_line(tmp_path):
    p = tmp_path / "g.yaml"
    p.write_text(_gpu_text().replace("latency: 400", "latency: -1"))
    with pytest.raises(PipeperfError, match=r"g\.yaml:8: class 'mem': latency must be >= 0"):
        load_gpu(p)
    p.write_text(_gpu_text("memory:\n  l2_bytes: 1024\n  l9_bytes: 3\n"))
    with pytest.raises(PipeperfError, match=r"g\.yaml:12: memory: unknown key 'l9_bytes'"):
        load_gpu(p)


def test_gpu_yaml_error_in_a_based_spec_names_its_file_and_line(tmp_path):
    (tmp_path / "base.yaml").write_text(_gpu_text())
    p = tmp_path / "child.yaml"
    p.write_text("name: child\nbase: base.yaml\nclasses:\n  mem: {subsystem: mem, cpi: 0, latency: 1}\n")
    with pytest.raises(PipeperfError, match=r"child\.yaml:4: class 'mem': cpi must be > 0"):
        load_gpu(p)
    p.write_text("name: child\nbase: base.yaml\nclasses:\n  fma: {subsystem: alu, cpi: 1, latency: 4}\n")
    (tmp_path / "base.yaml").write_text(_gpu_text().replace("cpi: 1\n    latency", "cpi: x\n    latency"))
    with pytest.raises(PipeperfError, match=r"base\.yaml:8: class 'mem': 'cpi' must be a number"):
        load_gpu(p)


def test_a_valid_gpu_spec_is_not_parsed_for_lines(monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("line tracking on a valid file")
    monkeypatch.setattr(yamlio, "_tracked", refuse)
    assert load_gpu("hopper_h200").name                    # a spec with a base


def _all_lines(tree):
    out, stack = [], [tree]
    while stack:
        t = stack.pop()
        if isinstance(t, dict):
            out.append((t.line, sorted(t.key_lines.items(), key=str)))
            stack.extend(t.values())
        elif isinstance(t, list):
            out.append((t.line, t.item_lines))
            stack.extend(t)
    return out


@pytest.mark.slow
def test_libyaml_line_tracking_gives_the_pure_loaders_lines():
    from pathlib import Path
    from pipeperf.hardware.spec import GPU_DIR
    texts = [p.read_text() for p in sorted(GPU_DIR.glob("*.yaml")) + sorted(Path("examples/idg").glob("*.yaml"))]
    texts += [_yaml_text(_kernel_dict(300)), json.dumps(_kernel_dict(300), indent=1)]
    for text in texts:
        assert _all_lines(yaml.load(text, Loader=yamlio._FastLineLoader)) == _all_lines(loads_lines(text))


def _plain(n=300, seed=5):
    """A program-written JSON IDG: one IDG of id/class/deps nodes (no barrier key)."""
    nodes = [{k: v for k, v in node.items() if k != "barrier"} for node in _instructions(n, seed)]
    nodes[7]["class"] = "bar_sync"           # a barrier by class, which the scan keeps
    return {"name": "plain", "instructions": nodes}


def _scanned_and_json(tmp_path, text, name="k.json"):
    """The C scan's kernel (None when it declines) and json's, for the same file."""
    from pipeperf.idg import io
    p = tmp_path / name
    p.write_text(text)
    fast = io._scanned_json(p)
    assert io._c_scan_json is not None, "the C extension is built by setup.py"
    return fast, parse_kernel(yamlio.load_document(p))


@pytest.mark.parametrize("layout", ["indented", "compact", "deps-first", "no-name", "crlf", "unicode"])
def test_the_json_scan_gives_the_kernel_json_gives(tmp_path, layout):
    d = _plain()
    if layout == "deps-first":
        d["instructions"] = [dict(reversed(list(node.items()))) for node in d["instructions"]]
        d = {"instructions": d["instructions"], "name": d["name"]}
    if layout == "no-name":
        del d["name"]
    if layout == "unicode":
        d["name"] = "noyau-é"
        for node in d["instructions"][:20]:
            node["id"] += "µ"
        for node in d["instructions"][:40]:
            node["deps"] = [x + "µ" if int(x[1:]) < 20 else x for x in node.get("deps", [])]
    text = json.dumps(d, indent=None if layout == "compact" else 1, ensure_ascii=False)
    if layout == "crlf":
        text = text.replace("\n", "\r\n\t")
    fast, ref = _scanned_and_json(tmp_path, text)
    assert fast is not None
    _same(fast, ref)
    assert fast.name == ("k" if layout == "no-name" else d["name"])


@pytest.mark.parametrize("change", [
    lambda d: d["instructions"][3].update(barrier=True),            # a key the scan leaves to Python
    lambda d: d["instructions"][3].update(id="a\\u0062"),            # an escape
    lambda d: d.update(name=7),                                      # a name that is not a string
    lambda d: d.update(warp_classes=[]),                             # another top-level key
    lambda d: d["instructions"][5].update(deps=["i9"]),              # a forward dependence
    lambda d: d["instructions"][5].update(deps=["i3", "i1"]),        # unsorted
    lambda d: d["instructions"][5].update(deps=["nope"]),            # a missing id
    lambda d: d["instructions"][6].update(id="i2"),                  # an id twice
    lambda d: d["instructions"][6].pop("class"),                     # no class
])
def test_the_json_scan_leaves_anything_else_to_json(tmp_path, change):
    d = _plain(20)
    change(d)
    text = json.dumps(d, indent=1).replace("\\\\u0062", "\\u0062")
    from pipeperf.idg import io
    p = tmp_path / "k.json"
    p.write_text(text)
    assert io._scanned_json(p) is None
    try:                                     # the loader answers as it did: a kernel or its error
        got = load_kernel(p)
    except PipeperfError as exc:
        with pytest.raises(PipeperfError) as ref:
            _reference(p)
        assert str(exc) == str(ref.value)
    else:
        _same(got, _reference(p))


@pytest.mark.parametrize("text", ['{"instructions": [{"id": "a", "class": "x"}', '{"instructions": []}',
                                  '{"instructions": [{"id": "a", "class": "x"}]} trailing', '',
                                  '{"instructions": [{"id": "a", "class": "x",}]}', '\ufeff{"instructions": []}'])
def test_malformed_json_is_named_by_json_not_the_scan(tmp_path, text):
    p = tmp_path / "bad.json"
    p.write_text(text)
    from pipeperf.idg import io
    assert io._scanned_json(p) is None
    with pytest.raises(PipeperfError, match=r"bad\.json"):
        load_kernel(p)

"""``pipeperf tune`` on Dask: a local cluster of worker processes with a progress display, the
results cache (a re-run with two more variants computes only those), and a real scheduler with
two worker processes one of which is SIGKILLed mid-run, losing no result."""

from __future__ import annotations

import io
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip("distributed")
pyarrow = pytest.importorskip("pyarrow")

import pyarrow.parquet as pq  # noqa: E402

from pipeperf.cli.main import main  # noqa: E402

pytestmark = pytest.mark.slow


SPACE = Path(__file__).parent / "matmul_small.yaml"
SRC = str(Path(__file__).parents[2] / "src")


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_tune_on_local_cluster_then_only_the_new_variants(tmp_path, monkeypatch, capsys):
    cache, out, plot = tmp_path / "cache", tmp_path / "tune.parquet", tmp_path / "tune.png"
    tty = _Tty()
    monkeypatch.setattr(sys, "stderr", tty)               # a person at a terminal: the progress bar shows
    rc = main(["tune", str(SPACE), "--constraint", "TILE * BY < 256", "--workers", "2", "--cache-dir", str(cache),
               "--out", str(out), "--plot", str(plot), "--top", "3"])
    text = capsys.readouterr().out
    assert rc == 0, text
    assert "40 variants (14 excluded by constraints) x 3 GPUs: 78 predicted, 0 failed; 78 computed, 0 from the cache" in text
    assert "ran on Dask, a local cluster of 2 worker processes: 4 compile units, 26 analysis tasks" in text
    bar = tty.getvalue()                                  # tqdm's bar (its last state may be throttled away)
    assert "tune: " in bar and "/26 [" in bar and "launch" in bar
    for gpu in ("ampere_a100", "ampere_a100_80gb", "hopper_h100"):
        assert f"{gpu}: best 3 of 26" in text
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rows = pq.read_table(out).to_pylist()
    assert len(rows) == 40 * 3
    ok = [r for r in rows if r["status"] == "ok"]
    assert len(ok) == 78 and all(r["time_us"] > 0 and 0 < r["occupancy_pct"] <= 100 and r["bound"] for r in ok)
    assert sorted(r["rank"] for r in ok if r["gpu"] == "hopper_h100") == list(range(1, 27))
    assert {r["reason"] for r in rows if r["status"] == "excluded"} == \
        {"constraint BY <= TILE is false", "constraint TILE * BY < 256 is false"}

    # the space extended by two variants (TILE=16, BY=16, PAD 0/1): only those are computed
    rc = main(["tune", str(SPACE), "--workers", "2", "--cache-dir", str(cache), "--out", str(out)])
    text = capsys.readouterr().out
    assert rc == 0, text
    assert "28 variants... " not in text
    assert "40 variants (12 excluded by constraints) x 3 GPUs: 84 predicted, 0 failed; 6 computed, 78 from the cache" in text
    assert "1 compile units, 2 analysis tasks" in text
    rows = pq.read_table(out).to_pylist()
    fresh = {(r["TILE"], r["BY"], r["PAD"]) for r in rows if r["status"] == "ok" and not r["cached"]}
    assert fresh == {(16, 16, 0), (16, 16, 1)}


def _start(args: list[str], log: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    return subprocess.Popen([sys.executable, "-m", "dask", *args], env=env, stdout=log.open("w"),
                            stderr=subprocess.STDOUT, start_new_session=True)


def test_sigkilled_worker_loses_no_result(tmp_path):
    """A real scheduler and two worker processes (``dask scheduler``, ``dask worker --no-nanny``);
    one worker is killed with SIGKILL while it runs an analysis, after results have come back."""
    from distributed import Client

    from pipeperf.tune import tune
    from pipeperf.tune.cache import ResultCache
    from pipeperf.tune.spacefile import CliSpace, load_space

    sf = tmp_path / "scheduler.json"
    client = None
    procs = [_start(["scheduler", "--port", "0", "--no-dashboard", "--scheduler-file", str(sf)], tmp_path / "s.log")]
    try:
        for _ in range(600):
            if sf.exists() and sf.stat().st_size:
                break
            time.sleep(0.1)
        for i in range(2):
            procs.append(_start(["worker", "--scheduler-file", str(sf), "--nthreads", "1", "--no-nanny",
                                 "--no-dashboard", "--memory-limit", "0", "--name", f"w{i}"], tmp_path / f"w{i}.log"))
        client = Client(scheduler_file=str(sf), timeout="60s")
        client.wait_for_workers(2, timeout=120)
        address = client.scheduler.address
        pids = client.run(os.getpid)                        # worker address -> its process
        assert sorted(pids.values()) == sorted(p.pid for p in procs[1:])
        space = replace(load_space(str(SPACE), CliSpace()), gpus=("ampere_a100", "hopper_h100"))   # 28 x 2
        cache = ResultCache(tmp_path / "results")
        done: dict = {}

        def run() -> None:
            try:
                done["r"] = tune(space, address, None, cache)
            except BaseException as e:          # shown by the assertion below
                done["error"] = e

        th = threading.Thread(target=run, daemon=True)
        th.start()
        killed = None
        db = tmp_path / "results" / "results.sqlite"
        while th.is_alive() and killed is None:
            time.sleep(0.05)
            try:
                stored = sqlite3.connect(str(db)).execute("SELECT COUNT(*) FROM results").fetchone()[0]
            except sqlite3.Error:
                continue
            busy = {a: keys for a, keys in client.processing().items()
                    if any(str(k).startswith("pipeperf-analyze") for k in keys)}
            if stored >= 3 and busy:
                killed = next(iter(busy))
                os.kill(pids[killed], signal.SIGKILL)
        assert killed is not None, f"the tune ended before a worker could be killed mid-run: {done}"
        th.join(timeout=300)
        assert not th.is_alive() and "error" not in done, done
        rows = done["r"].result.rows
        assert len(rows) == 40 * 2
        statuses = [r.outcome.status for r in rows]
        assert statuses.count("ok") == 28 * 2 and statuses.count("excluded") == 12 * 2, statuses
        assert done["r"].result.computed == 28 * 2
        assert list(client.scheduler_info()["workers"]) != [] and killed not in client.scheduler_info()["workers"]
    finally:
        if client is not None:
            client.close()
        for p in reversed(procs):
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    p.kill()

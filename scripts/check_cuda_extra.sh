#!/usr/bin/env bash
# Check that `pip install "pipeperf[cuda]"` is all a machine without a CUDA install needs: in a fresh
# venv, install this checkout with the cuda extra (NVIDIA's nvcc/ptxas/nvdisasm wheels), then run
# the README's first `pipeperf analyze` command with a PATH that has no nvcc, ptxas or nvdisasm
# (and no $CUDA_HOME), and check that the wheels' nvcc was the one used and the analysis worked.
# Needs the network (PyPI) and a host compiler (gcc); takes a few minutes, downloads ~120 MB.
# Not part of the test suite.
#
# Usage: scripts/check_cuda_extra.sh [WORK_DIR]     (default: a temporary folder, removed after)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-}
if [ -z "$work" ]; then
    work=$(mktemp -d -t pipeperf-cuda-extra-XXXXXX)
    trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work"
venv=$work/venv
export PIP_CACHE_DIR=$work/pip-cache        # an empty pip cache: everything is really downloaded
export PIPEPERF_CACHE_DIR=$work/pipeperf-cache
unset CUDA_HOME CUDA_PATH

t0=$(date +%s)
python3 -m venv "$venv"
# the extra's wheels first, into a folder of their own (to weigh the download), then the install
pins=$(python3 -c 'import sys, tomllib; print(" ".join(tomllib.load(open(sys.argv[1], "rb"))["project"]["optional-dependencies"]["cuda"]))' "$repo/pyproject.toml")
"$venv/bin/python" -m pip download -q --progress-bar off --no-deps -d "$work/wheels" $pins
"$venv/bin/python" -m pip install -q --progress-bar off --find-links "$work/wheels" "$repo[cuda]"
t1=$(date +%s)
nvidia=$("$venv/bin/python" -c 'import sys, pathlib; print(next(p for p in (pathlib.Path(x) / "nvidia" for x in sys.path) if p.is_dir()))')
echo "install: $((t1 - t0)) s; the cuda extra's wheels: $(du -sh "$work/wheels" | cut -f1) downloaded, $(du -sh "$nvidia" | cut -f1) installed"

# PATH without the CUDA tools: links to everything in /usr/local/bin but them, then /usr/bin:/bin
shims=$work/bin
mkdir -p "$shims"
for f in /usr/local/bin/*; do
    case "$(basename "$f")" in nvcc|ptxas|nvdisasm) ;; *) ln -sf "$f" "$shims/" ;; esac
done
export PATH="$venv/bin:$shims:/usr/bin:/bin"
for tool in nvcc ptxas nvdisasm; do
    if command -v "$tool" >/dev/null; then echo "FAIL: $tool is still on PATH ($(command -v "$tool"))"; exit 1; fi
done

# the wheels' tools are the ones found
for tool in nvcc ptxas nvdisasm; do
    found=$("$venv/bin/python" -c "from pipeperf.ptx.toolkit import find_tool; print(find_tool('$tool'))")
    case "$found" in "$venv"/*) echo "$tool: $found" ;; *) echo "FAIL: $tool found at $found, not in the venv"; exit 1 ;; esac
done

# the README's first command, from `pipeperf analyze` on
cmd=$(grep -m1 '^python3 -m pip install -e \. && pipeperf analyze' "$repo/README.md" | sed 's/^.*&& //')
[ -n "$cmd" ] || { echo "FAIL: no pipeperf analyze command in the README's first line"; exit 1; }
echo "+ $cmd"
cd "$repo"
t2=$(date +%s)
out=$(eval "$cmd")
t3=$(date +%s)
echo "$out"
echo "analyze: $((t3 - t2)) s (first run: nvcc compiles into an empty cache)"
for want in "predicted time (us)" volta_v100 ampere_a100 hopper_h100 "from a build for sm_75" "from a build for sm_80"; do
    grep -qF "$want" <<<"$out" || { echo "FAIL: the analysis does not say '$want'"; exit 1; }
done
t4=$(date +%s)
eval "$cmd" >/dev/null
echo "analyze again: $(( $(date +%s) - t4 )) s (compiles cached)"
echo "OK: pipeperf[cuda] analyzed the README's kernel with no CUDA tool on PATH"

#!/usr/bin/env bash
# One lent-GPU session's measurements, each part time-boxed, results into $OUT (or ./gpu-session):
#   1. nvidia-smi facts and clocks;
#   2. every application-suite launch timed on this GPU (benchmarks/time_suite_on_gpu.py);
#   3. the campaign's memory, latency, dispatch and atomics steps (pipeperf campaign);
#   4. the microbenchmark-suite launches, as far as their box goes;
#   5. the campaign's calibrate step (lambda/Lambda of the classes), shortened to what is left.
# Usage: bash benchmarks/gpu_session.sh [TOTAL_SECONDS]   (default 460; each part stops in its box)
set -u
TOTAL=${1:-460}
START=$(date +%s)
OUT=${OUT:-$PWD/gpu-session}
mkdir -p "$OUT"
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1
W=/tmp/gpu-session
mkdir -p $W
left() { echo $(( TOTAL - ($(date +%s) - START) )); }
pack() { rm -rf $W/measurements; cp -r data/measurements $W/ 2>/dev/null; tar czf "$OUT/results.tar.gz" --exclude='build' --exclude='*.cubin' -C $W . 2>/dev/null; }
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,compute_cap,driver_version,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,memory.total,power.limit,temperature.gpu,pstate --format=csv
  nvcc --version | tail -2
  python3 --version
} > $W/facts.txt 2>&1
cat $W/facts.txt

echo "== app suite ($(left) s left)"
timeout 230 python3 benchmarks/time_suite_on_gpu.py --families app --out $W/app --budget-s 200 --jobs 16 \
  > $W/app.log 2>&1
tail -3 $W/app.log; pack

echo "== campaign memory steps ($(left) s left)"
timeout 100 python3 -m pipeperf campaign --budget-minutes 1.6 \
  --step device --step dram --step latency --step l2 --step dispatch --step atomics \
  > $W/campaign.log 2>&1
tail -8 $W/campaign.log; pack

echo "== micro suite ($(left) s left)"
B=$(( $(left) - 200 )); [ $B -gt 20 ] && timeout $(( B + 30 )) python3 benchmarks/time_suite_on_gpu.py \
  --families micro --out $W/micro --budget-s $B --jobs 16 --reps 5 > $W/micro.log 2>&1
tail -2 $W/micro.log; pack

echo "== calibrate ($(left) s left)"
M=$(python3 -c "print(max(0.5, ($(left) - 15) / 60))")
timeout $(( $(left) - 5 )) python3 -m pipeperf campaign --budget-minutes $M --step calibrate \
  > $W/calibrate.log 2>&1
tail -4 $W/calibrate.log; pack
ls -la "$OUT"; echo "done in $(( $(date +%s) - START )) s"

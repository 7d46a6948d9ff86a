#!/usr/bin/env bash
# The figures of docs/campaign.md "Slurm against the local engine, and the shared
# calibration": the four samples twice (8 experiments) with the local engine (-j 2)
# and on the one-node Slurm (scripts/slurm-local.sh start first), each calibrating
# itself (calibration: each) and sharing (auto), then the runs alone. Prints each
# command's wall time and the load average, and whether the tables agree.
#
#   scripts/campaign-slurm-bench.sh [WORKDIR]     # default: a new folder in /tmp
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/build/impactcv
w=${1:-$(mktemp -d /tmp/campaign-slurm-bench.XXXXXX)}
eval "$("$root/scripts/slurm-local.sh" status | head -1 | sed 's/^/export /')"
mkdir -p "$w/e"
cd "$w"
for s in 01_rod_slope45_stereo 02_rod_drop_level_stereo 03_rod_drop_planar 04_highspeed_1000fps; do
  for k in a b; do
    rm -rf "e/${s}_$k"
    cp -r "$root/sample_videos/$s" "e/${s}_$k"
    sed -i "s/^name: .*/name: ${s}_$k/" "e/${s}_$k/experiment.yaml"
  done
done
printf 'name: eight\nexperiments: ["e/*/experiment.yaml"]\n' >auto.yaml
printf 'name: eight\ncalibration: each\nexperiments: ["e/*/experiment.yaml"]\n' >each.yaml

m() {
  local label=$1 l0 t0 t1 rc=0
  shift
  l0=$(cut -d' ' -f1 /proc/loadavg)
  t0=$(date +%s.%N)
  "$@" >"$label.out" 2>"$label.err" || rc=$?
  t1=$(date +%s.%N)
  printf '%-12s status %d  wall %6.2f s  load %s -> %s\n' "$label" "$rc" "$(echo "$t1 - $t0" | bc)" "$l0" \
    "$(cut -d' ' -f1 /proc/loadavg)"
}
rm -rf o_*
m local_each "$bin" campaign each.yaml -o o_local_each -j 2
m slurm_each "$bin" campaign each.yaml -o o_slurm_each --engine slurm --wait
m local_auto "$bin" campaign auto.yaml -o o_local_auto -j 2
m slurm_auto "$bin" campaign auto.yaml -o o_slurm_auto --engine slurm --wait
mkdir -p o_local_runs o_slurm_runs
cp -r o_local_auto/calibration o_local_runs/
cp -r o_local_auto/calibration o_slurm_runs/
m local_runs "$bin" campaign auto.yaml -o o_local_runs -j 2
m slurm_runs "$bin" campaign auto.yaml -o o_slurm_runs --engine slurm --wait
m uptodate "$bin" campaign auto.yaml -o o_slurm_runs --engine slurm --wait
for a in each auto runs; do
  if cmp -s "o_local_$a/validation.csv" "o_slurm_$a/validation.csv" &&
    cmp -s "o_local_$a/validation.md" "o_slurm_$a/validation.md"; then
    echo "$a: the tables of both engines are byte-identical"
  else
    echo "$a: the tables DIFFER"
  fi
done
grep -h "computed once" local_auto.err | sed 's/ (.*//'
# the slurm runs' timeline: each task's start (marker) and end (result), s after submission
(cd o_slurm_runs/.slurm && ls --time-style=+%s.%N -l -- *_submitted *.marker *.result *_gather.status |
  awk '{print $6, $7}' | sort -n | awk 'NR==1{t0=$1} {printf "  %6.2f %s\n", $1-t0, $2}')
echo "runs' own seconds: $(cat o_slurm_runs/.slurm/*.result | awk '{s+=$2} END {print s}')"
echo "in $w"

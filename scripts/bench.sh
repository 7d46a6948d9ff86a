#!/usr/bin/env bash
# make bench: runs every benchmark binary given (bench/bench_*.c), each printing
# its figures and their ratio to the reference (goal, decode-only, ffmpeg CLI).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -eq 0 ]; then
  echo "no benchmarks yet"
  exit 0
fi
for b in "$@"; do
  echo "== ${b##*/}"
  "$b"
done

#!/usr/bin/env bash
# make fuzz: runs each libFuzzer harness SECONDS seconds from its seed corpus.
# usage: scripts/fuzz.sh SECONDS build-fuzz/tests/fuzz/fuzz_NAME...
# The seeds (tests/fuzz/corpus/NAME/) are only read: inputs libFuzzer finds go to
# build-fuzz/corpus/NAME/ (kept between runs, so a later run starts further on), a
# crashing input to build-fuzz/crashes/. Exits 1 when any harness found a crash, a
# leak, a sanitizer report, a timeout or an out-of-memory; prints one line per harness.
set -uo pipefail
cd "$(dirname "$0")/.."
secs=$1
shift
mkdir -p build-fuzz/crashes build-fuzz/logs
# One-line figures; -timeout: an input running 25 s is a hang, a finding as a crash is.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
failed=()
for bin in "$@"; do
  name=$(basename "$bin")
  name=${name#fuzz_}
  seeds=tests/fuzz/corpus/$name
  work=build-fuzz/corpus/$name
  log=build-fuzz/logs/$name.log
  mkdir -p "$work"
  [ -d "$seeds" ] || { echo "fuzz: $name: no seed corpus $seeds" >&2; failed+=("$name"); continue; }
  "$bin" -max_total_time="$secs" -timeout=25 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="build-fuzz/crashes/$name-" "$work" "$seeds" >"$log" 2>&1
  rc=$?
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  cov=$(echo "$last" | grep -o 'cov: [0-9]*')
  ft=$(echo "$last" | grep -o 'ft: [0-9]*')
  eps=$(echo "$last" | grep -o 'exec/s: [0-9]*')
  if [ $rc -ne 0 ]; then
    echo "fuzz: $name: FAILED (exit $rc) after ${runs:-?} runs; see $log and build-fuzz/crashes/$name-*" >&2
    grep -m3 -E 'ERROR: |runtime error:|SUMMARY:' "$log" >&2
    failed+=("$name")
  else
    echo "fuzz: $name: clean, ${runs:-?} runs in ${secs} s (${eps:-exec/s: ?}; ${cov:-cov: ?}, ${ft:-ft: ?})"
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: ${#failed[@]} harness(es) failed: ${failed[*]}" >&2
  exit 1
fi

#!/bin/sh
# make realdata: runs `impactcv run` on every real clip under examples/real/ (each
# reads its video from ../shared/data) and prints one table: clip, |g|, the pre-impact
# speed, e and the energy loss per bounce, each with its 1-sigma, the reference the clip
# can be compared with (its experiment.yaml's "# reference:" line) and whether it
# agrees. A run that stops prints its line and what the track stage measured (the
# scale from the ball's size and the free flight's |g| at it). Skips, saying so, when
# ../shared/data is absent. Needs jq.
# Usage: scripts/realdata.sh IMPACTCV_BINARY
set -u
BIN=${1:?usage: scripts/realdata.sh IMPACTCV_BINARY}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SHARED=${ICV_SHARED:-$ROOT/../shared}
if [ ! -d "$SHARED/data/real" ]; then
    echo "realdata: SKIP: $SHARED/data/real is absent (a fresh clone has no shared data)"
    exit 0
fi
OUT=${REALDATA_OUT:-$(mktemp -d /tmp/icv-realdata-XXXXXX)}
for exp in "$ROOT"/examples/real/*/experiment.yaml; do
    clip=$(basename "$(dirname "$exp")")
    ref=$(sed -n 's/^# reference: //p' "$exp" | head -1)
    agree=$(sed -n 's/^# agrees when: //p' "$exp" | head -1)
    dir="$OUT/$clip"
    echo "== $clip"
    echo "   reference: $ref"
    if (cd "$(dirname "$exp")" && "$BIN" -q run experiment.yaml -o "$dir" >"$OUT/$clip.log" 2>&1); then
        jq -r '
          def pm(v; s): "\(v * 1000 | round / 1000) +- \(s * 1000 | round / 1000)";
          def norm(v): v | map(. * .) | add | sqrt;
          "   |g| m/s^2: " + pm(norm(.gravity); norm(.gravity_sd)),
          (.impacts | to_entries[] |
            "   impact \(.key): t \(.value.time_s * 1000 | round / 1000) s, pre speed " +
            pm(norm(.value.pre.v); norm(.value.uncertainty.v_pre)) + " m/s, e " +
            pm(.value.e_kinematic; .value.uncertainty.e_kinematic) + ", energy loss " +
            pm(.value.energy.loss_fraction; .value.uncertainty.loss_fraction))' "$dir/results.json"
        echo "   agrees when: $agree (compare by eye; tests/cli/test_realdata.c asserts what is met)"
    else
        echo "   stopped: $(grep -v '^warning' "$OUT/$clip.log" | tail -1 | cut -c1-220)"
    fi
    ti="$dir/track_info.json"
    [ -f "$ti" ] || (cd "$(dirname "$exp")" && "$BIN" -q track experiment.yaml -o "$dir" >/dev/null 2>&1)
    if [ -f "$ti" ]; then
        jq -r '
          (.scale_from_size // empty | "   track: scale from the ball size: \(.diameter_px * 100 | round / 100) px across (\(.diameter_m) m) over \(.frames) frames, factor \(.factor) +- \(.factor_sd)"),
          (.scale_check_gravity // empty | "   track: the free flight at that scale falls at \(9.81 / .factor * 1000 | round / 1000) m/s^2 (+- \(9.81 * .factor_sd / .factor / .factor * 1000 | round / 1000), \(.phases) phases)")' "$ti"
    fi
done
echo "runs in $OUT"

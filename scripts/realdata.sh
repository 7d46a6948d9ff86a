#!/bin/sh
# make realdata: runs `impactcv run` on every real clip under examples/real/ (each
# reads its video from ../shared/data) and prints one table: clip, |g|, the pre-impact
# speed, e per bounce, the energy loss, each with sigma, the reference and whether it
# agrees. Skips, saying so, when ../shared/data is absent. Needs jq.
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
printf '%-12s %-16s %-34s %-22s %-40s %s\n' clip '|g| m/s^2' 'e per bounce (+-sigma)' 'energy loss' reference agrees
for exp in "$ROOT"/examples/real/*/experiment.yaml; do
    clip=$(basename "$(dirname "$exp")")
    ref=$(sed -n 's/^# reference: //p' "$exp" | head -1)
    dir="$OUT/$clip"
    if ! (cd "$(dirname "$exp")" && "$BIN" -q run experiment.yaml -o "$dir" >"$OUT/$clip.log" 2>&1); then
        why=$(grep -v '^warning' "$OUT/$clip.log" | tail -1 | cut -c1-160)
        printf '%-12s stopped: %s\n' "$clip" "$why"
        continue
    fi
    r="$dir/results.json"
    g=$(jq -r '(.gravity_magnitude // ((.gravity // [0,0,0]) | map(.*.) | add | sqrt)) | tostring' "$r")
    e=$(jq -r '[.impacts[]? | "\(.e_kinematic // "?" | tostring | .[0:5])+-\(.e_kinematic_sd // "?" | tostring | .[0:5])"] | join(" ")' "$r")
    loss=$(jq -r '[.impacts[]? | (.energy_loss // "?") | tostring | .[0:6]] | join(" ")' "$r")
    printf '%-12s %-16s %-34s %-22s %-40s %s\n' "$clip" "$g" "$e" "$loss" "$ref" "see log"
done
echo "runs in $OUT"

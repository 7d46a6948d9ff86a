#!/bin/sh
# make realdata: runs `impactcv run` on every real clip under examples/real/ (each
# reads its video from ../shared/data) and prints one table: clip, |g|, the pre-impact
# speed, e and the energy loss per bounce, each with its 1-sigma, the reference the clip
# can be compared with (its experiment.yaml's "# reference:" line) and whether it
# agrees. Clips of several bodies print per body-body collision: Newton's ratio between
# the bodies, the total momentum before and after per axis with their sigmas and the
# change against its own sigma, and the energy lost. A clip with a hand track
# ("# hand track: CSV PX_PER_M" and one "# hand fit: BODY,TRACK,FIRST,LAST,DEGREE,T"
# per body) compares each body's velocity at T (a line or a parabola over frames
# FIRST-LAST, fitted alike to ours and to the hand track's pixels at PX_PER_M). A run
# that stops prints its line and what the track stage measured (the scale from the
# ball's size and the free flight's |g| at it). Skips, saying so, when ../shared/data
# is absent. Needs jq.
# Usage: scripts/realdata.sh IMPACTCV_BINARY
set -u
BIN=${1:?usage: scripts/realdata.sh IMPACTCV_BINARY}
# the runs change directory: a relative path to the binary is made absolute first
BIN=$(realpath "$BIN")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SHARED=${ICV_SHARED:-$ROOT/../shared}
if [ ! -d "$SHARED/data/real" ]; then
    echo "realdata: SKIP: $SHARED/data/real is absent (a fresh clone has no shared data)"
    exit 0
fi
OUT=${REALDATA_OUT:-$(mktemp -d /tmp/icv-realdata-XXXXXX)}
mkdir -p "$OUT"
# results.json of several bodies: each body-body impact (docs/analysis.md, Several bodies)
BODY_BODY='
  def r(v; k): (v * pow(10; k) | round) / pow(10; k);
  def pm(o; k): "\(r(o.value; k)) +- \(r(o.sd; k))";
  def g(v): r(v * 1000; 3);
  (.impacts // [])[] | select(.kind == "body_body") |
    "   impact \(.bodies[0])-\(.bodies[1]) at t \(r(.time_s; 4)) s (frame \(.frame)): e \(pm(.e_newton; 3)), impulse ratio \(pm(.impulse_ratio; 3)), energy lost \(r(.energy.loss_fraction.value * 100; 1))% +- \(r(.energy.loss_fraction.sd * 100; 1))%",
    (. as $im | range(0; 3) as $i | select($i < 2 or $im.momentum.pre.value[2] != 0 or $im.momentum.post.value[2] != 0) |
      "      momentum \(["x", "y", "z"][$i]): before \(g($im.momentum.pre.value[$i])) +- \(g($im.momentum.pre.sd[$i])), after \(g($im.momentum.post.value[$i])) +- \(g($im.momentum.post.sd[$i])) g m/s; after - before \(g($im.impulse_mismatch.value[$i])) +- \(g($im.impulse_mismatch.sd[$i])) (\(r(($im.impulse_mismatch.value[$i] / $im.impulse_mismatch.sd[$i]) | fabs; 1)) sigma)")'
# a body's velocity against a hand track: fit = BODY,TRACK,FIRST,LAST,DEGREE,T; the hand
# track CSV (track,mass_kg,frame,t_s,x_px,y_px) at pxm px/m, then tracks3d.csv (frame,
# time_s, every body's markers body after body: one-marker bodies, so body k's is m<k>,
# k = its place in bodies:, or a column <body>.m0..x where one is named). Least squares
# by the normal equations.
HAND_FIT='
  function solve(n,   i, j, k, f, t) {   # A c = b, Gaussian elimination, n <= 3
    for (i = 0; i < n; i++) for (k = i + 1; k < n; k++) {
      f = A[k, i] / A[i, i]; for (j = 0; j < n; j++) A[k, j] -= f * A[i, j]; b[k] -= f * b[i] }
    for (i = n - 1; i >= 0; i--) { t = b[i]; for (j = i + 1; j < n; j++) t -= A[i, j] * c[j]; c[i] = t / A[i, i] }
  }
  function vel(ts, xs, m, deg,   i, j, k, n) {   # velocity at T of the fitted polynomial
    n = deg + 1
    for (i = 0; i < n; i++) { b[i] = 0; for (j = 0; j < n; j++) A[i, j] = 0 }
    for (k = 0; k < m; k++) for (i = 0; i < n; i++) {
      b[i] += xs[k] * ts[k] ^ i; for (j = 0; j < n; j++) A[i, j] += ts[k] ^ (i + j) }
    solve(n); return deg == 2 ? c[1] + 2 * c[2] * T : c[1]
  }
  BEGIN { FS = ","; nh = no = 0; split(fit, p, ","); body = p[1]; track = p[2]; f0 = p[3] + 0; f1 = p[4] + 0; deg = p[5] + 0; T = p[6] + 0 }
  FNR == 1 { file++; if (file == 2) for (i = 1; i <= NF; i++) if ((index($i, body ".m0") == 1 || $i == "m" k "_x") && $i ~ /x$/ && !col) col = i; next }
  file == 1 && $1 == track && $3 >= f0 && $3 <= f1 { ht[nh] = $4; hx[nh++] = $5 / pxm }
  file == 2 && col && $1 >= f0 && $1 <= f1 && $col != "" { ot[no] = $2; ox[no++] = $col }
  END {
    kind = deg == 2 ? "parabola" : "line"
    if (!col || no < deg + 2) { printf "   %s: not in tracks3d.csv over frames %d-%d (%d positions)\n", body, f0, f1, no; exit }
    vh = vel(ht, hx, nh, deg); vo = vel(ot, ox, no, deg)
    printf "   %s against the hand track \"%s\" (a %s over frames %d-%d): v at %g s ours %.4f m/s (%d frames), hand %.4f m/s: %+.2f%%\n", body, track, kind, f0, f1, T, vo, no, vh, 100 * (vo / vh - 1)
  }'

for exp in "$ROOT"/examples/real/*/experiment.yaml; do
    clip=$(basename "$(dirname "$exp")")
    ref=$(sed -n 's/^# reference: //p' "$exp" | head -1)
    agree=$(sed -n 's/^# agrees when: //p' "$exp" | head -1)
    dir="$OUT/$clip"
    echo "== $clip"
    echo "   reference: $ref"
    if (cd "$(dirname "$exp")" && "$BIN" -q run experiment.yaml -o "$dir" >"$OUT/$clip.log" 2>&1); then
        if jq -e 'has("bodies")' "$dir/results.json" >/dev/null 2>&1; then
            jq -r "$BODY_BODY" "$dir/results.json"
        else
            jq -r '
          def pm(v; s): "\(v * 1000 | round / 1000) +- \(s * 1000 | round / 1000)";
          def norm(v): v | map(. * .) | add | sqrt;
          "   |g| m/s^2: " + pm(norm(.gravity); norm(.gravity_sd)),
          (.flights // [] | .[] | select($nimp == 0) |
            "   flight frames \(.frames[0])-\(.frames[1]): launch " + pm(.speed; .uncertainty.speed) + " m/s at " +
            pm(.angle_deg; .uncertainty.angle_deg) + " degrees"),
          (.impacts | to_entries[] |
            "   impact \(.key): t \(.value.time_s * 1000 | round / 1000) s, pre speed " +
            pm(norm(.value.pre.v); norm(.value.uncertainty.v_pre)) + " m/s, e " +
            pm(.value.e_kinematic; .value.uncertainty.e_kinematic) + ", energy loss " +
            pm(.value.energy.loss_fraction; .value.uncertainty.loss_fraction))' --argjson nimp "$(jq '.impacts | length' "$dir/results.json")" "$dir/results.json"
        fi
        echo "   agrees when: $agree (compare by eye; tests/cli/test_realdata.c asserts what is met)"
    else
        echo "   stopped: $(grep -v '^warning' "$OUT/$clip.log" | tail -1 | cut -c1-220)"
    fi
    hand=$(sed -n 's/^# hand track: //p' "$exp" | head -1)
    if [ -n "$hand" ]; then
        [ -f "$dir/tracks3d.csv" ] || (cd "$(dirname "$exp")" && "$BIN" -q track experiment.yaml -o "$dir" >/dev/null 2>&1)
        if [ -f "$dir/tracks3d.csv" ]; then
            sed -n 's/^# hand fit: //p' "$exp" | while IFS= read -r fit; do
                k=$(sed -n 's/^  - name: *//p' "$exp" | grep -n -x -F "${fit%%,*}" | cut -d: -f1)
                (cd "$(dirname "$exp")" && awk -v fit="$fit" -v k=$((${k:-1} - 1)) -v pxm="${hand##* }" "$HAND_FIT" "${hand% *}" "$dir/tracks3d.csv")
            done
        else
            echo "   hand track: no tracks3d.csv (the track stage stopped)"
        fi
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

#!/bin/bash
# analyze_truth_rerun.sh BIN SRC DST: as analyze_rerun.sh, plus `analyze --truth`'s verdict (exit status and
# its last line) in DST/seedN/verdict
BIN=$1; SRC=$2; DST=$3
mkdir -p $DST
for d in $SRC/seed*; do
  s=$(basename $d)
  read a b c < $d/status 2>/dev/null || continue
  [ "$a" = 0 ] && [ -f $d/out/results.json ] || continue
  mkdir -p $DST/$s/out
  [ -e $DST/$s/exp ] || cp -al $d/exp $DST/$s/exp
  cp $d/status $DST/$s/status
  for f in tracks3d.csv tracks3d_quality.csv track_info.json; do [ -f $d/out/$f ] && cp $d/out/$f $DST/$s/out/; done
  ( cd $DST/$s && timeout 60 $BIN -q analyze exp/experiment.yaml --tracks out/tracks3d.csv -o out --truth exp/truth.json > analyze.log 2>&1; echo "$? $(tail -1 analyze.log)" > verdict )
done

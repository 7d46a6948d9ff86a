#!/bin/bash
# analyze_rerun.sh BIN SRC DST: analysis only, again, on each completed scene of a kept scene study
# (SRC/seedN/{status,exp,out}): exp/ hard-linked (cp -al), the tracks files copied, then
# `BIN analyze exp/experiment.yaml --tracks out/tracks3d.csv -o out` in DST/seedN (SRC is not written).
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
  ( cd $DST/$s && timeout 60 $BIN analyze exp/experiment.yaml --tracks out/tracks3d.csv -o out > analyze.log 2>&1; echo $? > analyze.rc )
done

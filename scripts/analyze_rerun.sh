#!/bin/bash
# analyze_rerun.sh BIN SRC DST [--truth]: analysis only, again, on each completed scene of a kept scene study
# (SRC/seedN/{status,exp,out}): exp/ hard-linked (cp -al), the tracks files copied, then
# `BIN analyze exp/experiment.yaml --tracks out/tracks3d.csv -o out` in DST/seedN (SRC is not written).
# With --truth, analyze also compares with exp/truth.json: its verdict (exit status and last line) in
# DST/seedN/verdict.
BIN=$1; SRC=$2; DST=$3; TRUTH=$4
mkdir -p $DST
for d in $SRC/seed*; do
  s=$(basename $d)
  read a b c < $d/status 2>/dev/null || continue
  [ "$a" = 0 ] && [ -f $d/out/results.json ] || continue
  mkdir -p $DST/$s/out
  [ -e $DST/$s/exp ] || cp -al $d/exp $DST/$s/exp
  cp $d/status $DST/$s/status
  for f in tracks3d.csv tracks3d_quality.csv track_info.json; do [ -f $d/out/$f ] && cp $d/out/$f $DST/$s/out/; done
  if [ "$TRUTH" = --truth ]; then
    ( cd $DST/$s && timeout 60 $BIN -q analyze exp/experiment.yaml --tracks out/tracks3d.csv -o out --truth exp/truth.json > analyze.log 2>&1; echo "$? $(tail -1 analyze.log)" > verdict )
  else
    ( cd $DST/$s && timeout 60 $BIN analyze exp/experiment.yaml --tracks out/tracks3d.csv -o out > analyze.log 2>&1; echo $? > analyze.rc )
  fi
done

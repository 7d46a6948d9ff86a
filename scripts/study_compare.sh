#!/bin/bash
# study_compare.sh A B: the seeds whose status changed between two scene-study directories (present in
# both): F failed, C completed out of tolerance, W within; with the scene's one-line description
A=$1; B=$2
for d in $B/seed*; do s=$(basename $d); [ -f $d/status ] && [ -f $A/$s/status ] || continue
 read a1 b1 c1 x y < $A/$s/status; read a2 b2 c2 x y < $d/status
 sa=$([ "$b1" = 0 ] && ([ "$c1" = 0 ] && echo W || echo C) || echo F); sb=$([ "$b2" = 0 ] && ([ "$c2" = 0 ] && echo W || echo C) || echo F)
 [ "$sa" != "$sb" ] && echo "$s $sa -> $sb  $(head -1 $A/$s/exp/scenario.yaml | cut -c3-90)"
done

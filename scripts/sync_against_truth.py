#!/usr/bin/env python3
# sync_against_truth.py STUDYDIR [list]: per stereo scene of a scene study synchronised by its flash, the
# second camera's offset (track_info.json) against truth.json's start_offset_frames (docs/track.md, session 29)
import json, sys, os, glob, statistics
rows = []
for d in sorted(glob.glob(sys.argv[1] + '/seed*/')):
    try:
        t = json.load(open(d + 'exp/truth.json'))
        if len(t['cameras']) < 2: continue
        ti = json.load(open(d + 'out/track_info.json'))
    except Exception: continue
    if ti['sync'].get('source') != 'flash': continue
    o1 = t['cameras'][1].get('start_offset_frames', 0)
    c = ti['cameras'][1]['offset']
    rows.append((os.path.basename(d.rstrip('/')), c['frames'] + o1, c['initial_frames'] + o1, ti['sync'].get('offset_sigma_frames')))
e = [abs(r[1]) for r in rows]
print(len(rows), 'flash-synced stereo scenes: |error| p50 %.3f, beyond 0.05 frame %d, beyond 0.5 %d' % (statistics.median(e), sum(x > 0.05 for x in e), sum(x > 0.5 for x in e)))
if len(sys.argv) > 2:
    for r in rows: print(r[0], '%+.3f' % r[1], 'sd', r[3])

#!/usr/bin/env python3
"""centroid_offset_truth.py SEEDDIR...: per scene and camera, how the tracker treats the offset of a marker's
rendered blob centroid from its projected centre (synth's truth.json: markers_2d_centroid against markers_2d;
the tracker's out/tracks2d_CAM.csv): the least-squares slope k of the tracker's error (tracks2d - centroid) on
that offset over all frames, markers and both image axes, its R^2, and both RMS (px). k -1 with R^2 ~1: the
tracker takes the offset away; another k with R^2 ~1: it leaves (1 + k) times it, a bias that changes slowly
with the body's attitude (docs/analysis.md, "Session 22"); R^2 ~0: its error is not that offset's."""
import json, csv, sys, os
for d in sys.argv[1:]:
    try:
        t = json.load(open(f'{d}/exp/truth.json'))
    except Exception: continue
    if 'markers_2d_centroid' not in t: continue
    out = []
    for cam in t['cameras']:
        m2 = {f['frame']: f['uv'] for f in t['markers_2d'][cam['id']]}
        mc = {f['frame']: f['uv'] for f in t['markers_2d_centroid'][cam['id']]}
        sxx = sxy = syy = 0; n = 0; s_tot = 0
        try: rows = list(csv.DictReader(open(f'{d}/out/tracks2d_{cam["id"]}.csv')))
        except Exception: continue
        for q in rows:
            if not q['u_px']: continue
            f = int(q['frame']); k = int(q['marker'])
            if f not in m2 or k >= len(m2[f]) or m2[f][k] is None or mc[f][k] is None: continue
            for a, key in enumerate(('u_px', 'v_px')):
                cb = mc[f][k][a] - m2[f][k][a]; tr = float(q[key]) - mc[f][k][a]
                sxx += cb * cb; sxy += cb * tr; syy += tr * tr; n += 1
        if n and sxx > 0:
            kk = sxy / sxx; r2 = sxy * sxy / (sxx * syy) if syy > 0 else 0
            out.append('%s k %+.2f R2 %.2f rms cb %.3f tr %.3f px' % (cam['id'], kk, r2, (sxx / n) ** .5, (syy / n) ** .5))
    print(os.path.basename(d), ' | '.join(out))

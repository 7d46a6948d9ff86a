#!/usr/bin/env python3
"""velocity_track_error.py ROOT OUTNAME OUT.json (docs/analysis.md, "Session 17"): For each scene/impact/side: the CoM track error vs truth over the side's window (fits.csv frames),
split into the part a straight-line(+g) fit absorbs (v error) and residual."""
import json, glob, os, sys, csv, re, math
root = sys.argv[1]; outname = sys.argv[2] if len(sys.argv) > 2 else 'out'
from rigid_fit import kabsch_p
def linfit(tt, e):
    n = len(tt); mt = sum(tt) / n; me = sum(e) / n
    sxx = sum((a - mt) ** 2 for a in tt); sxy = sum((a - mt) * (b - me) for a, b in zip(tt, e))
    b = sxy / sxx; a = me - b * mt
    r = [v - a - b * u for u, v in zip(tt, e)]
    return a, b, (sum(v * v for v in r) / n) ** 0.5
res = []
for d in sorted(glob.glob(os.path.join(root, 'seed*'))):
    try:
        if open(d + '/status').read().split()[0] != '0': continue
        r = json.load(open(f'{d}/{outname}/results.json')); t = json.load(open(f'{d}/exp/truth.json'))
        rows = list(csv.DictReader(open(f'{d}/{outname}/fits.csv')))
    except Exception: continue
    y = open(f'{d}/exp/experiment.yaml').read()
    m = re.search(r'^  markers: (\[\[.*\]\])$', y, re.M)
    if not m: continue
    body = json.loads(m.group(1))
    tm = {f['frame']: f for f in t['markers_3d']}
    ncam = len(t['cameras'])
    for ii, im in enumerate(r['impacts']):
        ti = min(t['impacts'], key=lambda q: abs(q['time_s'] - im['time_s']))
        if abs(ti['time_s'] - im['time_s']) > 0.02: continue
        for side in ('pre', 'post'):
            fr = [q for q in rows if q['impact'] == str(ii) and q['side'] == side]
            ok = []
            for q in fr:
                f = int(q['frame'])
                if f not in tm: continue
                pos = tm[f]['positions']
                if any(p is None for p in pos) or len(pos) != len(body): continue
                pt = kabsch_p(body, pos)[0]
                x = [float(q['x_m']), float(q['y_m']), float(q['z_m'])]
                ok.append((float(q['time_s']), [x[k] - pt[k] for k in range(3)], x))
            if len(ok) < 4: continue
            tt = [o[0] - im['time_s'] for o in ok]
            fits = [linfit(tt, [o[1][k] for o in ok]) for k in range(3)]
            ev = [im[side]['v'][k] - ti[side]['v'][k] for k in range(3)]
            sig = im['uncertainty']['v_' + side]
            res.append(dict(seed=os.path.basename(d), ii=ii, side=side, ncam=ncam, fps=t['cameras'][0]['fps'], n=len(ok),
                            gest=bool(r.get('gravity_estimated')), ev=ev, sig=sig, bslope=[f[1] for f in fits],
                            off=[f[0] for f in fits], rrms=[f[2] for f in fits], span=max(tt) - min(tt),
                            vtrue=ti[side]['v'], tt=tt, E=[o[1] for o in ok]))
json.dump(res, open(sys.argv[3], 'w'))
print(len(res))

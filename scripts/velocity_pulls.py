#!/usr/bin/env python3
"""velocity_pulls.py ROOT [ROOT ...]: the pull table of reported velocity sigmas against synth's truth
(docs/analysis.md, "Session 17"). Each ROOT/seedN/ holds status (first int 0: synth ok), exp/truth.json
and out/results.json. Impacts pair with the truth's by time (nearest within 20 ms); pull = (measured -
truth) / sigma per component of v_pre and v_post (surface frame); one camera's out-of-plane component
(sigma ~1e-7 m/s, error 0) is left out. Prints, per stereo / one camera and g given / estimated: the
components, median |pull| (0.67 for honest Gaussian sigmas) and the share beyond 3 sigma."""
import glob, json, os, statistics as st, sys


def rows_of(root, outname='out'):
    rows = []
    for d in sorted(glob.glob(os.path.join(root, 'seed*'))):
        try:
            if open(os.path.join(d, 'status')).read().split()[0] != '0':
                continue
            r = json.load(open(os.path.join(d, outname, 'results.json')))
            t = json.load(open(os.path.join(d, 'exp', 'truth.json')))
        except Exception:
            continue
        ncam = len(t['cameras'])
        fps = t['cameras'][0]['fps']
        gest = bool(r.get('gravity_estimated'))
        used = set()
        for im in r.get('impacts', []):
            best = None
            for j, ti in enumerate(t['impacts']):
                dt = abs(ti['time_s'] - im['time_s'])
                if j not in used and dt < 0.02 and (best is None or dt < best[0]):
                    best = (dt, j)
            if best is None:
                continue
            used.add(best[1])
            ti = t['impacts'][best[1]]
            u = im.get('uncertainty', {})
            for side, key in (('pre', 'v_pre'), ('post', 'v_post')):
                sig = u.get(key)
                if not sig:
                    continue
                for k in range(3):
                    e = im[side]['v'][k] - ti[side]['v'][k]
                    s = sig[k]
                    if (s <= 1e-6 and abs(e) < 1e-6) or s <= 0:
                        continue
                    rows.append(dict(seed=os.path.basename(d), ncam=ncam, fps=fps, gest=gest, side=side, k=k,
                                     e=e, s=s, p=e / s, time=im['time_s']))
    return rows


def line(lab, s):
    ap = sorted(abs(r['p']) for r in s)
    return f'| {lab:34s} | {len(s):4d} | {st.median(ap):.2f} | {100 * sum(a > 3 for a in ap) / len(ap):4.1f}% |'


for root in sys.argv[1:]:
    rows = rows_of(root)
    print(f'## {root}  ({len({r["seed"] for r in rows})} scenes, {len(rows)} components)')
    for nc, name in ((2, 'stereo'), (1, 'one camera')):
        for ge in (None, False, True):
            s = [r for r in rows if r['ncam'] == nc and (ge is None or r['gest'] == ge)]
            if s:
                print(line(f'{name}, ' + ('all' if ge is None else ('g estimated' if ge else 'g given')), s))
        for lo, hi, lab in ((0, 600, '<= 500 fps'), (600, 1e9, '>= 1000 fps')):
            s = [r for r in rows if r['ncam'] == nc and not r['gest'] and lo <= r['fps'] < hi]
            if s:
                print(line(f'{name}, g given, {lab}', s))

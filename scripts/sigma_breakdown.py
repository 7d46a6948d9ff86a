#!/usr/bin/env python3
"""sigma_breakdown.py BIN SRC DST SEED... (docs/analysis.md, "Session 21"): where each side's v sigma comes from.
Reruns `BIN -v analyze` on SRC/seedN's tracks (kept scene in /tmp/t16/seedN/exp) in DST/seedN and reads its
"noise: side" debug lines (window, whole flight, sandwich sigma, window excess). Against the truth's centre
(template fitted to markers_3d, the same markers as tracked): per side and axis the track's real centre error
over the window and over the whole flight: its white part (first differences / sqrt 2), its AR(1) fit, the v
error a straight line given g takes from it (the error's own slope), and the ideal sigma of a line given g
on the window's and on the flight's frames under that true noise (h^T C h; its AR(1) from the detrended
error's lag-1 correlation, uncorrected for what the line takes up: low for flights of ~20 frames or fewer).
The centre is the body frame's origin (the centre of mass, docs/conventions.md), fitted by Horn's quaternion
(its largest eigenvector by Jacobi rotations). g estimated: no flight line is printed, the window stands in.
Prints one JSON row per side; e.g. scripts/sigma_breakdown.py build/impactcv /tmp/t20b /tmp/bd 1052 1153."""
import csv, json, math, os, re, subprocess, sys

from rigid_fit import kabsch_p

def line_rows(tt):
    n = len(tt); m = sum(tt) / n; sxx = sum((t - m) ** 2 for t in tt)
    return [(t - m) / sxx for t in tt]

def slope(tt, e):
    h = line_rows(tt); return sum(a * b for a, b in zip(h, e))

def ar1_var_fast(h, s2, rho):
    n = len(h); f = [0.0] * n; acc = 0.0
    for i in range(n):
        acc = h[i] + rho * acc; f[i] = acc
    acc = 0.0
    for i in range(n - 1, -1, -1):
        acc = h[i] + rho * acc; f[i] += acc - h[i]
    return s2 * sum(a * b for a, b in zip(h, f))

def detrend(tt, e):
    n = len(tt); m = sum(tt) / n; me = sum(e) / n; b = slope(tt, e)
    return [v - me - b * (t - m) for t, v in zip(tt, e)]

def ar1_fit(r):
    n = len(r); s2 = sum(v * v for v in r) / max(1, n - 2)
    lag = sum(r[i] * r[i - 1] for i in range(1, n)) / max(1e-30, sum(v * v for v in r))
    return s2, max(0.0, min(0.98, lag))

def main():
    binp, src, dst = sys.argv[1:4]
    for s in sys.argv[4:]:
        seed = 'seed' + s if not s.startswith('seed') else s
        d = os.path.join(dst, seed); os.makedirs(d + '/out', exist_ok=True)
        if not os.path.exists(d + '/exp'):
            subprocess.run(['cp', '-al', f'/tmp/t16/{seed}/exp', d + '/exp'])
        for f in ('tracks3d.csv', 'tracks3d_quality.csv', 'track_info.json'):
            if os.path.exists(f'{src}/{seed}/out/{f}'):
                subprocess.run(['cp', f'{src}/{seed}/out/{f}', d + '/out/'])
        p = subprocess.run([binp, '-v', 'analyze', 'exp/experiment.yaml', '--tracks', 'out/tracks3d.csv', '-o', 'out',
                            '--truth', 'exp/truth.json'], cwd=d, capture_output=True, text=True)
        log = p.stdout + p.stderr
        dbg = [l for l in log.splitlines() if l.startswith('noise: side')]
        r = json.load(open(d + '/out/results.json')); t = json.load(open(d + '/exp/truth.json'))
        y = open(d + '/exp/experiment.yaml').read()
        body = json.loads(re.search(r'^  markers: (\[\[.*\]\])$', y, re.M).group(1))
        tm = {f['frame']: f['positions'] for f in t['markers_3d']}
        trk = {}
        for row in csv.reader(open(d + '/out/tracks3d.csv')):
            if row[0] == 'frame': continue
            fr = int(row[0]); tv = float(row[1]); pts = []
            for k in range(len(body)):
                v = row[2 + 3 * k: 5 + 3 * k]
                pts.append([float(x) for x in v] if all(v) else None)
            trk[fr] = (tv, pts)
        fits = list(csv.DictReader(open(d + '/out/fits.csv')))
        def cerr(fr):
            tv, pts = trk[fr]; tru = tm.get(fr)
            if tru is None: return None
            idx = [k for k in range(len(body)) if pts[k] is not None and tru[k] is not None]
            if len(idx) < 3: return None
            a = kabsch_p([body[k] for k in idx], [pts[k] for k in idx])[0]
            b = kabsch_p([body[k] for k in idx], [tru[k] for k in idx])[0]
            return tv, [a[i] - b[i] for i in range(3)]
        fps = t['cameras'][0]['fps']; ncam = len(t['cameras'])
        for ii, im in enumerate(r['impacts']):
            ti = min(t['impacts'], key=lambda q: abs(q['time_s'] - im['time_s']))
            sp = math.sqrt(sum(x * x for x in ti['pre']['v'])); tol = 0.005 * sp
            for k, side in enumerate(('pre', 'post')):
                fr = [q for q in fits if q['impact'] == str(ii) and q['side'] == side]
                if not fr: continue
                w0, w1 = float(fr[0]['time_s']), float(fr[-1]['time_s'])
                m = None
                for l in dbg:
                    g = re.match(r'noise: side (\d) window \S+ \((\d+) frames, (\S+)-(\S+) s\) flight \S+ \((\S+)-(\S+) s\) '
                                 r'v sd (\S+) (\S+) (\S+) m/s, with the window excess (\S+) (\S+) (\S+)', l)
                    if g and int(g.group(1)) == k and abs(float(g.group(3)) - w0) < 1e-6 and abs(float(g.group(4)) - w1) < 1e-6:
                        m = g
                f_lo, f_hi = (float(m.group(5)), float(m.group(6))) if m else (float('nan'), float('nan'))
                if not (f_lo == f_lo):  # g estimated: the flight from the truth's impacts
                    f_lo, f_hi = w0, w1
                win = [cerr(int(q['frame'])) for q in fr]; win = [x for x in win if x]
                fl = [cerr(f) for f in sorted(trk) if f_lo - 1e-9 <= trk[f][0] <= f_hi + 1e-9]; fl = [x for x in fl if x]
                row = dict(seed=seed, fps=fps, ncam=ncam, impact=ii, side=side, tol=tol, n_win=len(fr), T_win=w1 - w0,
                           n_flight=len(fl), T_flight=(fl[-1][0] - fl[0][0]) if fl else 0,
                           gest=bool(r.get('gravity_estimated')),
                           sd_model=[float(m.group(7 + a)) for a in range(3)] if m else None,
                           sd_excess=[float(m.group(10 + a)) for a in range(3)] if m else None,
                           sd_rep=im['uncertainty']['v_' + side], err=[im[side]['v'][a] - ti[side]['v'][a] for a in range(3)])
                for name, ser in (('win', win), ('fl', fl)):
                    if len(ser) < 4: continue
                    tt = [x[0] for x in ser]; h = line_rows(tt)
                    row['slope_' + name] = [slope(tt, [x[1][a] for x in ser]) for a in range(3)]
                    hf, ideal, arp = [], [], []
                    for a in range(3):
                        e = [x[1][a] for x in ser]
                        dd = [e[i] - e[i - 1] for i in range(1, len(e))]
                        sh = math.sqrt(sum(v * v for v in dd) / len(dd) / 2)
                        hf.append(sh)
                        s2, rho = ar1_fit(detrend(tt, e))
                        arp.append((math.sqrt(s2), rho))
                        ideal.append(math.sqrt(ar1_var_fast(h, s2, rho)))
                    row['sd_hf_' + name] = hf
                    row['ar1_' + name] = arp
                    row['white_bound_' + name] = [sh * math.sqrt(12.0 / len(tt)) / (tt[-1] - tt[0]) for sh in hf]
                    row['ar1_bound_' + name] = ideal
                # the true flight noise's AR(1) applied to the window's rows
                if len(win) >= 4 and 'ar1_fl' in row:
                    tt = [x[0] for x in win]; h = line_rows(tt)
                    row['ar1fl_on_win'] = [math.sqrt(ar1_var_fast(h, row['ar1_fl'][a][0] ** 2, row['ar1_fl'][a][1])) for a in range(3)]
                print(json.dumps(row))
        sys.stdout.flush()

main()

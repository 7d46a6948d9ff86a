#!/usr/bin/env python3
"""impact_sides_truth.py ROOT SEED... (docs/analysis.md, "Session 29"): each measured impact of a completed
scene of a scene study (ROOT/seedN/ or ROOT/rN/ with exp/truth.json, exp/experiment.yaml, out/results.json,
out/fits.csv) taken apart against synth's truth, one line per impact and one per side:
- the instant's error in frames (reported, the surface line's, the flights' meeting, each with its sigma, and
  which was used), and each side's window against the true instant: a pre-impact frame whose exposure reaches
  past it (PRE-past) or a post-impact frame whose exposure starts before it (POST-before);
- per side and axis (frames counted from the true instant; frames far off the truth, outliers the fit left
  out, not counted), v's error against the slope of the tracks' own centre error over the side's frames (the
  truth's centre by Horn's fit of the body's template to markers_3d), and v's sigma. With g given, an error
  equal to that slope is the tracks' (the fit adds nothing of its own); one that differs is the fit's, or g's.
python3's standard library only (rigid_fit.py beside it)."""
import csv, json, math, os, re, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rigid_fit import kabsch_p


def line_slope(tt, e):
    n = len(tt); mt = sum(tt) / n; me = sum(e) / n
    sxx = sum((a - mt) ** 2 for a in tt)
    return sum((a - mt) * (b - me) for a, b in zip(tt, e)) / sxx if sxx > 0 else float('nan')


def scene_dir(root, s):
    for d in (os.path.join(root, 'seed' + s), os.path.join(root, 'r' + s), os.path.join(root, s)):
        if os.path.isdir(d):
            return d
    return None


root = sys.argv[1]
for s in sys.argv[2:]:
    d = scene_dir(root, s)
    try:
        r = json.load(open(f'{d}/out/results.json')); t = json.load(open(f'{d}/exp/truth.json'))
        rows = list(csv.DictReader(open(f'{d}/out/fits.csv')))
    except Exception as e:
        print(s, 'not readable:', e); continue
    body = json.loads(re.search(r'^  markers: (\[\[.*\]\])$', open(f'{d}/exp/experiment.yaml').read(), re.M).group(1))
    tm = {f['frame']: f['positions'] for f in t['markers_3d']}
    cam = t['cameras'][0]; fps = cam['fps']; half = cam['exposure_s'] / 2
    print('%s: %s' % (s, open(f'{d}/exp/scenario.yaml').readline().strip('# \n')[:110]))
    for ii, im in enumerate(r['impacts']):
        ti = min(t['impacts'], key=lambda q: abs(q['time_s'] - im['time_s'])); T = ti['time_s']
        fr = lambda x: (x - T) * fps if x is not None else float('nan')
        u = im['uncertainty']
        side_rows = {sd: [q for q in rows if q['impact'] == str(ii) and q['side'] == sd] for sd in ('pre', 'post')}
        flags = []
        if side_rows['pre'] and max(float(q['time_s']) for q in side_rows['pre']) + half > T:
            flags.append('PRE-past')
        if side_rows['post'] and min(float(q['time_s']) for q in side_rows['post']) - half < T:
            flags.append('POST-before')
        print('  impact %d: t %+.2f fr (sd %.2f), line %+.2f (%.2f), meet %+.2f (%.2f), from %s %s' % (
            ii, fr(im['time_s']), u['time_s'] * fps, fr(im.get('t_line_s')), (im.get('t_line_sd_s') or 0) * fps,
            fr(im.get('t_meet_s')), (im.get('t_meet_sd_s') or 0) * fps, im.get('time_from'), ' '.join(flags)))
        for sd in ('pre', 'post'):
            pts = []
            for q in side_rows[sd]:
                pos = tm.get(int(q['frame']))
                if not pos or any(p is None for p in pos) or len(pos) != len(body):
                    continue
                c = kabsch_p(body, pos)[0]
                x = [float(q['x_m']), float(q['y_m']), float(q['z_m'])]
                pts.append((float(q['time_s']) - T, [x[k] - c[k] for k in range(3)]))
            # frames far off the rest (an outlier the fit left out, still listed in fits.csv) out of the slope
            en = sorted(math.sqrt(sum(x * x for x in p[1])) for p in pts)
            lim = max(5 * en[len(en) // 2], 1e-3) if en else 0
            pts = [p for p in pts if math.sqrt(sum(x * x for x in p[1])) <= lim]
            if len(pts) < 4:
                print('    %-4s %d frames with the truth: too few' % (sd, len(pts))); continue
            tt = [p[0] for p in pts]
            cells = []
            for k in range(3):
                sg = u['v_' + sd][k]
                if sg < 1e-5:  # one camera's out-of-plane axis
                    continue
                ev = im[sd]['v'][k] - ti[sd]['v'][k]
                cells.append('%s err %+.4f slope %+.4f sd %.4f' % ('xyz'[k], ev, line_slope(tt, [p[1][k] for p in pts]), sg))
            print('    %-4s %3d frames [%+.1f..%+.1f fr]  %s' % (sd, len(pts), min(tt) * fps, max(tt) * fps, ' | '.join(cells)))

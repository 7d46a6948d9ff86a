#!/usr/bin/env python3
"""synth's Newton's cradle measured (docs/analysis.md "Several bodies", docs/pipeline.md
"Several bodies"). Standard library only.

  cradle_study.py trc   BIN D0 D1 DIR  true markers + 0.1 mm noise as a TRC -> analyze --tracks
  cradle_study.py video BIN D0 D1 DIR  impactcv run on the rendered clip
  cradle_study.py truth BIN D0 D1 DIR  the truth's collision instants (frames), bodies, pairs
  cradle_study.py pendulum             v of a 30 fps pendulum fitted with polynomials

Draws D0..D1-1 are synthesised into DIR/cradle_N (kept: a second run reuses them)."""
import csv, json, math, os, random, re, subprocess, sys


def scene(BIN, root, d):
    dd = f'{root}/cradle_{d}'
    if not os.path.exists(dd + '/truth.json'):
        os.makedirs(root, exist_ok=True)
        open(dd + '.yaml', 'w').write(f'multibody: {{kind: cradle, draw: {d}}}\n')
        subprocess.run([BIN, '-q', 'synth', dd + '.yaml', '-o', dd], check=True, capture_output=True)
    return dd, json.load(open(dd + '/truth.json'))


def trc(BIN, root, d):
    dd, t = scene(BIN, root, d)
    ey = open(dd + '/experiment.yaml').read()
    out, labs = [], []
    for blk in ey[ey.index('bodies:'):ey.index('model:')].split('  - name: ')[1:]:
        name = blk.split('\n')[0].strip()
        nm = len(re.findall(r'\[[-\d.e]+, [-\d.e]+, [-\d.e]+\]', blk.split('markers:')[1].split('\n')[0]))
        lab = [f'{name}_{k + 1}' for k in range(nm)]
        labs += lab
        out.append('  - name: ' + blk.rstrip('\n') + f'\n    marker_labels: [{", ".join(lab)}]\n')
    g = t['gravity']
    open(dd + '/trc.yaml', 'w').write("name: trc\nsurface: {plane: {point: [0, 0, 0], normal: [0, 1, 0]}}\n"
                                      f"gravity: [{g[0]!r}, {g[1]!r}, {g[2]!r}]\nbodies:\n" + ''.join(out))
    fr = t['markers_3d']
    n, rate = len(fr[0]['positions']), 1 / (fr[1]['time_s'] - fr[0]['time_s'])
    rnd = random.Random(d)
    L = ["PathFileType\t4\t(X/Y/Z)\tb.trc",
         "DataRate\tCameraRate\tNumFrames\tNumMarkers\tUnits\tOrigDataRate\tOrigDataStartFrame\tOrigNumFrames",
         f"{rate:.6f}\t{rate:.6f}\t{len(fr)}\t{n}\tm\t{rate:.6f}\t1\t{len(fr)}",
         "Frame#\tTime" + ''.join(f"\t{x}\t\t" for x in labs),
         "\t" + ''.join(f"\tX{i + 1}\tY{i + 1}\tZ{i + 1}" for i in range(n)), ""]
    for i, f in enumerate(fr):
        L.append(f"{i + 1}\t{f['time_s']:.9f}" +
                 ''.join('\t%.8f' % (c + rnd.gauss(0, 1e-4)) for p in f['positions'] for c in p))
    open(dd + '/b.trc', 'w').write('\n'.join(L) + '\n')
    p = subprocess.run([BIN, 'analyze', dd + '/trc.yaml', '--tracks', dd + '/b.trc', '-o', dd + '/trcout'],
                       capture_output=True, text=True)
    report(d, dd, 'trcout', p, None)


def video(BIN, root, d):
    dd, t = scene(BIN, root, d)
    p = subprocess.run([BIN, '-q', 'run', 'experiment.yaml', '-o', 'vout'], cwd=dd, capture_output=True, text=True)
    fr, bad, tot, first = t['markers_3d'], 0, 0, None
    if os.path.exists(dd + '/vout/tracks3d.csv'):
        rows = list(csv.reader(open(dd + '/vout/tracks3d.csv')))
        nm = (len(rows[0]) - 2) // 3
        for rr in rows[1:]:
            f = min(fr, key=lambda x: abs(x['time_s'] - float(rr[1])))
            for m in range(nm):
                v = rr[2 + 3 * m:5 + 3 * m]
                if v[0] == '':
                    continue
                tot += 1
                if math.dist([float(x) for x in v], f['positions'][m]) > 0.005:
                    bad += 1
                    first = int(rr[0]) if first is None else first
    report(d, dd, 'vout', p, f'points {tot}, > 5 mm from their ball {bad} (first in frame {first})')


def report(d, dd, out, p, extra):
    open(f'{dd}/{out}.log', 'w').write(p.stdout + p.stderr)
    tail = f' | {extra}' if extra else ''
    if p.returncode:
        print(f'cradle {d}: FAIL {p.stderr.strip().splitlines()[-1][:200]}{tail}')
        return
    r = json.load(open(f'{dd}/{out}/results.json'))
    named = r.get('impacts_not_measured', [])
    print(f"cradle {d}: completed, {len(r['impacts'])} pair impacts measured, {len(named)} named not measured"
          f" ({'; '.join(x.split(': not')[0] for x in named)}){tail}")


def truth(BIN, root, d):
    dd, t = scene(BIN, root, d)
    dt, groups = 1 / 30, []
    for im in t['body_impacts']:
        if groups and im['time_s'] - groups[-1][1] < dt:
            groups[-1][1] = im['time_s']
            groups[-1][2] |= set(im['bodies'])
            groups[-1][3] += 1
        else:
            groups.append([im['time_s'], im['time_s'], set(im['bodies']), 1])
    print(f"cradle {d}: e {t['body_impacts'][0]['e']:.3f}: " +
          ' '.join(f"[frame {g[0] / dt:.2f}: {','.join(sorted(g[2]))}, {g[3]} pairs over {1e6 * (g[1] - g[0]):.1f} us]"
                   for g in groups))


def pendulum():
    def fit(t, x, deg):
        n = deg + 1
        A = [[sum(ti ** (i + j) for ti in t) for j in range(n)] for i in range(n)]
        b = [sum(xi * ti ** i for ti, xi in zip(t, x)) for i in range(n)]
        for i in range(n):
            for r in range(i + 1, n):
                f = A[r][i] / A[i][i]
                A[r] = [A[r][c] - f * A[i][c] for c in range(n)]
                b[r] -= f * b[i]
        c = [0.0] * n
        for i in reversed(range(n)):
            c[i] = (b[i] - sum(A[i][j] * c[j] for j in range(i + 1, n))) / A[i][i]
        return c[1]
    w = math.sqrt(9.81 / 0.129)  # Wang's l: the ball passes the bottom at 0.487 m/s
    A, dt = 0.48696 / w, 1 / 30
    for off in (0.1, 0.5, 0.9):
        for n in (4, 5, 6, 8, 10):
            t = [-(off + k) * dt for k in range(n)]
            x = [A * math.sin(w * ti) for ti in t]
            s = ' '.join(f'degree {g}: {100 * (fit(t, x, g) / (A * w) - 1):+.1f}%' for g in (2, 3) if n > g + 1)
            print(f'impact {off:.1f} frame after the last of {n} frames: v {s}')


if __name__ == '__main__':
    if sys.argv[1] == 'pendulum':
        pendulum()
    else:
        BIN, d0, d1, root = os.path.abspath(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
        for d in range(d0, d1):
            {'trc': trc, 'video': video, 'truth': truth}[sys.argv[1]](BIN, root, d)

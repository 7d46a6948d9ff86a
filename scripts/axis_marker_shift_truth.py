#!/usr/bin/env python3
"""axis_marker_shift_truth.py SEEDDIR...: per scene and camera of a rod whose markers sit on its axis, how
synth's drawn centroid offset (truth.json: markers_2d_centroid - markers_2d) compares with the band model's
shift (track/band_marker.c: pi r / 4 off the axis towards the camera, perpendicular to it, projected with the
true camera): the least-squares factor k (offset = k shift), its R^2, and the factor an orthographic bead
model predicts (a uniform sphere of the marker's diameter, less what the rod hides in front of it). Bands
read k ~1; beads (spheres threaded on the rod) read k 0.34-0.82, as the bead model does (docs/track.md,
"Session 23")."""
import json, math, re, sys


def sub(a, b): return [x - y for x, y in zip(a, b)]
def add(a, b): return [x + y for x, y in zip(a, b)]
def sc(a, s): return [x * s for x in a]
def dot(a, b): return sum(x * y for x, y in zip(a, b))
def unit(a): n = math.sqrt(dot(a, a)); return [x / n for x in a]
def mv(M, v): return [dot(r, v) for r in M]


def project(cam, X):
    x = add(mv(cam['R'], X), cam['t'])
    xn, yn = x[0] / x[2], x[1] / x[2]
    r2 = xn * xn + yn * yn
    f = 1 + cam['dist'][0] * r2 + cam['dist'][1] * r2 * r2
    return [cam['K'][0][0] * xn * f + cam['K'][0][2], cam['K'][1][1] * yn * f + cam['K'][1][2]]


def bead_factor(rho, cos, n=160):
    """The visible part of a unit sphere's disc (the rod of radius rho along an axis at cos to the view
    hides what of it lies behind the rod's front surface): its centroid along the axis' image over the band
    shift's, (pi rho / 4) cos."""
    sin = math.sqrt(max(1 - cos * cos, 0))
    A = Sx = 0
    for i in range(n):
        x = -1 + (i + .5) * 2 / n
        for j in range(n):
            y = -1 + (j + .5) * 2 / n
            if x * x + y * y >= 1:
                continue
            zs = math.sqrt(1 - x * x - y * y)
            a2, b2, c2 = 1 - cos * cos, -2 * x * sin * cos, x * x + y * y - x * x * sin * sin - rho * rho
            disc = b2 * b2 - 4 * a2 * c2
            hidden = disc >= 0 and a2 > 1e-12 and (-b2 + math.sqrt(disc)) / (2 * a2) > zs
            if not hidden:
                A += 1
                Sx += x
    return (Sx / A) / (-(math.pi * rho / 4) * cos) if cos > 1e-3 else float('nan')


for d in sys.argv[1:]:
    try:
        t = json.load(open(f'{d}/exp/truth.json'))
        y = open(f'{d}/exp/experiment.yaml').read()
        r = float(re.search(r'radius: ([0-9.e-]+)', y).group(1))
        md = float(re.search(r'marker_diameter: ([0-9.e-]+)', y).group(1))
    except Exception:
        continue
    if 'markers_2d_centroid' not in t or 'cylinder' not in y and 'capsule' not in y:
        continue
    out = []
    for cam in t['cameras']:
        C = sc([sum(cam['R'][i][j] * cam['t'][i] for i in range(3)) for j in range(3)], -1)
        m2 = {f['frame']: f['uv'] for f in t['markers_2d'][cam['id']]}
        mc = {f['frame']: f['uv'] for f in t['markers_2d_centroid'][cam['id']]}
        sxy = sxx = syy = 0
        coss = []
        for fr in t['markers_3d']:
            f, P = fr['frame'], fr['positions']
            if f not in m2:
                continue
            a = unit(sub(P[-1], P[0]))
            for k in range(len(P)):
                if m2[f][k] is None or mc[f][k] is None:
                    continue
                w = sub(C, P[k])
                wp = unit(sub(w, sc(a, dot(a, w))))
                s = sub(project(cam, add(P[k], sc(wp, math.pi / 4 * r))), project(cam, P[k]))
                o = sub(mc[f][k], m2[f][k])
                sxy += dot(o, s); sxx += dot(s, s); syy += dot(o, o)
                coss.append(abs(dot(a, unit(w))))
        if sxx > 0 and syy > 0:
            coss.sort()
            rho = 2 * r / md
            bead = bead_factor(rho, coss[len(coss) // 2]) if rho < 1 else float('nan')
            out.append('%s k %.3f R2 %.2f (bead model %.3f, 2r/d %.2f)' % (cam['id'], sxy / sxx, sxy * sxy / (sxx * syy),
                                                                         bead, rho))
    if out:
        print(d.rstrip('/').split('/')[-1], ' | '.join(out))

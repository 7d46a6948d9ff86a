#!/usr/bin/env python3
# marker_contrast.py SCENE_DIR...: how far each marker of a synth scene (SCENE_DIR holds exp/ or is the experiment
# folder: truth.json, scenario.yaml, <camera>.mp4) stands out from what surrounds it, in the decoded video: at five
# frames spread over the clip, per camera and marker (truth's markers_2d), the mean gray level over a disc of 0.35
# diameters against the median of the ring 0.8-1.3 diameters out (the diameter from the scenario's "markers N px"),
# over the scene's read noise; and the same in RGB (the largest channel difference). Prints per scene the weakest
# marker's median gray and colour contrast. A marker a few noise sigmas from its surroundings in gray and colour is one
# no detector can find without the motion.
import json, os, re, subprocess, sys, statistics

def frame(video, n, w, h, fmt):
    ch = 3 if fmt == 'rgb24' else 1
    out = subprocess.run(['ffmpeg', '-v', 'error', '-i', video, '-vf', 'select=eq(n\\,%d)' % n, '-vframes', '1',
                          '-f', 'rawvideo', '-pix_fmt', fmt, '-'], capture_output=True).stdout
    return out if len(out) == w * h * ch else None

def patch_stats(img, w, h, ch, u, v, d):
    r_in, r0, r1 = max(1.0, 0.35 * d), 0.8 * d, max(1.3 * d, 0.8 * d + 2)
    inner = [[] for _ in range(ch)]; ring = [[] for _ in range(ch)]
    for y in range(int(v - r1) - 1, int(v + r1) + 2):
        for x in range(int(u - r1) - 1, int(u + r1) + 2):
            if not (0 <= x < w and 0 <= y < h): continue
            rr = ((x - u) ** 2 + (y - v) ** 2) ** 0.5
            for c in range(ch):
                p = img[(y * w + x) * ch + c]
                if rr <= r_in: inner[c].append(p)
                elif r0 <= rr <= r1: ring[c].append(p)
    if not inner[0] or not ring[0]: return None
    return [statistics.mean(inner[c]) - statistics.median(ring[c]) for c in range(ch)]

for d in sys.argv[1:]:
    e = os.path.join(d, 'exp') if os.path.isdir(os.path.join(d, 'exp')) else d
    t = json.load(open(os.path.join(e, 'truth.json')))
    desc = open(os.path.join(e, 'scenario.yaml')).readline()
    m = re.search(r'markers ([\d.]+) px', desc); dia = float(m.group(1)) if m else 6
    m = re.search(r'read noise ([\d.]+)', desc); noise = float(m.group(1)) if m else 2
    worst_g, worst_c = None, None
    for cam in t['cameras']:
        cid, w, h = cam['id'], cam['width'], cam['height']
        frames = t['markers_2d'][cid]
        video = os.path.join(e, cid + '.mp4')
        per = {}
        for q in (0.1, 0.3, 0.5, 0.7, 0.9):
            fr = frames[int(q * (len(frames) - 1))]
            g = frame(video, fr['frame'], w, h, 'gray'); c = frame(video, fr['frame'], w, h, 'rgb24')
            if g is None or c is None: continue
            for k, uv in enumerate(fr['uv']):
                if uv is None or not (0 <= uv[0] < w and 0 <= uv[1] < h): continue
                sg = patch_stats(g, w, h, 1, uv[0], uv[1], dia); sc = patch_stats(c, w, h, 3, uv[0], uv[1], dia)
                if sg is None or sc is None: continue
                per.setdefault(k, []).append((abs(sg[0]) / noise, max(abs(x) for x in sc) / noise))
        for k, v in per.items():
            mg = statistics.median(x[0] for x in v); mc = statistics.median(x[1] for x in v)
            worst_g = mg if worst_g is None else min(worst_g, mg)
            worst_c = mc if worst_c is None else min(worst_c, mc)
    print('%s weakest marker: gray %s, colour %s noise sigmas  | %s' % (
        os.path.basename(os.path.normpath(d)), '-' if worst_g is None else '%.1f' % worst_g,
        '-' if worst_c is None else '%.1f' % worst_c, desc[2:100].strip()))

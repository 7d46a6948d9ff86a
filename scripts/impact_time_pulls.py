#!/usr/bin/env python3
"""impact_time_pulls.py ROOT...: median |pull| of the reported impact instant, the surface line's and the
flights' meeting against synth's truth (docs/analysis.md, "Session 17")."""
import json, glob, os, sys, statistics as st
for root in sys.argv[1:]:
    out = {'time': [], 'line': [], 'meet': []}
    for d in sorted(glob.glob(root + '/seed*')):
        try:
            if open(d + '/status').read().split()[0] != '0': continue
            r = json.load(open(d + '/out/results.json')); t = json.load(open(d + '/exp/truth.json'))
        except Exception: continue
        for im in r['impacts']:
            ti = min(t['impacts'], key=lambda q: abs(q['time_s'] - im['time_s']))
            if abs(ti['time_s'] - im['time_s']) > 0.02: continue
            tt = ti['time_s']
            if im['uncertainty'].get('time_s'): out['time'].append((im['time_s'] - tt) / im['uncertainty']['time_s'])
            if im.get('t_line_sd_s'): out['line'].append((im['t_line_s'] - tt) / im['t_line_sd_s'])
            if im.get('t_meet_sd_s'): out['meet'].append((im['t_meet_s'] - tt) / im['t_meet_sd_s'])
    print(root, ' '.join(f"{k}: n={len(v)} med|pull|={st.median([abs(x) for x in v]):.2f} mean={st.mean(v):+.2f} >3={100*sum(abs(x)>3 for x in v)/len(v):.0f}%" for k, v in out.items() if v))

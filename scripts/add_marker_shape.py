#!/usr/bin/env python3
"""Add body.marker_shape to kept renders made before synth wrote it (study dir)."""
import sys, glob, re, os
for d in sorted(glob.glob(os.path.join(sys.argv[1], 'seed*'))):
    sc = os.path.join(d, 'exp', 'scenario.yaml'); ex = os.path.join(d, 'exp', 'experiment.yaml')
    if not os.path.exists(sc) or not os.path.exists(ex): continue
    head = open(sc).readline()
    s = open(ex).read()
    if 'marker_shape' in s: continue
    m = re.search(r'shape: \{type: (\w+)', s)
    if not m or m.group(1) not in ('capsule', 'cylinder'): continue
    if re.search(r'\bbeads\b|balls on posts', head): v = 'sphere'
    elif re.search(r'\bbands\b', head): v = 'band'
    else: continue
    s2 = re.sub(r'^(\s*)(marker_diameter: .*)$', lambda mm: mm.group(1)+mm.group(2)+'\n'+mm.group(1)+'marker_shape: '+v, s, count=1, flags=re.M)
    if s2.count('marker_shape') != 1: print('skip', d); continue
    # cp -al makes hard links: write a new file, never the shared inode
    os.unlink(ex); open(ex, 'w').write(s2); print(os.path.basename(d), v)

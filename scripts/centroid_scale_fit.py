#!/usr/bin/env python3
"""centroid_scale_fit.py ROOT: per one-camera one-marker ball of a kept scene study (ROOT/seedN/exp, out), the
2D track's error against truth.json's markers_2d_centroid fitted as an offset plus an image scale k and a turn
about the principal point (least squares over every frame): k (1e-3), the fit's R^2 over the offset alone, the
turn, k over (R / rho_c)^2 / 2 (R the ball's radius, rho_c the image corner's distance from the principal point:
minus the corner vignetting that would explain it) and the track's span in px (docs/analysis.md, session 32)."""
import json,csv,sys,os,glob,math,re
root=sys.argv[1]
print('seed   px    k(scale,1e-3)  R2   rot   k/(R^2/2rc^2)')
for d in sorted(glob.glob(root+'/seed*')):
    try:
        h=open(d+'/exp/scenario.yaml').readline()
        if not (h.startswith('# ball, 1 ') and 'one camera' in h): continue
        t=json.load(open(d+'/exp/truth.json'))
        tr2={int(r['frame']):(float(r['u_px']),float(r['v_px'])) for r in csv.DictReader(open(d+'/out/tracks2d_cam.csv')) if r['marker']=='0' and r['u_px']}
    except Exception: continue
    c=t['cameras'][0]; K=c['K']; cx,cy=K[0][2],K[1][2]; W,H=c['width'],c['height']
    m2c={m['frame']:m['uv'][0] for m in t['markers_2d_centroid']['cam'] if m['uv'] and m['uv'][0]}
    fs=[f for f in sorted(m2c) if f in tr2]
    if len(fs)<20: continue
    # model e = c + k*(p-pp) (isotropic scale about pp) + r*J(p-pp) (rotation), lsq in 4 unknowns
    rows=[];ys=[]
    for f in fs:
        du,dv=m2c[f][0]-cx,m2c[f][1]-cy
        e=(tr2[f][0]-m2c[f][0],tr2[f][1]-m2c[f][1])
        if abs(e[0])>0.5 or abs(e[1])>0.5: continue
        rows.append([1,0,du,-dv]); ys.append(e[0])
        rows.append([0,1,dv,du]); ys.append(e[1])
    n=4
    A=[[sum(r[i]*r[j] for r in rows) for j in range(n)] for i in range(n)]; b=[sum(r[i]*y for r,y in zip(rows,ys)) for i in range(n)]
    for i in range(n):
        for j in range(i+1,n):
            fct=A[j][i]/A[i][i]
            for k in range(n): A[j][k]-=fct*A[i][k]
            b[j]-=fct*b[i]
    x=[0]*n
    for i in reversed(range(n)): x[i]=(b[i]-sum(A[i][k]*x[k] for k in range(i+1,n)))/A[i][i]
    res=[y-sum(a*bb for a,bb in zip(r,x)) for r,y in zip(rows,ys)]
    # R2 relative to constant-only
    m0=[sum(ys[0::2])/len(ys[0::2]),sum(ys[1::2])/len(ys[1::2])]
    v0=sum((y-m0[i%2])**2 for i,y in enumerate(ys)); v1=sum(a*a for a in res)
    px=float(re.search(r'markers ([\d.]+) px',h).group(1)); R=px/2; rc2=(max(cx,W-cx))**2+(max(cy,H-cy))**2
    print('%s %5.1f  %+6.2f  %.2f  %+6.2f  %+.2f  span %.0f px'%(os.path.basename(d)[4:],px,x[2]*1e3,1-v1/v0,x[3]*1e3,x[2]/(R*R/(2*rc2)), max(math.hypot(m2c[f][0]-m2c[fs[0]][0],m2c[f][1]-m2c[fs[0]][1]) for f in fs)))

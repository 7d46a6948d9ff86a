#!/usr/bin/env python3
"""rigid_fit.py: the rigid motion that best maps a body's points onto measured ones (Horn's quaternion, its
largest eigenvector by cyclic Jacobi rotations: a shifted power iteration stalled on nearly coplanar marker
sets, 6-10 mm off the exact centre in seeds 1052 and 1153). Imported by velocity_track_error.py and
sigma_breakdown.py; python3's standard library only."""
import math

def top_eigvec(A):
    """the eigenvector of the largest eigenvalue of a symmetric 4x4 (cyclic Jacobi)"""
    n = len(A); a = [row[:] for row in A]; V = [[float(i == j) for j in range(n)] for i in range(n)]
    for _ in range(60):
        off = sum(a[i][j] ** 2 for i in range(n) for j in range(n) if i != j)
        if off < 1e-30: break
        for p in range(n):
            for q in range(p + 1, n):
                if abs(a[p][q]) < 1e-300: continue
                th = 0.5 * math.atan2(2 * a[p][q], a[q][q] - a[p][p])
                c, s = math.cos(th), math.sin(th)
                for k in range(n):
                    akp, akq = a[k][p], a[k][q]
                    a[k][p], a[k][q] = c * akp - s * akq, s * akp + c * akq
                for k in range(n):
                    apk, aqk = a[p][k], a[q][k]
                    a[p][k], a[q][k] = c * apk - s * aqk, s * apk + c * aqk
                for k in range(n):
                    vkp, vkq = V[k][p], V[k][q]
                    V[k][p], V[k][q] = c * vkp - s * vkq, s * vkp + c * vkq
    j = max(range(n), key=lambda i: a[i][i])
    return [V[k][j] for k in range(n)]

def kabsch_p(body, world):
    n = len(body)
    cb = [sum(b[k] for b in body) / n for k in range(3)]
    cw = [sum(w[k] for w in world) / n for k in range(3)]
    S = [[sum((body[i][a] - cb[a]) * (world[i][b] - cw[b]) for i in range(n)) for b in range(3)] for a in range(3)]
    (xx, xy, xz), (yx, yy, yz), (zx, zy, zz) = S
    N = [[xx + yy + zz, yz - zy, zx - xz, xy - yx], [yz - zy, xx - yy - zz, xy + yx, zx + xz],
         [zx - xz, xy + yx, -xx + yy - zz, yz + zy], [xy - yx, zx + xz, yz + zy, -xx - yy + zz]]
    q = top_eigvec(N)
    w, x, y, z = q
    R = [[w*w + x*x - y*y - z*z, 2*(x*y - w*z), 2*(x*z + w*y)], [2*(x*y + w*z), w*w - x*x + y*y - z*z, 2*(y*z - w*x)],
         [2*(x*z - w*y), 2*(y*z + w*x), w*w - x*x - y*y + z*z]]
    return [cw[a] - sum(R[a][b] * cb[b] for b in range(3)) for a in range(3)], R

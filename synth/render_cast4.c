/* render_cast4.c: render.c's ray cast for four rays at once, in AVX2.
 *
 * Each lane computes exactly what render.c's scalar cast computes for its ray: the same
 * IEEE operations (+ - * / sqrt, compares) in the same order, no fused multiply-add
 * (only "avx2" is targeted, not "fma", and C11 mode keeps contraction off), and the
 * scalar branches become per-lane selects. The pictures are therefore bit-identical
 * to the scalar path's; what is gained is four rays per instruction and no mispredicted
 * branches at the edges, where a sample is as likely to hit as to miss. Boxes are not
 * done here: a tile whose primitives include one is cast one ray at a time. Only this
 * file's functions use AVX2, and only after the CPU was asked (synth_cast4_available),
 * so the program still runs on a CPU without it. */
#include <math.h>
#include <stdlib.h>

#include "synth/synth_internal.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#include <immintrin.h>

typedef double v4d __attribute__((vector_size(32)));
typedef long long v4l __attribute__((vector_size(32)));

#define AVX2 __attribute__((target("avx2")))
#define LANE static inline __attribute__((always_inline, target("avx2")))

LANE v4d bc(double s) { return (v4d){s, s, s, s}; }
LANE v4l bcl(long long s) { return (v4l){s, s, s, s}; }
/* m (all ones or zero per lane) ? a : b */
LANE v4d sel(v4l m, v4d a, v4d b) { return (v4d)((m & (v4l)a) | (~m & (v4l)b)); }
LANE v4l sell(v4l m, v4l a, v4l b) { return (m & a) | (~m & b); }
LANE v4d vabs(v4d a) { return (v4d)((v4l)a & bcl(0x7fffffffffffffffll)); }
LANE v4d vsqrt(v4d a) { return (v4d)_mm256_sqrt_pd((__m256d)a); }

typedef struct {
    v4d x, y, z;
} v3;

/* icv_v3_dot(d, c) with c a scalar vector: the same products, summed in the same order */
LANE v4d dot_s(v3 d, icv_vec3 c) { return d.x * c.x + d.y * c.y + d.z * c.z; }

/* hit_sphere: d unit rays, centre c, radius r; n (if not NULL) the unit normals */
LANE v4d sphere4(v3 d, icv_vec3 c, double r, v3 *n)
{
    v4d b = dot_s(d, c);
    double cc = icv_v3_dot(c, c) - r * r;
    v4d h = b * b - cc;
    v4d t = b - vsqrt(h);
    v4d res = sel((h < 0) | (t <= 0), bc(INFINITY), t);
    if (n) {
        double ir = 1.0 / r;
        n->x = (d.x * t - c.x) * ir;
        n->y = (d.y * t - c.y) * ir;
        n->z = (d.z * t - c.z) * ir;
    }
    return res;
}

/* hit_capsule */
LANE v4d capsule4(v3 d, const synth_prim *p, v3 *n)
{
    double baba = p->baba, baoa = p->baoa, ir = 1.0 / p->r;
    v4d bard = dot_s(d, p->ba); /* icv_v3_dot(p->ba, d): the products commute exactly */
    v4d rdoa = -dot_s(d, p->a);
    v4d A = baba - bard * bard, B = baba * rdoa - baoa * bard;
    double C = baba * p->oaoa - baoa * baoa - p->rr * baba;
    v4d h = B * B - A * C;
    v4l mA = A > 1e-12 * baba, miss = mA & (h < 0);
    v4d t = (-B - vsqrt(h)) / A, y = baoa + t * bard;
    v4l side = mA & ~(h < 0) & (y > 0) & (y < baba) & (t > 0);
    v4d t1 = sphere4(d, p->a, p->r, NULL), t2 = sphere4(d, p->b, p->r, NULL);
    v4l first = t1 < t2;
    v4d tc = sel(first, t1, t2);
    v4d res = sel(miss, bc(INFINITY), sel(side, t, tc));
    /* the side's normal: d t - (a + ba y / baba); a cap's: d t - its centre */
    v4d ys = y / baba;
    v3 ns = {(d.x * t - (p->a.x + p->ba.x * ys)) * ir, (d.y * t - (p->a.y + p->ba.y * ys)) * ir,
             (d.z * t - (p->a.z + p->ba.z * ys)) * ir};
    v3 nc = {(d.x * tc - sel(first, bc(p->a.x), bc(p->b.x))) * ir,
             (d.y * tc - sel(first, bc(p->a.y), bc(p->b.y))) * ir,
             (d.z * tc - sel(first, bc(p->a.z), bc(p->b.z))) * ir};
    n->x = sel(side, ns.x, nc.x);
    n->y = sel(side, ns.y, nc.y);
    n->z = sel(side, ns.z, nc.z);
    return res;
}

/* hit_cylinder (a..b radius r) */
LANE v4d cylinder4(v3 d, icv_vec3 a, icv_vec3 b, double r, v3 *n)
{
    icv_vec3 ba = icv_v3_sub(b, a), oc = icv_v3_scale(a, -1.0);
    double baba = icv_v3_dot(ba, ba), baoc = icv_v3_dot(ba, oc), ir = 1.0 / r;
    v4d bard = dot_s(d, ba);
    v4d k2 = baba - bard * bard, k1 = baba * dot_s(d, oc) - baoc * bard;
    double k0 = baba * icv_v3_dot(oc, oc) - baoc * baoc - r * r * baba;
    v4l mk = k2 > 1e-12 * baba;
    v4d h = k1 * k1 - k2 * k0;
    v4l miss = mk & (h < 0);
    v4d t = (-k1 - vsqrt(h)) / k2, y = baoc + t * bard;
    v4l side = mk & ~(h < 0) & (y > 0) & (y < baba) & (t > 0);
    /* the end caps */
    icv_vec3 u = icv_v3_scale(ba, 1.0 / sqrt(baba));
    v4d du = dot_s(d, u);
    v4l mdu = vabs(du) > 1e-12;
    v4d best = bc(INFINITY);
    v3 nc = {bc(0), bc(0), bc(0)};
    for (int e = 0; e < 2; e++) {
        icv_vec3 c = e ? b : a, ne = e ? u : icv_v3_scale(u, -1.0);
        v4d te = icv_v3_dot(c, u) / du;
        v4d qx = d.x * te - c.x, qy = d.y * te - c.y, qz = d.z * te - c.z;
        v4l take = mdu & (te > 0) & (te < best) & (qx * qx + qy * qy + qz * qz <= r * r);
        best = sel(take, te, best);
        nc.x = sel(take, bc(ne.x), nc.x);
        nc.y = sel(take, bc(ne.y), nc.y);
        nc.z = sel(take, bc(ne.z), nc.z);
    }
    v4d res = sel(miss, bc(INFINITY), sel(side, t, best));
    if (n) {
        v4d ys = y / baba;
        n->x = sel(side, ((oc.x + d.x * t) - ba.x * ys) * ir, nc.x);
        n->y = sel(side, ((oc.y + d.y * t) - ba.y * ys) * ir, nc.y);
        n->z = sel(side, ((oc.z + d.z * t) - ba.z * ys) * ir, nc.z);
    }
    return res;
}

/* hit_disc: centre a, normal b, radius r, front only */
LANE v4d disc4(v3 d, const synth_prim *p)
{
    v4d dn = dot_s(d, p->b);
    v4d t = icv_v3_dot(p->a, p->b) / dn;
    v4d qx = d.x * t - p->a.x, qy = d.y * t - p->a.y, qz = d.z * t - p->a.z;
    v4l hit = ~(dn >= 0) & ~(t <= 0) & (qx * qx + qy * qy + qz * qz <= p->r * p->r);
    return sel(hit, t, bc(INFINITY));
}

AVX2 int synth_cast4(const synth_renderer *r, const uint64_t *mask, const double *x, const double *y, int *ids,
                     float *values)
{
    for (int w = 0; w < SYNTH_PRIM_WORDS; w++)
        if (mask[w] & r->box_prims[w])
            return 0;
    v4d X = {x[0], x[1], x[2], x[3]}, Y = {y[0], y[1], y[2], y[3]};
    v4d inv = 1.0 / vsqrt(X * X + Y * Y + 1);
    v3 d = {X * inv, Y * inv, inv};
    const synth_body *b = &r->sc->body;
    v4d best = bc(INFINITY), t_body = bc(INFINITY);
    v4l id = bcl(0);
    v3 nbest = {bc(0), bc(0), bc(-1)};
    for (int w = 0; w < SYNTH_PRIM_WORDS; w++)
        for (uint64_t bits = mask[w]; bits; bits &= bits - 1) {
            const synth_prim *p = &r->prims[w * 64 + __builtin_ctzll(bits)];
            v3 n = nbest;
            v4d t;
            switch (p->kind) {
            case PRIM_SPHERE:
                t = sphere4(d, p->a, p->r, &n);
                break;
            case PRIM_CAPSULE:
                t = capsule4(d, p, &n);
                break;
            case PRIM_CYLINDER:
                t = cylinder4(d, p->a, p->b, p->r, &n);
                break;
            default:
                t = disc4(d, p);
                break;
            }
            if (p->kind != PRIM_SPHERE) { /* prim_missed: clear of the bounding sphere */
                v4d dc = dot_s(d, p->bound_c);
                t = sel(icv_v3_dot(p->bound_c, p->bound_c) - dc * dc > p->bound_rr, bc(INFINITY), t);
            }
            if (p->id == SYNTH_ID_BODY)
                t_body = t;
            if (p->kind == PRIM_DISC)
                t -= r->sticker_eps;
            v4l m = t < best;
            best = sel(m, t, best);
            id = sell(m, bcl(p->id), id);
            nbest.x = sel(m, n.x, nbest.x);
            nbest.y = sel(m, n.y, nbest.y);
            nbest.z = sel(m, n.z, nbest.z);
        }
    v4l seen = id != 0;
    if (r->has_occluder) {
        const synth_prim *o = &r->occluder;
        seen &= ~(cylinder4(d, o->a, o->b, o->r, NULL) < best);
    }
    id = sell(seen, id, bcl(0));
    v4l body = id == SYNTH_ID_BODY, band = bcl(0);
    if (b->marker_style == SYNTH_MARKER_BAND && (body[0] | body[1] | body[2] | body[3])) {
        /* bands: the body surface within half a width (axially) of a marker */
        const synth_prim *p = &r->prims[0];
        icv_vec3 ba = icv_v3_sub(p->b, p->a);
        double L = icv_v3_norm(ba);
        v4d s = ((d.x * t_body - p->a.x) * ba.x + (d.y * t_body - p->a.y) * ba.y + (d.z * t_body - p->a.z) * ba.z) / L;
        for (int k = 0; k < b->n_markers; k++) {
            v4l on = body & ~band & (vabs(s - r->band_s[k]) <= b->marker_diameter / 2);
            id = sell(on, bcl(SYNTH_ID_MARKER0 + k), id);
            band |= on;
        }
    }
    /* light from the camera side on the body; markers uniform */
    v4d c = vabs(nbest.x * d.x + nbest.y * d.y + nbest.z * d.z);
    v4d shade = b->body_gray * (0.35 + 0.65 * c);
    v4d v = sel(body & ~band, shade, sel(seen, bc(b->marker_gray), bc(0)));
    __m128 vf = _mm256_cvtpd_ps((__m256d)v);
    _mm_storeu_ps(values, vf);
    for (int i = 0; i < 4; i++)
        ids[i] = (int)id[i];
    return 1;
}

int synth_cast4_available(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && !getenv("ICV_SYNTH_SCALAR");
}

#else

int synth_cast4(const synth_renderer *r, const uint64_t *mask, const double *x, const double *y, int *ids,
                float *values)
{
    (void)r, (void)mask, (void)x, (void)y, (void)ids, (void)values;
    return 0;
}

int synth_cast4_available(void) { return 0; }

#endif

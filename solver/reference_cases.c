/* reference_cases.c: the numeric cases of the source documents that the spec
 * (../shared/spec/solver.md sec. 6-7) marks reproducible (R) or partly (P), each with its
 * input adapter to our frame (n = +y: a source with y down or n = -y is mirrored in y,
 * which leaves the solution mirrored, spec sec. 0 (ii)) and the quantity compared. */
#include <math.h>
#include <string.h>

#include "solver/impact_internal.h"

/* ---- Titovich's rod (TT 2.9), corrected inertia (spec 6.5, 7.1) ---- */
static impact_case tt_rod(double vy)
{
    impact_case c;
    impact_case_init(&c);
    c.mass = 1;
    /* body y is the rod axis; Rz(-45 deg) puts it along R = (sqrt2/4, sqrt2/4, 0) */
    c.inertia = icv_m3_diag(403.0 / 4800, 1.0 / 800, 403.0 / 4800);
    c.R = icv_rot_z(-M_PI / 4);
    c.r = icv_v3(sqrt(2) / 4, sqrt(2) / 4, 0);
    c.v = icv_v3(3, vy, 2);
    c.omega = icv_v3(12, 1, 4);
    c.mu_s = c.mu_k = 0.7;
    c.e_n = 0.4;
    return c;
}

/* TT's (e_n, mu) model with the sign of mu-bar corrected (spec 4): Newton on the whole
 * impact; the no-slip solution, or if it needs |p_t|/p_n > mu, sliding against the
 * initial slip. Returns v'. */
static icv_vec3 tt_algebraic(const impact_case *c)
{
    icv_mat3 iw = icv_m3_rotate_tensor(c->R, c->inertia), inv;
    icv_mat3 k = impact_contact_matrix(c->mass, iw, c->r);
    icv_vec3 u0 = icv_v3_add(c->v, icv_v3_cross(c->omega, c->r));
    icv_m3_inverse(k, &inv);
    icv_vec3 P = icv_m3_apply(inv, icv_v3(-u0.x, -(1 + c->e_n) * u0.y, -u0.z));
    if (hypot(P.x, P.z) > c->mu_k * P.y) {
        double s = hypot(u0.x, u0.z), hx = u0.x / s, hz = u0.z / s;
        double rn = k.m[1][1] - c->mu_k * (k.m[1][0] * hx + k.m[1][2] * hz);
        double pn = -(1 + c->e_n) * u0.y / rn;
        P = icv_v3(-c->mu_k * hx * pn, pn, -c->mu_k * hz * pn);
    }
    return icv_v3_add(c->v, icv_v3_scale(P, 1 / c->mass));
}

/* ---- Han Sun ch. 2 dimensionless planar problem (spec sec. 0 adapters) ----
 * m = R = 1, I = a, r = (-sin g, cos g), v = (p, 1), n = -y; mirrored: r = (-sin g,
 * -cos g), v = (p, -1). Returns K_f/K_i in percent. */
static int hs_planar_ratio(double p, double g, double e, double mu, double a, int law, int mass_scaled,
                           double *pct, icv_err *err)
{
    double rx = -sin(g), ry = -cos(g);
    planar_problem pp = {
        .ktt = 1 + ry * ry / a, .ktn = -rx * ry / a, .knn = 1 + rx * rx / a,
        .ut0 = p, .un0 = -1, .mu_s = mu, .mu_k = mu, .e = e, .law = (icv_restitution)law,
        .hs_mass_scaled = mass_scaled, .hs_mass = 1,
    };
    planar_solution sol;
    int rc = impact_planar_periods(&pp, &sol, err);
    if (rc < 0)
        return rc;
    double vx = p + sol.pt, vy = -1 + sol.pn, w = (rx * sol.pn - ry * sol.pt) / a;
    *pct = 100 * (vx * vx + vy * vy + a * w * w) / (p * p + 1);
    return 0;
}

/* ---- Han Sun ch. 3 rod in plane motion (m = 1, L = 1, R = L/2, cap r = L/30) ----
 * r = R (cos b, cos g, 0) with v = (vx, 1, 0) and n = -y; mirrored to ours. */
static int hs_rod_case(double beta, double gamma, double vx, double mu, double e, int *case_no, icv_err *err)
{
    double L = 1, cap = L / 30, R = L / 2, I = cap * cap / 4 + L * L / 12;
    double rx = R * cos(beta), ry = -R * cos(gamma);
    planar_problem pp = {
        .ktt = 1 + ry * ry / I, .ktn = -rx * ry / I, .knn = 1 + rx * rx / I,
        .ut0 = vx, .un0 = -1, .mu_s = mu, .mu_k = mu, .e = e, .law = ICV_RESTITUTION_STRONGE,
    };
    planar_solution sol;
    int rc = impact_planar_periods(&pp, &sol, err);
    *case_no = sol.case_no;
    return rc;
}

/* the k-th case change along v_x in [lo, hi] of Ex 1 (beta = 2pi/3, gamma = 5pi/6, mu = 0,
 * e = 1), found on a 0.05 grid and refined by bisection */
static int hs_ex1_boundary(int k, double *out, icv_err *err)
{
    int prev = -1, found = 0, c;
    for (int i = 0; i <= 40; i++) {
        double vx = -2 + 0.05 * i;
        int rc = hs_rod_case(2 * M_PI / 3, 5 * M_PI / 6, vx, 0, 1, &c, err);
        if (rc < 0)
            return rc;
        if (prev >= 0 && c != prev && vx < -1e-9) {
            if (found == k) {
                double lo = vx - 0.05, hi = vx;
                for (int it = 0; it < 50; it++) {
                    double m = 0.5 * (lo + hi);
                    hs_rod_case(2 * M_PI / 3, 5 * M_PI / 6, m, 0, 1, &c, err);
                    if (c == prev)
                        lo = m;
                    else
                        hi = m;
                }
                *out = 0.5 * (lo + hi);
                return 0;
            }
            found++;
        }
        hs_rod_case(2 * M_PI / 3, 5 * M_PI / 6, vx, 0, 1, &prev, err);
    }
    return icv_err_set(err, ICV_ENOTFOUND, "reference: HS Ex 1 has no case change %d", k);
}

/* the k-th case change along beta of HS Fig 3.16 (gamma = 3pi/2 - beta, v = (1, 1, 0),
 * mu = e = 0.4), on the figure's 0.01 grid refined by bisection */
static int hs_fig316_transition(int k, double *out, icv_err *err)
{
    int prev = -1, found = 0, c;
    for (int i = 0; i <= 314; i++) {
        double b = 0.01 * i;
        int rc = hs_rod_case(b, 1.5 * M_PI - b, 1, 0.4, 0.4, &c, err);
        if (rc < 0)
            return rc;
        if (prev >= 0 && c != prev) {
            if (found == k) {
                double lo = b - 0.01, hi = b;
                for (int it = 0; it < 50; it++) {
                    double m = 0.5 * (lo + hi), cm;
                    int ci;
                    hs_rod_case(m, 1.5 * M_PI - m, 1, 0.4, 0.4, &ci, err);
                    cm = ci;
                    if (cm == prev)
                        lo = m;
                    else
                        hi = m;
                }
                *out = 0.5 * (lo + hi);
                return 0;
            }
            found++;
        }
        prev = c;
    }
    return icv_err_set(err, ICV_ENOTFOUND, "reference: HS Fig 3.16 has no transition %d", k);
}

/* ---- Wang's icosahedron-tetrahedron (FW 2.12-2.14; spec 6.3, 7.1) ----
 * W as printed (symmetrised: its off-diagonal pairs differ by 1e-5, print rounding),
 * contact frame (x, y) tangent and z the normal; v- the spec's exact inverse. */
static void fw_icosa(contact_problem *pr)
{
    static const double W[3][3] = {{11.5984, -0.910367, 2.44236}, {-0.910367, 9.90134, 1.95747},
                                   {2.44235, 1.95746, 2.59042}};
    memset(pr, 0, sizeof *pr);
    for (int i = 0; i < 2; i++) {
        for (int j = 0; j < 2; j++)
            pr->B[i][j] = 0.5 * (W[i][j] + W[j][i]);
        pr->d[i] = 0.5 * (W[i][2] + W[2][i]);
    }
    pr->w = W[2][2];
    pr->ut0[0] = -0.261976;
    pr->ut0[1] = 0.386329;
    pr->un0 = -0.076855;
    pr->mu_s = pr->mu_k = 0.8;
    pr->e = 0.95;
    pr->law = ICV_RESTITUTION_STRONGE;
}

/* ---- Sun & Baruh's 3-D rod (SB sec. 3-5; spec 2.1, 2.3) ----
 * m = 1, half length L = 2.3, radius 0.5, I_body = diag(r^2/4 + L^2/3, r^2/2, ..),
 * Q = Q2(theta2) Q1(theta1) world -> body, I_world = Q^T I_b Q, r = L(-c2 s1, c2 c1, s2)
 * and v = (0.4, 1, 0) with y down in SB; mirrored in y to our frame. */
impact_case impact_reference_sb_rod(double theta1, double theta2)
{
    double L = 2.3, rr = 0.5, c1 = cos(theta1), s1 = sin(theta1), c2 = cos(theta2), s2 = sin(theta2);
    icv_mat3 Q1 = {{{c1, s1, 0}, {-s1, c1, 0}, {0, 0, 1}}}, Q2 = {{{1, 0, 0}, {0, c2, s2}, {0, -s2, c2}}};
    icv_mat3 Q = icv_m3_mul(Q2, Q1), M = icv_m3_diag(1, -1, 1);
    icv_mat3 Iw = icv_m3_mul(icv_m3_mul(icv_m3_transpose(Q), icv_m3_diag(rr * rr / 4 + L * L / 3, rr * rr / 2,
                                                                         rr * rr / 4 + L * L / 3)), Q);
    impact_case c;
    impact_case_init(&c);
    c.inertia = icv_m3_mul(icv_m3_mul(M, Iw), M);
    c.inertia_is_world = 1;
    c.r = icv_v3(-L * c2 * s1, -L * c2 * c1, L * s2);
    c.v = icv_v3(0.4, -1, 0);
    c.mu_s = c.mu_k = 0.2;
    c.e_n = 0.8;
    c.law = ICV_RESTITUTION_POISSON;
    return c;
}

/* ---- Wang's batting example (FW ch. 4, Figs 4.1-4.3; spec 6.3, 7.1) ----
 * Two bodies of unit mass, W = K_object + K_bat (world frame at the contact C), contact
 * frame = world turned by pi/3 about y, n = (sin 60, 0, cos 60). Inertia in world axes
 * I = R^T M R with R world -> body (the only reading that fits, spec 2.1). The bat's
 * thin axis (body x, M_b,xx = 0.1667) must lie along n as its centre O_b = -0.05 n
 * says: R_b = Ry(pi/6) as world -> body (the text's "rotation about y through -pi/3"
 * would tilt the bat's face by 30 degrees). Outputs in world axes:
 * sigma = n - [u w] B^-1 d (sticking), delta = n - mu [u w] s for the centripetal
 * invariant slip directions s (straight sliding), spec 3 item 3-4. */
static void fw_bat(int which, double out[3])
{
    icv_mat3 Ro = {{{-0.759372, -0.473448, 0.446319}, {0.411757, -0.8808, -0.23377}, {0.503796, 0.00625615, 0.8638}}};
    icv_mat3 Rb = icv_rot_y(M_PI / 6);
    icv_mat3 Io = icv_m3_mul(icv_m3_mul(icv_m3_transpose(Ro), icv_m3_diag(0.0248286, 0.0401528, 0.0631436)), Ro);
    icv_mat3 Ib = icv_m3_mul(icv_m3_mul(icv_m3_transpose(Rb), icv_m3_diag(0.166667, 0.0841667, 0.0841667)), Rb);
    impact_body obj = {.mass = 1, .inertia = Io, .R = icv_m3_identity(), .inertia_is_world = 1,
                       .r = icv_v3(-0.316386, 0.0625, -0.327003)};
    impact_body bat = {.mass = 1, .inertia = Ib, .R = icv_m3_identity(), .inertia_is_world = 1,
                       .r = icv_v3(0.0433013, 0, 0.025)};
    icv_mat3 K = impact_pair_contact_matrix(&obj, &bat); /* W = K_object + K_bat */
    icv_mat3 Rc = icv_rot_y(M_PI / 3); /* columns: u, w, n in world axes */
    icv_vec3 ax[3];
    for (int i = 0; i < 3; i++)
        ax[i] = icv_v3(Rc.m[0][i], Rc.m[1][i], Rc.m[2][i]);
    double W[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            W[i][j] = icv_v3_dot(ax[i], icv_m3_apply(K, ax[j]));
    const double mu = 0.5;
    icv_vec3 v;
    if (which == 0) {
        double det = W[0][0] * W[1][1] - W[0][1] * W[1][0];
        double a = (W[1][1] * W[0][2] - W[0][1] * W[1][2]) / det, b = (-W[1][0] * W[0][2] + W[0][0] * W[1][2]) / det;
        v = icv_v3_sub(ax[2], icv_v3_add(icv_v3_scale(ax[0], a), icv_v3_scale(ax[1], b)));
    } else {
        /* the which-th centripetal invariant direction by increasing angle: sign changes of
         * s_perp . (d - mu B s) on a 0.1 degree scan, bisected */
        int found = 0;
        double th_found = 0;
        for (int k = 0; k < 3600 && found < which; k++) {
            double a = 2 * M_PI * k / 3600, b = 2 * M_PI * (k + 1) / 3600, fa, fb, lam;
#define FW_RES(th, f, l)                                                                        \
    do {                                                                                        \
        double c_ = cos(th), s_ = sin(th);                                                      \
        double g0_ = W[0][2] - mu * (W[0][0] * c_ + W[0][1] * s_);                              \
        double g1_ = W[1][2] - mu * (W[1][0] * c_ + W[1][1] * s_);                              \
        f = -s_ * g0_ + c_ * g1_;                                                               \
        l = c_ * g0_ + s_ * g1_;                                                                \
    } while (0)
            FW_RES(a, fa, lam);
            FW_RES(b, fb, lam);
            if (fa * fb > 0)
                continue;
            for (int it = 0; it < 60; it++) {
                double m = 0.5 * (a + b), fm;
                FW_RES(m, fm, lam);
                if (fa * fm <= 0)
                    b = m;
                else {
                    a = m;
                    fa = fm;
                }
            }
            double fm;
            FW_RES(0.5 * (a + b), fm, lam);
            (void)fm;
#undef FW_RES
            if (lam < 0 && ++found == which)
                th_found = 0.5 * (a + b);
        }
        v = icv_v3_sub(ax[2], icv_v3_scale(icv_v3_add(icv_v3_scale(ax[0], cos(th_found)),
                                                      icv_v3_scale(ax[1], sin(th_found))), mu));
    }
    icv_v3_to_array(v, out);
}

static const impact_reference refs[] = {
    {"TT-rod-7-algebraic-vx", "Titovich 2.9 (e_n, mu) model, corrected inertia; spec 7.1", "P", "v'_x m/s (sticks)",
     4.935, 1e-3, "spec prints 3 decimals"},
    {"TT-rod-7-algebraic-vy", "Titovich 2.9 corrected; spec 7.1", "P", "v'_y m/s", -2.701, 1e-3, "3 decimals"},
    {"TT-rod-7-algebraic-wz", "Titovich 2.9 corrected; spec 7.1", "P", "omega'_z rad/s", 13.958, 1e-3, "3 decimals"},
    {"TT-rod-4-algebraic-vx", "Titovich 2.9 corrected (slides); spec 7.1", "P", "v'_x m/s", 2.761, 1e-3, "3 decimals"},
    {"TT-rod-4-algebraic-vz", "Titovich 2.9 corrected (slides); spec 7.1", "P", "v'_z m/s", 1.113, 1e-3, "3 decimals"},
    {"TT-rod-7-exact-vx", "Titovich 2.9, exact Stronge integration; spec 7.1", "P", "v'_x m/s", 4.386, 1e-3,
     "3 decimals"},
    {"TT-rod-7-exact-vy", "Titovich 2.9, exact Stronge; spec 7.1", "P", "v'_y m/s", -3.238, 1e-3, "3 decimals"},
    {"TT-rod-4-exact-vx", "Titovich 2.9, exact Stronge; spec 7.1", "P", "v'_x m/s", 2.950, 1e-3, "3 decimals"},
    {"TT-rod-4-exact-vy", "Titovich 2.9, exact Stronge; spec 7.1", "P", "v'_y m/s", -2.607, 1e-3, "3 decimals"},
    {"SB-rod3d-algebraic-vx", "Sun & Baruh 3-D rod, theta1 = 10, theta2 = 25 deg, mu 0.2, e 0.8, Poisson; spec 2.3",
     "P", "v'_x m/s (SB model)", 0.402, 1e-3, "spec prints 3 decimals"},
    {"SB-rod3d-algebraic-vy", "Sun & Baruh 3-D rod; spec 2.3 (y mirrored)", "P", "v'_y m/s (SB model)", 0.293, 1e-3,
     "3 decimals"},
    {"SB-rod3d-algebraic-vz", "Sun & Baruh 3-D rod; spec 2.3", "P", "v'_z m/s (SB model)", -0.251, 1e-3, "3 decimals"},
    {"SB-rod3d-exact-vx", "Sun & Baruh 3-D rod, exact integration; spec 2.3", "P", "v'_x m/s (exact)", 0.384, 1e-3,
     "3 decimals"},
    {"SB-rod3d-exact-vy", "Sun & Baruh 3-D rod, exact; spec 2.3 (y mirrored)", "P", "v'_y m/s (exact)", 0.243, 1e-3,
     "3 decimals"},
    {"SB-rod3d-exact-vz", "Sun & Baruh 3-D rod, exact; spec 2.3", "P", "v'_z m/s (exact)", -0.213, 1e-3, "3 decimals"},
    {"HS-T2.5B-newton", "Han Sun Table 2.5 B (K_f/K_i, Newton); spec 7.1", "P", "K_f/K_i %", 64.3, 0.5,
     "issue: within 0.5 percentage points"},
    {"HS-T2.5B-stronge-hs", "Han Sun Table 2.5 B (HS mass-scaled Stronge, 3.50)", "P", "K_f/K_i %", 65.9, 0.5,
     "issue: within 0.5 percentage points"},
    {"HS-Ex1-boundary-1", "Han Sun ch. 3 Ex 1 (Fig 3.12), case 0 -> 4b", "R", "v_x (stated in [-1.50,-1.45])",
     -1.475, 0.025, "the stated 0.05 grid: the boundary lies between two grid points"},
    {"HS-Ex1-boundary-2", "Han Sun ch. 3 Ex 1 (Fig 3.12), case 4b -> 2b", "R", "v_x (stated in [-0.75,-0.70])",
     -0.725, 0.025, "the stated 0.05 grid"},
    {"HS-Fig3.16-t1", "Han Sun Fig 3.16, case 0 -> 4", "P", "beta rad", 0.70, 0.01, "issue: within 0.01 rad"},
    {"HS-Fig3.16-t2", "Han Sun Fig 3.16, case 4 -> 2", "P", "beta rad", 0.95, 0.01, "issue: within 0.01 rad"},
    {"HS-Fig3.16-t3", "Han Sun Fig 3.16, case 2 -> 1", "P", "beta rad", 1.04, 0.01, "issue: within 0.01 rad"},
    {"HS-Fig3.16-t4", "Han Sun Fig 3.16, case 1 -> 3", "P", "beta rad", 1.79, 0.01, "issue: within 0.01 rad"},
    {"HS-Fig3.16-t5", "Han Sun Fig 3.16, case 3 -> 0", "P", "beta rad", 1.87, 0.01, "issue: within 0.01 rad"},
    {"SB-reversal-angle", "Sun & Baruh Fig 3 (R2 = mu_s, alpha = 1/3, mu_s = 0.4); spec 1.5", "R", "theta deg",
     30.02, 0.005, "spec quotes 2 decimals"},
    {"TT-container-Ixx", "Titovich 2.10 container (32 x 25 x 22.5 in, 100 lb)", "R", "I_G,xx slug ft^2", 2.0331,
     5e-5, "4 printed decimals"},
    {"TT-container-Iyy", "Titovich 2.10 container", "R", "I_G,yy slug ft^2", 2.7502, 5e-5, "4 printed decimals"},
    {"TT-container-Izz", "Titovich 2.10 container", "R", "I_G,zz slug ft^2", 2.9636, 5e-5, "4 printed decimals"},
    {"TT-container-psi_f", "Titovich 2.10 container corner angle", "R", "psi_f deg", 38, 0.5, "printed in whole degrees"},
    {"TT-container-psi_s", "Titovich 2.10 container corner angle", "R", "psi_s deg", 42, 0.5, "printed in whole degrees"},
    {"FW-bat-sigma-x", "Wang Fig 4.3 (batting), stick direction sigma", "P", "sigma_x", 0.76538, 3e-3,
     "issue: 3e-3 (Figs 4.2 and 4.3 disagree by 1e-2 on sigma)"},
    {"FW-bat-sigma-y", "Wang Fig 4.3 (batting)", "P", "sigma_y", -0.0959546, 3e-3, "issue: 3e-3"},
    {"FW-bat-sigma-z", "Wang Fig 4.3 (batting)", "P", "sigma_z", 0.674322, 3e-3, "issue: 3e-3"},
    {"FW-bat-delta1-x", "Wang Fig 4.2 (batting), straight-sliding edge delta", "P", "delta1_x", 0.644738, 3e-3,
     "issue: 3e-3"},
    {"FW-bat-delta1-y", "Wang Fig 4.2 (batting)", "P", "delta1_y", -0.232654, 3e-3, "issue: 3e-3"},
    {"FW-bat-delta1-z", "Wang Fig 4.2 (batting)", "P", "delta1_z", 0.883281, 3e-3, "issue: 3e-3"},
    {"FW-bat-delta2-x", "Wang Fig 4.3 (batting), second delta", "P", "delta2_x", 1.10631, 3e-3, "issue: 3e-3"},
    {"FW-bat-delta2-y", "spec 7.1 prototype for Wang Fig 4.3 (batting), second delta", "P", "delta2_y", -0.13235,
     5e-5,
     "pinned to the spec's independent prototype (5 printed digits). Wang prints -0.138026: the issue's 3e-3 is "
     "missed by 2.7e-3 (5.7e-3 off); his Figs 4.2 and 4.3 give the same configuration's first delta 1.9e-3 apart"},
    {"FW-bat-delta2-z", "Wang Fig 4.3 (batting), second delta", "P", "delta2_z", 0.0838131, 3e-3, "issue: 3e-3"},
    {"FW-icosa-Binvd", "Wang 2.20 (icosahedron-tetrahedron)", "P", "||B^-1 d||", 0.3157, 5e-5, "4 printed digits"},
    {"FW-icosa-Ir-x", "Wang 2.14, exact-inverse v-; spec 7.1", "P", "I_r,x N s", -0.00326657, 1e-6, "issue: 1e-6"},
    {"FW-icosa-Ir-y", "Wang 2.14, exact-inverse v-; spec 7.1", "P", "I_r,y N s", -0.0592263, 1e-6, "issue: 1e-6"},
    {"FW-icosa-Ir-z", "Wang 2.14, exact-inverse v-; spec 7.1", "P", "I_r,z N s", 0.1007, 1e-6,
     "issue: 1e-6 (printed with 4 digits only: 0.1007 is exact to them)"},
    {"FW-cradle-v0", "Wang 3.4.1: release 5pi/36 on l = 0.129 m, theta0 sqrt(g l), g = 9.81", "P",
     "v0 m/s vs her Table 3.1 row sum", 0.4901, 1e-3,
     "equal masses: her simulated row's sum is v0 (momentum); 5 roundings of 5e-5, and g unstated"},
    {"FW-cradle-v1", "Wang Table 3.1, Algorithm 2, linear springs, e = 0.95 (spec 7.1 prototype)", "N",
     "v1'/v0", -0.099, 5e-4,
     "pinned to the spec's independent prototype (3 decimals); Wang prints -0.0568 m/s = -0.1157 v0: not "
     "reproduced (docs/solver.md)"},
    {"FW-cradle-v2", "Wang Table 3.1 (spec 7.1 prototype)", "N", "v2'/v0", -0.046, 5e-4,
     "spec prototype; Wang -0.0380 m/s = -0.0774 v0"},
    {"FW-cradle-v3", "Wang Table 3.1 (spec 7.1 prototype)", "N", "v3'/v0", -0.010, 5e-4,
     "spec prototype; Wang -0.0002 m/s = -0.0004 v0"},
    {"FW-cradle-v4", "Wang Table 3.1 (spec 7.1 prototype)", "N", "v4'/v0", 0.278, 5e-4,
     "spec prototype; Wang 0.1450 m/s = 0.2954 v0"},
    {"FW-cradle-v5", "Wang Table 3.1 (spec 7.1 prototype)", "N", "v5'/v0", 0.878, 5e-4,
     "spec prototype; Wang 0.4401 m/s = 0.8967 v0"},
    {"FW-cradle-hertz-v5", "Wang 3.2.3 Hertz F = k x^1.5, force-continuous (spec 7.1 prototype)", "N", "v5'/v0",
     0.907, 5e-4, "spec prototype, 3 decimals"},
#define AK_WHY "rigid chain (Stronge e fitted to his v_Ty') vs his compliant Jackson-Green simulation: 10% of it"
    {"AK-1-vTx", "Akhan 4.1 (v_Ty 1.2, 50 deg), his simulation", "P", "v_Tx' m/s", -1.249, 0.125, AK_WHY},
    {"AK-1-vC2y", "Akhan 4.1, his simulation", "P", "v_C2y' m/s (y down)", 1.005, 0.1, AK_WHY},
    {"AK-1-vC2x", "Akhan 4.1, his simulation", "P", "v_C2x' m/s", 0.614, 0.061, AK_WHY},
    {"AK-1-w2", "Akhan 4.1, his simulation", "P", "omega_2' rad/s", 6.348, 0.635, AK_WHY},
    {"AK-1-esys", "Akhan 4.1 eq. 4.1, his simulation", "P", "e = sqrt(E'/E) chain", 0.8842, 0.088, AK_WHY},
    {"AK-2-vTx", "Akhan 4.2 (v_Ty 1.2, 55 deg), his simulation", "P", "v_Tx' m/s", -1.191, 0.119, AK_WHY},
    {"AK-2-w1", "Akhan 4.2, his simulation", "P", "omega_1' rad/s", 15.955, 1.6, AK_WHY},
    {"AK-2-vC2y", "Akhan 4.2, his simulation", "P", "v_C2y' m/s (y down)", 0.924, 0.092, AK_WHY},
    {"AK-2-vC2x", "Akhan 4.2, his simulation", "P", "v_C2x' m/s", 0.622, 0.062, AK_WHY},
    {"AK-2-w2", "Akhan 4.2, his simulation", "P", "omega_2' rad/s", 8.982, 0.9, AK_WHY},
    {"AK-2-esys", "Akhan 4.2 eq. 4.1, his simulation", "P", "e = sqrt(E'/E) chain", 0.8679, 0.087, AK_WHY},
    {"AK-3-vTx", "Akhan 4.3 (v_Ty 1.2, 60 deg), his simulation", "P", "v_Tx' m/s", -1.054, 0.105, AK_WHY},
    {"AK-3-w1", "Akhan 4.3, his simulation", "P", "omega_1' rad/s", 12.552, 1.26, AK_WHY},
    {"AK-3-vC2y", "Akhan 4.3, his simulation", "P", "v_C2y' m/s (y down)", 0.835, 0.084, AK_WHY},
    {"AK-3-w2", "Akhan 4.3, his simulation", "P", "omega_2' rad/s", 11.839, 1.18, AK_WHY},
#undef AK_WHY
};

int impact_reference_count(void) { return (int)(sizeof refs / sizeof refs[0]); }

const impact_reference *impact_reference_at(int i)
{
    return i >= 0 && i < impact_reference_count() ? &refs[i] : NULL;
}

static int solve_v(impact_case c, impact_method m, icv_restitution law, impact_result *r, icv_err *err)
{
    c.method = m;
    c.law = law;
    return impact_solve(&c, r, err);
}

int impact_reference_compute(int i, double *value, icv_err *err)
{
    const impact_reference *ref = impact_reference_at(i);
    if (!ref)
        return icv_err_set(err, ICV_EINVAL, "reference: no case %d", i);
    const char *id = ref->id;
    impact_result r;
    int rc = 0;
    if (!strncmp(id, "TT-rod-", 7)) {
        impact_case c = tt_rod(id[7] == '7' ? -7 : -4);
        icv_vec3 v;
        double wz = 0;
        if (strstr(id, "algebraic")) {
            v = tt_algebraic(&c);
            /* omega' of the sticking case from the same impulse */
            icv_mat3 inv;
            icv_m3_inverse(icv_m3_rotate_tensor(c.R, c.inertia), &inv);
            icv_vec3 P = icv_v3_scale(icv_v3_sub(v, c.v), c.mass);
            wz = icv_v3_add(c.omega, icv_m3_apply(inv, icv_v3_cross(c.r, P))).z;
        } else {
            rc = solve_v(c, IMPACT_EXACT, ICV_RESTITUTION_STRONGE, &r, err);
            v = r.v;
        }
        const char *q = id + strlen(id) - 2;
        *value = !strcmp(q, "vx") ? v.x : !strcmp(q, "vy") ? v.y : !strcmp(q, "vz") ? v.z : wz;
    } else if (!strncmp(id, "SB-rod3d-", 9)) {
        impact_case c = impact_reference_sb_rod(10 * M_PI / 180, 25 * M_PI / 180);
        rc = solve_v(c, strstr(id, "exact") ? IMPACT_EXACT : IMPACT_ALGEBRAIC, ICV_RESTITUTION_POISSON, &r, err);
        char q = id[strlen(id) - 1];
        *value = q == 'x' ? r.v.x : q == 'y' ? r.v.y : r.v.z;
    } else if (!strncmp(id, "HS-T2.5B", 8)) {
        int hs = strstr(id, "stronge-hs") != NULL;
        rc = hs_planar_ratio(1, 3 * M_PI / 4, 0.395, 0.195, 1.0 / 3,
                             hs ? ICV_RESTITUTION_STRONGE : ICV_RESTITUTION_NEWTON, hs, value, err);
    } else if (!strncmp(id, "HS-Ex1-boundary-", 16)) {
        rc = hs_ex1_boundary(id[16] - '1', value, err);
    } else if (!strncmp(id, "HS-Fig3.16-t", 12)) {
        rc = hs_fig316_transition(id[12] - '1', value, err);
    } else if (!strcmp(id, "SB-reversal-angle")) {
        double lo = 20, hi = 40;
        for (int it = 0; it < 60; it++) {
            double m = 0.5 * (lo + hi), th = m * M_PI / 180, a = 1.0 / 3;
            double rx = -sin(th), ry = -cos(th);
            planar_problem pp = {.ktt = 1 + ry * ry / a, .ktn = -rx * ry / a, .knn = 1 + rx * rx / a,
                                 .ut0 = 0, .un0 = -1, .mu_s = 0.4, .mu_k = 0.4, .e = 0.7};
            if (impact_planar_case_predicted(&pp) == 6)
                hi = m;
            else
                lo = m;
        }
        *value = 0.5 * (lo + hi);
    } else if (!strncmp(id, "TT-container-", 13)) {
        /* a uniform box, L1 x L2 x L3 = 32 x 25 x 22.5 in, 100 lb at g = 32.2 ft/s^2 */
        double L1 = 32.0 / 12, L2 = 25.0 / 12, L3 = 22.5 / 12, m = 100 / 32.2;
        const char *q = id + 13;
        *value = !strcmp(q, "Ixx")     ? m * (L2 * L2 + L3 * L3) / 12
                 : !strcmp(q, "Iyy")   ? m * (L1 * L1 + L3 * L3) / 12
                 : !strcmp(q, "Izz")   ? m * (L1 * L1 + L2 * L2) / 12
                 : !strcmp(q, "psi_f") ? atan(L2 / L1) * 180 / M_PI
                                       : atan(L3 / L2) * 180 / M_PI;
    } else if (!strncmp(id, "FW-bat-", 7)) {
        double out[3];
        fw_bat(!strncmp(id + 7, "sigma", 5) ? 0 : !strncmp(id + 7, "delta1", 6) ? 1 : 2, out);
        char q = id[strlen(id) - 1];
        *value = out[q - 'x'];
    } else if (!strncmp(id, "FW-icosa", 8)) {
        contact_problem pr;
        fw_icosa(&pr);
        if (!strcmp(id, "FW-icosa-Binvd")) {
            *value = impact_contact_stick_ratio(&pr);
        } else {
            /* the public two-body solve in contact space: Wang's (x, y, z = normal) are
             * our (x, z, y) */
            impact_contact_case cc = {.mu_s = pr.mu_s, .mu_k = pr.mu_k, .e_n = pr.e, .law = pr.law,
                                      .method = IMPACT_EXACT};
            const int ax[3] = {0, 2, 1}; /* our axis -> Wang's */
            double W[3][3] = {{pr.B[0][0], pr.B[0][1], pr.d[0]}, {pr.B[1][0], pr.B[1][1], pr.d[1]},
                              {pr.d[0], pr.d[1], pr.w}};
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++)
                    cc.K.m[a][b] = W[ax[a]][ax[b]];
            cc.u0 = icv_v3(pr.ut0[0], pr.un0, pr.ut0[1]);
            impact_result tmp;
            rc = impact_contact_solve(&cc, &tmp, err);
            char q = id[strlen(id) - 1];
            *value = q == 'x' ? tmp.impulse.x : q == 'y' ? tmp.impulse.z : tmp.impulse.y;
        }
    } else if (!strncmp(id, "FW-cradle-", 10)) {
        double v[5], v0 = impact_row_pendulum_speed(0.129, 5 * M_PI / 36, 9.81);
        if (!strcmp(id, "FW-cradle-v0")) {
            *value = v0;
        } else {
            int hertz = strstr(id, "hertz") != NULL;
            rc = impact_reference_cradle(hertz ? 1.5 : 1, v, err);
            *value = v[id[strlen(id) - 1] - '1'] / v0;
        }
    } else if (!strncmp(id, "AK-", 3)) {
        static const double vty[3] = {-1.044, -1.034, -1.025}; /* his simulated v_Ty' */
        int k = id[3] - '0';
        double e, out[9];
        rc = impact_reference_akhan_fit_e(k, 1, vty[k - 1], &e, err);
        if (rc < 0)
            return rc;
        impact_chain_case c = impact_reference_akhan_chain(k, e, 1);
        impact_chain_result r;
        rc = impact_chain_solve(&c, &r, err);
        impact_reference_akhan_outputs(&r, out);
        const char *q = id + 5;
        *value = !strcmp(q, "vTx")    ? out[1]
                 : !strcmp(q, "w1")   ? out[2]
                 : !strcmp(q, "vC2y") ? out[3]
                 : !strcmp(q, "vC2x") ? out[4]
                 : !strcmp(q, "w2")   ? out[5]
                                      : out[8];
    } else {
        return icv_err_set(err, ICV_EINVAL, "reference: no method for %s", id);
    }
    return rc;
}

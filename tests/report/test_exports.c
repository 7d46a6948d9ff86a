/* test_exports.c: the exports read back (issue #10 item 4). Noise-free tracks of
 * the box scenario (tests/analysis/impact_scenario.h) with one marker hidden in
 * one frame go out as TRC, C3D and pose CSV; each file is read back and compared
 * with the tracks and the scenario's true motion. No reference C3D file was
 * available here: the C3D layout is checked against the specification's fixed
 * positions (header words, parameter section head, 512-byte blocks) by reading the
 * raw bytes, and the data through report_c3d_read. */
#include <stdint.h>
#include <stdlib.h>

#include "report/report.h"
#include "tests/report/report_fixture.h"

enum { HIDE_FRAME = 40, HIDE_MARKER = 1 };

static void tracks(analysis_tracks *tr, scenario *s)
{
    make_scenario(s, 0);
    sample(s, 0.45, 0.0, 1, tr); /* noise-free: read-back errors are the file's rounding only */
    tr->seen[HIDE_FRAME * tr->n_markers + HIDE_MARKER] = 0;
}

TEST(test_trc_export_reads_back_in_millimetres_with_opensim_header)
{
    analysis_tracks tr;
    scenario s;
    tracks(&tr, &s);
    icv_err err = {0};
    int rc = report_export_trc(th_tmp("tracks.trc"), &tr, &err);
    int nf = tr.n_frames, nm = tr.n_markers;
    static analysis_tracks keep;
    analysis_tracks_free(&keep);
    keep = tr; /* freed by the next run or left reachable: a failed ASSERT must not leak */
    ASSERT(rc == 0, "%s", err.msg);
    FILE *f = fopen(th_tmp("tracks.trc"), "r");
    ASSERT(f, "no file");
    char line[4096], units[8] = "";
    double rate = 0, cam = 0;
    int frames = 0, markers = 0, ok = 1;
    ok &= fgets(line, sizeof line, f) && !strncmp(line, "PathFileType\t4\t(X/Y/Z)\ttracks.trc", 31);
    ok &= fgets(line, sizeof line, f) && !strncmp(line, "DataRate\tCameraRate\tNumFrames\tNumMarkers\tUnits", 46);
    ok &= fgets(line, sizeof line, f) && sscanf(line, "%lf\t%lf\t%d\t%d\t%7s", &rate, &cam, &frames, &markers, units) == 5;
    ok &= fgets(line, sizeof line, f) && !strncmp(line, "Frame#\tTime\tm0\t\t\tm1\t\t\tm2", 24);
    ok &= fgets(line, sizeof line, f) && !strncmp(line, "\t\tX1\tY1\tZ1\tX2", 13);
    ok &= fgets(line, sizeof line, f) && line[0] == '\n';
    ASSERT(ok, "TRC header differs from OpenSim's layout at: %s", line);
    ASSERT_NEAR(rate, 120, 1e-6); /* the scenario samples at 120 fps */
    ASSERT_NEAR(cam, 120, 1e-6);
    ASSERT_EQ_INT(frames, nf);
    ASSERT_EQ_INT(markers, nm);
    ASSERT(!strcmp(units, "mm"), "units %s", units);
    double worst = 0;
    int rows = 0, empty_ok = 0;
    while (fgets(line, sizeof line, f)) {
        char *q = line;
        int frame = (int)strtol(q, &q, 10);
        double t = strtod(q + 1, &q);
        int i = frame - 1;
        if (i < 0 || i >= nf)
            break;
        worst = fmax(worst, fabs(t - keep.t[i]));
        for (int k = 0; k < nm; k++) {
            if (!keep.seen[i * nm + k]) {
                empty_ok += !strncmp(q, "\t\t\t", 3);
                q += 3;
                continue;
            }
            double x[3];
            for (int a = 0; a < 3; a++)
                x[a] = strtod(q + 1, &q);
            icv_vec3 p = keep.pos[i * nm + k];
            worst = fmax(worst, fabs(x[0] - 1e3 * p.x) + fabs(x[1] - 1e3 * p.y) + fabs(x[2] - 1e3 * p.z));
        }
        rows++;
    }
    fclose(f);
    ASSERT_EQ_INT(rows, nf);
    ASSERT_EQ_INT(empty_ok, 1);
    ASSERT_NEAR(worst, 0, 3e-6); /* %.6f mm: 5e-7 mm per value, three summed; times %.9g */
}

TEST(test_c3d_export_follows_the_spec_layout_and_reads_back)
{
    analysis_tracks tr;
    scenario s;
    tracks(&tr, &s);
    static analysis_tracks keep;
    analysis_tracks_free(&keep);
    keep = tr;
    icv_err err = {0};
    int rc = report_export_c3d(th_tmp("tracks.c3d"), &tr, &err);
    ASSERT(rc == 0, "%s", err.msg);
    /* raw layout (C3D User Guide: header block, parameter head, blocks of 512) */
    static char *raw;
    free(raw);
    raw = report_fixture_read(th_tmp("tracks.c3d"));
    FILE *f = fopen(th_tmp("tracks.c3d"), "rb");
    ASSERT(raw && f, "no file");
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fclose(f);
    const unsigned char *b = (const unsigned char *)raw;
    ASSERT_EQ_INT(size % 512, 0);
    ASSERT_EQ_INT(b[0], 2);    /* parameters in block 2 */
    ASSERT_EQ_INT(b[1], 0x50); /* the C3D key */
    ASSERT_EQ_INT(b[2] | b[3] << 8, keep.n_markers);
    ASSERT_EQ_INT(b[6] | b[7] << 8, 1);               /* first frame */
    ASSERT_EQ_INT(b[8] | b[9] << 8, keep.n_frames);   /* last frame */
    float scale, rate;
    memcpy(&scale, b + 12, 4); /* little-endian host: Intel order as written */
    memcpy(&rate, b + 20, 4);
    ASSERT_NEAR(scale, -1, 0); /* negative: float data */
    ASSERT_NEAR(rate, 120, 1e-3); /* float of 120 fps */
    int data_start = b[16] | b[17] << 8;
    ASSERT_EQ_INT(b[512 + 1], 0x50);
    ASSERT_EQ_INT(b[512 + 3], 84); /* processor type: Intel */
    ASSERT_EQ_INT(data_start, 2 + b[512 + 2]);
    ASSERT_EQ_INT((long)(data_start - 1) * 512 + ((long)keep.n_frames * keep.n_markers * 16 + 511) / 512 * 512, size);
    /* the parameters and data through the reader */
    report_c3d c;
    rc = report_c3d_read(th_tmp("tracks.c3d"), &c, &err);
    ASSERT(rc == 0, "%s", err.msg);
    int ok = c.n_points == keep.n_markers && c.n_frames == keep.n_frames && c.data_start_block == data_start &&
             !strcmp(c.units, "mm") && !strcmp(c.labels[0], "m0") && !strcmp(c.labels[3], "m3");
    double worst = 0, rate_back = c.rate, scale_back = c.scale;
    int invalid = 0;
    for (int i = 0; i < c.n_frames && ok; i++)
        for (int k = 0; k < c.n_points; k++) {
            const float *x = &c.xyzr[((size_t)i * c.n_points + k) * 4];
            if (!keep.seen[i * keep.n_markers + k]) {
                invalid += x[3] == -1.0f;
                continue;
            }
            icv_vec3 p = keep.pos[i * keep.n_markers + k];
            worst = fmax(worst, fmax(fabs(x[0] - 1e3 * p.x), fmax(fabs(x[1] - 1e3 * p.y), fabs(x[2] - 1e3 * p.z))));
            invalid += x[3] != 0.0f;
        }
    report_c3d_free(&c);
    ASSERT(ok, "POINT parameters differ from what was written");
    ASSERT_NEAR(rate_back, 120, 1e-3);
    ASSERT_NEAR(scale_back, -1, 0);
    ASSERT_EQ_INT(invalid, 1); /* exactly the hidden marker is flagged -1 */
    ASSERT_NEAR(worst, 0, 1e-4); /* float: 2^-24 relative of <= 400 mm is 2.4e-5 mm */
}

TEST(test_c3d_read_rejects_a_file_that_is_not_c3d)
{
    th_write_file(th_tmp("x.c3d"), "not a c3d file at all");
    report_c3d c;
    icv_err err = {0};
    ASSERT(report_c3d_read(th_tmp("x.c3d"), &c, &err) == ICV_EFORMAT, "accepted");
    ASSERT_STR_CONTAINS(err.msg, "x.c3d: not a C3D file");
}

TEST(test_pose_csv_export_reads_back_the_true_motion)
{
    analysis_tracks tr;
    scenario s;
    tracks(&tr, &s);
    static analysis_tracks keep;
    analysis_tracks_free(&keep);
    keep = tr;
    icv_err err = {0};
    int rc = report_export_pose_csv(th_tmp("pose.csv"), &tr, &s.body, &err);
    ASSERT(rc == 0, "%s", err.msg);
    FILE *f = fopen(th_tmp("pose.csv"), "r");
    ASSERT(f, "no file");
    char line[1024];
    int ok = fgets(line, sizeof line, f) &&
             !strcmp(line, "frame,time_s,x_m,y_m,z_m,qw,qx,qy,qz,theta1_rad,theta2_rad,theta3_rad,rms_m\n");
    double worst_p = 0, worst_r = 0, worst_e = 0;
    int rows = 0;
    while (ok && fgets(line, sizeof line, f)) {
        int frame;
        double t, x, y, z, q[4], e[3], rms;
        if (sscanf(line, "%d,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf", &frame, &t, &x, &y, &z, &q[0], &q[1],
                   &q[2], &q[3], &e[0], &e[1], &e[2], &rms) != 13) {
            ok = 0;
            break;
        }
        rows++;
        /* the true pose at t (impact_scenario.h's sample) */
        double tau = t - s.t_star;
        icv_vec3 v0 = tau < 0 ? s.v_pre : s.v_post, w0 = tau < 0 ? s.w_pre : s.w_post, w;
        icv_vec3 p = icv_v3_add(icv_v3_add(s.p, icv_v3_scale(v0, tau)), icv_v3_scale(G, 0.5 * tau * tau));
        icv_mat3 R, Rq, Re;
        icv_rigid_rotate(s.R, w0, s.body.inertia, tau, &R, &w);
        Rq = icv_quat_to_matrix((icv_quat){q[0], q[1], q[2], q[3]});
        Re = icv_euler213_to_matrix(icv_v3(e[0], e[1], e[2]));
        worst_p = fmax(worst_p, icv_v3_norm(icv_v3_sub(icv_v3(x, y, z), p)));
        worst_r = fmax(worst_r, icv_v3_norm(icv_rot_to_axis_angle(icv_m3_mul(Rq, icv_m3_transpose(R)))));
        worst_e = fmax(worst_e, icv_v3_norm(icv_rot_to_axis_angle(icv_m3_mul(Re, icv_m3_transpose(Rq)))));
        ok &= q[0] >= 0;
    }
    fclose(f);
    ASSERT(ok, "a row is malformed or has qw < 0: %s", line);
    ASSERT_EQ_INT(rows, keep.n_frames); /* 3 of 4 markers still give the hidden frame a pose */
    ASSERT_NEAR(worst_p, 0, 1e-7);      /* noise-free markers; %.9g printing */
    ASSERT_NEAR(worst_r, 0, 1e-6);      /* quaternion printed to 9 digits */
    ASSERT_NEAR(worst_e, 0, 1e-6);      /* the euler columns are the same rotation */
}

TEST(test_exports_write_leaves_the_three_files_in_the_folder)
{
    analysis_tracks tr;
    scenario s;
    tracks(&tr, &s);
    icv_err err = {0};
    int rc = report_exports_write(th_tmpdir(), &tr, &s.body, &err);
    analysis_tracks_free(&tr);
    ASSERT(rc == 0, "%s", err.msg);
    report_c3d c;
    rc = report_c3d_read(th_tmp("tracks3d.c3d"), &c, &err);
    ASSERT(rc == 0, "%s", err.msg);
    report_c3d_free(&c);
    ASSERT_STR_CONTAINS(th_read_file(th_tmp("tracks3d.trc")), "PathFileType\t4");
    ASSERT_STR_CONTAINS(th_read_file(th_tmp("pose.csv")), "frame,time_s,x_m");
}

/* ---- interop (issue #20 item 5) ------------------------------------------
 * A TRC reader written to OpenSim's TRCFileAdapter rules (opensim-core,
 * OpenSim/Common/TRCFileAdapter.cpp and FileAdapter.cpp's tokenize): fields split on
 * tab (and \r); an empty field after the row's last tab is NOT a field; keys, values
 * and labels lose their empty fields; 8 metadata keys in OpenSim's order; NumMarkers
 * + 2 column labels starting Frame#, Time; X<i> Y<i> Z<i> from 1; blank lines before
 * the data skipped, a blank line ends it; every data row exactly 2 + 3 * markers
 * fields (else RowLengthMismatch); a marker with any empty component is missing. */
enum { OS_MAX_TOK = 256 };

static int os_tokenize(char *line, char **tok)
{
    size_t len = strlen(line);
    while (len && (line[len - 1] == '\n'))
        line[--len] = 0;
    if (len && line[len - 1] == '\r')
        line[--len] = 0;
    int n = 0;
    char *s = line;
    for (;;) {
        char *e = strpbrk(s, "\t\r");
        if (!e)
            break;
        *e = 0;
        if (n < OS_MAX_TOK)
            tok[n++] = s;
        s = e + 1;
    }
    if (*s && n < OS_MAX_TOK) /* the last field only when not empty */
        tok[n++] = s;
    return n;
}

static int os_erase_empty(char **tok, int n)
{
    int m = 0;
    for (int i = 0; i < n; i++)
        if (tok[i][0])
            tok[m++] = tok[i];
    return m;
}

/* 0 and the table, or -1 and why in msg (OpenSim's exception) */
static int opensim_trc_read(const char *path, int *n_markers, int *n_rows, double *times, double *xyz, int max_rows,
                            char *msg, size_t msz)
{
    static const char *keys[8] = {"DataRate", "CameraRate", "NumFrames", "NumMarkers", "Units", "OrigDataRate",
                                  "OrigDataStartFrame", "OrigNumFrames"};
    FILE *f = fopen(path, "r");
    if (!f)
        return snprintf(msg, msz, "FileDoesNotExist"), -1;
    static char line[65536];
    char *tok[OS_MAX_TOK];
    int n, rc = -1, line_no = 1;
    if (!fgets(line, sizeof line, f) || strncmp(line, "PathFileType", 12)) {
        snprintf(msg, msz, "MissingHeader");
        goto out;
    }
    line_no++;
    if (!fgets(line, sizeof line, f) || (n = os_erase_empty(tok, os_tokenize(line, tok))) != 8) {
        snprintf(msg, msz, "IncorrectNumMetaDataKeys");
        goto out;
    }
    for (int i = 0; i < 8; i++)
        if (strcmp(tok[i], keys[i])) {
            snprintf(msg, msz, "UnexpectedMetaDataKey %s", tok[i]);
            goto out;
        }
    line_no++;
    if (!fgets(line, sizeof line, f) || (n = os_erase_empty(tok, os_tokenize(line, tok))) != 8) {
        snprintf(msg, msz, "MetaDataLengthMismatch");
        goto out;
    }
    int nm = (int)strtoul(tok[3], NULL, 10);
    line_no++;
    if (!fgets(line, sizeof line, f) || (n = os_erase_empty(tok, os_tokenize(line, tok))) != nm + 2 ||
        strcmp(tok[0], "Frame#") || strcmp(tok[1], "Time")) {
        snprintf(msg, msz, "IncorrectNumColumnLabels (expected %d)", nm + 2);
        goto out;
    }
    line_no++;
    if (!fgets(line, sizeof line, f) || (n = os_erase_empty(tok, os_tokenize(line, tok))) < 3 * nm) {
        snprintf(msg, msz, "UnexpectedColumnLabel (X/Y/Z line)");
        goto out;
    }
    for (int i = 0; i < 3 * nm; i++) {
        char want[16];
        snprintf(want, sizeof want, "%c%d", "XYZ"[i % 3], i / 3 + 1);
        if (strcmp(tok[i], want)) {
            snprintf(msg, msz, "UnexpectedColumnLabel expected %s got %s", want, tok[i]);
            goto out;
        }
    }
    int rows = 0;
    n = 0;
    while (fgets(line, sizeof line, f)) { /* skip blank lines before the data */
        line_no++;
        n = os_tokenize(line, tok);
        if (n > 0 && tok[0][0])
            break;
        n = 0;
    }
    while (n > 0) {
        if (n != 2 + 3 * nm) {
            snprintf(msg, msz, "RowLengthMismatch at line %d: expected %d, got %d", line_no, 2 + 3 * nm, n);
            goto out;
        }
        if (rows >= max_rows) {
            snprintf(msg, msz, "more rows than the test expects");
            goto out;
        }
        times[rows] = strtod(tok[1], NULL);
        for (int k = 0; k < nm; k++) {
            int missing = !tok[2 + 3 * k][0] || !tok[3 + 3 * k][0] || !tok[4 + 3 * k][0];
            for (int a = 0; a < 3; a++)
                xyz[((size_t)rows * nm + k) * 3 + a] = missing ? NAN : strtod(tok[2 + 3 * k + a], NULL);
        }
        rows++;
        n = 0;
        if (fgets(line, sizeof line, f)) {
            line_no++;
            n = os_tokenize(line, tok);
        }
    }
    *n_markers = nm;
    *n_rows = rows;
    rc = 0;
out:
    fclose(f);
    return rc;
}

TEST(test_trc_export_is_read_by_opensims_rules_with_the_last_marker_missing)
{
    analysis_tracks tr;
    scenario s;
    tracks(&tr, &s);
    int nm = tr.n_markers, nf = tr.n_frames;
    tr.seen[10 * nm + nm - 1] = 0; /* the last marker missing: the row OpenSim refused */
    tr.seen[11 * nm + 0] = 0;      /* and the first */
    static analysis_tracks keep;
    analysis_tracks_free(&keep);
    keep = tr;
    icv_err err = {0};
    int rc = report_export_trc(th_tmp("os.trc"), &tr, &err);
    ASSERT(rc == 0, "%s", err.msg);
    static double times[4096], xyz[4096 * 3 * 8];
    int rnm = 0, rows = 0;
    char msg[256] = "";
    ASSERT(nf <= 4096 && nm <= 8, "fixture larger than the reader's arrays");
    rc = opensim_trc_read(th_tmp("os.trc"), &rnm, &rows, times, xyz, 4096, msg, sizeof msg);
    ASSERT(rc == 0, "OpenSim's rules refuse the TRC: %s", msg);
    ASSERT_EQ_INT(rnm, nm);
    ASSERT_EQ_INT(rows, nf);
    double worst = 0;
    int missing = 0, wrong_missing = 0;
    for (int i = 0; i < nf; i++) {
        worst = fmax(worst, fabs(times[i] - keep.t[i]));
        for (int k = 0; k < nm; k++) {
            const double *x = &xyz[((size_t)i * nm + k) * 3];
            int seen = keep.seen[i * nm + k];
            if (isnan(x[0])) {
                missing++;
                wrong_missing += seen;
                continue;
            }
            icv_vec3 p = keep.pos[i * nm + k];
            worst = fmax(worst, fabs(x[0] - 1e3 * p.x) + fabs(x[1] - 1e3 * p.y) + fabs(x[2] - 1e3 * p.z));
        }
    }
    ASSERT_EQ_INT(missing, 3); /* tracks()' hidden marker and the two above */
    ASSERT_EQ_INT(wrong_missing, 0);
    ASSERT_NEAR(worst, 0, 3e-6); /* %.6f mm, three summed; times %.9g */
}

/* tracks as tracks3d.csv holds them: times rounded to 1 ns, a sync offset */
static void rounded_tracks(analysis_tracks *tr, double fps, int n, double offset)
{
    icv_err err = {0};
    analysis_tracks_alloc(tr, n, 3, 0, &err);
    for (int i = 0; i < n; i++) {
        tr->frame[i] = 7 + i + (i > n / 2); /* one dropped frame */
        tr->t[i] = round((tr->frame[i] / fps - offset) * 1e9) / 1e9;
        for (int k = 0; k < 3; k++) {
            tr->pos[i * 3 + k] = icv_v3(0.01 * k, 0.1 - 1e-3 * i, 0.02);
            tr->seen[i * 3 + k] = 1;
        }
    }
}

TEST(test_export_rates_are_exact_for_240_fps_and_ntsc)
{
    static const double fps[] = {240, 120000.0 / 1001, 1000, 30000.0 / 1001, 6000};
    double worst_c3d = 0, worst_trc = 0;
    for (size_t j = 0; j < sizeof fps / sizeof fps[0]; j++) {
        analysis_tracks tr;
        rounded_tracks(&tr, fps[j], 60, 0.0123456785);
        icv_err err = {0};
        int rc = report_export_c3d(th_tmp("r.c3d"), &tr, &err);
        rc = rc ? rc : report_export_trc(th_tmp("r.trc"), &tr, &err);
        analysis_tracks_free(&tr);
        ASSERT(rc == 0, "%s", err.msg);
        report_c3d c;
        rc = report_c3d_read(th_tmp("r.c3d"), &c, &err);
        ASSERT(rc == 0, "%s", err.msg);
        worst_c3d = fmax(worst_c3d, fabs(c.rate - (float)fps[j]));
        report_c3d_free(&c);
        FILE *f = fopen(th_tmp("r.trc"), "r");
        ASSERT(f, "no TRC");
        char line[512];
        double rate = 0;
        for (int l = 0; l < 3 && fgets(line, sizeof line, f); l++)
            if (l == 2)
                rate = strtod(line, NULL);
        fclose(f);
        worst_trc = fmax(worst_trc, fabs(rate - fps[j]) / fps[j]);
    }
    ASSERT_NEAR(worst_c3d, 0, 0);     /* the float of the true rate, bit for bit: 240 is 240 */
    ASSERT_NEAR(worst_trc, 0, 1e-11); /* %.12g of the true rate: 5e-12 relative at most */
}

TEST(test_c3d_export_writes_point_descriptions)
{
    analysis_tracks tr;
    scenario s;
    tracks(&tr, &s);
    icv_err err = {0};
    int nm = tr.n_markers;
    int rc = report_export_c3d(th_tmp("d.c3d"), &tr, &err);
    analysis_tracks_free(&tr);
    ASSERT(rc == 0, "%s", err.msg);
    report_c3d c;
    rc = report_c3d_read(th_tmp("d.c3d"), &c, &err);
    ASSERT(rc == 0, "%s", err.msg);
    int have = c.descriptions != NULL;
    char first[64] = "", last[64] = "";
    if (have) {
        snprintf(first, sizeof first, "%s", c.descriptions[0]);
        snprintf(last, sizeof last, "%s", c.descriptions[nm - 1]);
    }
    report_c3d_free(&c);
    ASSERT(have, "no POINT:DESCRIPTIONS");
    ASSERT(!strcmp(first, "marker 0 of body.markers, surface frame"), "description 0: '%s'", first);
    char want[64];
    snprintf(want, sizeof want, "marker %d of body.markers, surface frame", nm - 1);
    ASSERT(!strcmp(last, want), "description %d: '%s'", nm - 1, last);
}

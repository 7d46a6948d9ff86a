/* report_internal.h: helpers shared by report/'s files (not public). */
#ifndef ICV_REPORT_INTERNAL_H
#define ICV_REPORT_INTERNAL_H

#include <jansson.h>

#include "report/report.h"

/* Loads a JSON file whose "schema" is schema and whose array_key is an array
 * (*root: the caller decrefs it); fails naming the file (and line), or the schema
 * found instead. */
int report_json_load(const char *path, const char *schema, const char *array_key, json_t **root, icv_err *err);

/* Hz: 1 / the median interval between the tracks' frames (0 when unknown). */
double report_tracks_rate(const analysis_tracks *tr);




/* A point drawn over a frame with its own colour (report_overlay_marks_png). */
enum { REPORT_MARK_TRACKED = 0, REPORT_MARK_FITTED = 1, REPORT_MARK_PREDICTED = 2 };
typedef struct {
    double u, v;          /* px, the top-left pixel's centre at (0, 0) */
    unsigned char rgb[3];
    int style;            /* TRACKED: a ring and a centre dot; FITTED: a diagonal cross of
                             half-width 0.6 radius; PREDICTED: a cross of half-width 1.5
                             radius. Drawn predicted first, then fitted, then tracked */
} report_mark;

/* report_overlay_png with every point's and line's colour given (line l in
 * line_rgb[l]): the several-body overlays, a colour per body. With n_legend > 0 the
 * image gets a strip below the frame's rows, REPORT_LEGEND_ROW px a line plus
 * REPORT_LEGEND_PAD, dark gray (24), holding legend[i] in legend_rgb[i] at
 * (REPORT_LEGEND_PAD, height + REPORT_LEGEND_PAD + i REPORT_LEGEND_ROW) in the 5 x 7
 * font at scale 2, cut to the width. */
enum { REPORT_LEGEND_ROW = 18, REPORT_LEGEND_PAD = 4, REPORT_LEGEND_SCALE = 2 };
int report_overlay_marks_png(const unsigned char *gray, int width, int height, int stride, const report_mark *marks,
                             int n_marks, const report_polyline *lines, const unsigned char (*line_rgb)[3],
                             int n_lines, double radius_px, const char *const *legend,
                             const unsigned char (*legend_rgb)[3], int n_legend, unsigned char **png,
                             size_t *png_len, icv_err *err);

/* The rows of character c in the 5 x 7 font (font5x7.c): top to bottom, bit 4 the
 * leftmost column; lower case as upper case, an unknown character as '?'. */
void report_glyph5x7(char c, unsigned char rows[7]);
/* Draws s into a w x h RGB image with its top-left at (x, y), each font pixel a
 * scale x scale square, a character every 6 scale px, in colour c; the characters
 * that do not fit the width are left out. Returns how many were drawn. */
int report_text_draw(unsigned char *rgb, int w, int h, int x, int y, int scale, const char *s,
                     const unsigned char c[3]);

/* Grows box b (x0, y0, x1, y1; empty: +inf, +inf, -inf, -inf) to hold (u, v) when it
 * lies on the w x h image. */
void report_box_add(double b[4], double u, double v, int w, int h);
/* The template tmpl fitted to the row of tracks tr within half a frame of time t
 * (s): the pose drawn when no fitted flight gives one. 0, or -1 none. */
int report_overlay_row_pose(const analysis_tracks *tr, const analysis_template *tmpl, double t, icv_mat3 *R,
                            icv_vec3 *p);

/* The part of a w x h frame an overlay shows (overlay_frame.c): box b with a margin of
 * 40 px plus 15% of its size, at least 240 px a side, inside the frame; the whole
 * frame when b is empty. c = x0, y0, width, height. */
void report_crop_of_box(const double b[4], int w, int h, int c[4]);

/* Starts an SVG plot of width_px x height_px into a temporary name beside path (PLplot's
 * "svg" device, white page, ink colour 15 black); report_plot_close ends it and renames
 * it into place; report_plot_finish ends it without a file (after an error, then
 * icv_atomic_abort). One plot at a time: PLplot's state is global. */
int report_plot_open(const char *path, int width_px, int height_px, icv_atomic_file *af, icv_err *err);
int report_plot_close(icv_atomic_file *af, icv_err *err);
void report_plot_finish(void);

/* The report pages' inline style sheet (html.c), shared by report.html of one body
 * and of several. */
extern const char report_css[];

/* A figure into page f: the SVG plot at svg (made with status rc: 0) embedded as a
 * data URI with its id and the caption as alt text, the file then removed; or, when
 * rc is not 0, a note with e's message in its place. The caption below. */
void report_figure(FILE *f, const char *svg, int rc, const icv_err *e, const char *id, const char *caption);
/* The overlay images ov[0..n-1] into page f: one strip per camera (consecutive
 * entries of one camera), each image a PNG data URI with id overlay-<camera>-<frame>
 * and its caption "frame N: label". */
void report_overlay_strips(FILE *f, const report_overlay *ov, int n);
/* x with its printf format, or a dash when unknown (not finite: a calibration file
 * without it, a noise the poses do not fix) */
void report_num_or_dash(FILE *f, const char *fmt, double x);

#endif

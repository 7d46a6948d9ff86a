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

#endif

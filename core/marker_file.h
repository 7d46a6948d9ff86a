/* marker_file.h: 3D marker trajectories written by motion-capture systems (Vicon,
 * OptiTrack, Qualisys, Optotrak: C3D; OpenSim, Cortex, Mokka: TRC), read for
 * `impactcv analyze --tracks FILE` on an experiment without cameras.
 * Positions are converted to metres from the unit the file states; the frame is
 * the file's own (the caller maps it to the surface frame). */
#ifndef ICV_MARKER_FILE_H
#define ICV_MARKER_FILE_H

#include "core/core.h"

#define ICV_MARKER_LABEL_LEN 32
#define ICV_MAX_FILE_MARKERS 4096 /* markers in one C3D or TRC file */

typedef enum { ICV_MARKERS_UNKNOWN, ICV_MARKERS_C3D, ICV_MARKERS_TRC } icv_marker_format;

typedef struct {
    icv_marker_format format;
    int n_frames, n_markers;
    double rate_hz;          /* the file's point rate */
    int first_frame;         /* the file's number of the first frame read (C3D: 1-based, TRC: Frame#) */
    double unit_m;           /* metres per unit of the file (mm: 1e-3) */
    char units[16];          /* as the file writes them */
    int *frame;              /* frame number from 0 (the first frame read is 0) */
    double *t;               /* s: TRC's Time column; C3D: frame / rate */
    icv_vec3 *pos;           /* m, the file's frame; [i * n_markers + k] */
    unsigned char *seen;     /* 0 where the file marks the marker missing */
    char (*labels)[ICV_MARKER_LABEL_LEN];
} icv_marker_file;

/* The format from the file's first bytes: C3D (key 0x50 in byte 1 of a 512-byte
 * header), TRC (starts with "PathFileType"), else UNKNOWN (a CSV, or unreadable). */
icv_marker_format icv_marker_file_sniff(const char *path);

/* Reads a C3D or TRC file (by its first bytes). C3D: Intel, DEC and MIPS byte
 * orders, integer and float data, analog samples skipped, a point whose residual
 * word is negative is missing (C3D User Guide). TRC: OpenSim's TRCFileAdapter
 * layout (5 header lines, tab-separated; an empty or NaN field is missing). The
 * frame count is capped by what the file holds. Every failure is one line naming
 * the file and, where it applies, the frame, marker or parameter. */
int icv_marker_file_read(const char *path, icv_marker_file *m, icv_err *err);
int icv_marker_file_read_c3d(const char *path, icv_marker_file *m, icv_err *err);
int icv_marker_file_read_trc(const char *path, icv_marker_file *m, icv_err *err);
void icv_marker_file_free(icv_marker_file *m);

/* Metres per unit for a unit's name ("mm", "cm", "m", "millimeters", ...; any
 * case); 0 when unknown. */
double icv_marker_unit_m(const char *unit);

/* Allocates the arrays of m for n_frames x n_markers (positions unseen). */
int icv_marker_file_alloc(icv_marker_file *m, int n_frames, int n_markers, const char *path, icv_err *err);

#endif

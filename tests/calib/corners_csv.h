/* corners_csv.h: reads the shared data's corner files
 * (image,point,u_px,v_px,X_mm,Y_mm,Z_mm; data/README.md) into observations with
 * per-view board labels, for calibrating apart from detection. Test helper. */
#ifndef ICV_TEST_CORNERS_CSV_H
#define ICV_TEST_CORNERS_CSV_H

#include "calib/calib.h"

typedef struct {
    calib_observations obs;
    icv_vec3 board[64 * 64];
    calib_pt2 uv[64 * 64];
    char names[64][32];
    const char *name_ptr[64];
} corners_file;

/* 0, or -1 when the file cannot be read or is malformed. */
int corners_csv_load(const char *path, int width, int height, corners_file *cf);

#endif

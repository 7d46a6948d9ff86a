/* tracks3d.csv and tracks3d_quality.csv (analysis/tracks3d.c) from any bytes: the file
 * read as tracks, then as the quality of the tracks it gave (or of 64 frames of 4
 * markers when it gave none). */
#include "analysis/analysis.h"
#include "tests/fuzz/fuzz_file.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_init();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[ICV_PATH_MAX];
    if (fuzz_write(data, size, ".csv", path, sizeof path))
        return 0;
    analysis_tracks tr = {0};
    icv_err err = {0};
    int have = analysis_tracks_read_csv(path, &tr, &err) == 0;
    if (!have && analysis_tracks_alloc(&tr, 64, 4, 0, &err) == 0) {
        have = 1;
        for (int i = 0; i < tr.n_frames; i++) {
            tr.frame[i] = i;
            tr.t[i] = i / 240.0;
        }
    }
    if (have) {
        analysis_tracks_read_quality(path, &tr, &err);
        analysis_tracks_free(&tr);
    }
    unlink(path);
    return 0;
}

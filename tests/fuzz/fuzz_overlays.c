/* overlays/index.json (report/html.c: report_overlays_index_read) from any bytes,
 * in a folder that also holds one small image the index may name (a.png). */
#include <stdlib.h>
#include <sys/stat.h>

#include "report/report.h"
#include "tests/fuzz/fuzz_file.h"

static char dir[256], sub[300], index_path[320], png[320];

static void cleanup(void)
{
    unlink(index_path);
    unlink(png);
    rmdir(sub);
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_init();
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(dir, sizeof dir, "%s/icv-fuzz-overlays-%ld", base, (long)getpid());
    snprintf(sub, sizeof sub, "%s/overlays", dir);
    snprintf(index_path, sizeof index_path, "%s/index.json", sub);
    snprintf(png, sizeof png, "%s/a.png", sub);
    mkdir(dir, 0700);
    mkdir(sub, 0700);
    FILE *f = fopen(png, "wb");
    if (f) {
        fputs("\x89PNG\r\n\x1a\n", f); /* its bytes are carried, not decoded */
        fclose(f);
    }
    atexit(cleanup); /* libFuzzer ends by exit(): the folder goes with it */
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fopen(index_path, "wb");
    if (!f)
        return 0;
    size_t w = size ? fwrite(data, 1, size, f) : 0;
    if (fclose(f) != 0 || w != size)
        return 0;
    report_overlay *ov = NULL;
    unsigned char **pngs = NULL;
    int n = 0;
    icv_err err = {0};
    report_overlays_index_read(sub, &ov, &pngs, &n, &err);
    for (int i = 0; pngs && i < n; i++)
        free(pngs[i]);
    free(pngs);
    free(ov);
    return 0;
}

/* fuzz_file.h: what every harness shares. The parsers read files, libFuzzer gives
 * bytes: each input is written to a file in /dev/shm (memory, not the disk; one name
 * per process, so harnesses run side by side) and removed after the run. */
#ifndef ICV_FUZZ_FILE_H
#define ICV_FUZZ_FILE_H

#include <gsl/gsl_errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "core/core.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* As cli/main.c: a GSL failure must come back as a status, never abort; library
 * messages (warnings on a bad file) would only slow the run down. */
static inline void fuzz_log_drop(icv_log_level level, const char *line, void *user)
{
    (void)level;
    (void)line;
    (void)user;
}

static inline void fuzz_init(void)
{
    gsl_set_error_handler_off();
    icv_log_set_level(ICV_LOG_DEBUG); /* every message formatted (its arguments checked), */
    icv_log_set_sink(fuzz_log_drop, NULL); /* none shown */
}

/* Writes data to /dev/shm/icv-fuzz-PID<suffix> (suffix: the extension the reader
 * may go by) and puts its name in path; 0 on success. /tmp when /dev/shm is absent. */
static inline int fuzz_write(const uint8_t *data, size_t size, const char *suffix, char *path, size_t cap)
{
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    if (snprintf(path, cap, "%s/icv-fuzz-%ld%s", dir, (long)getpid(), suffix) >= (int)cap)
        return -1;
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t w = size ? fwrite(data, 1, size, f) : 0;
    if (fclose(f) != 0 || w != size) {
        unlink(path);
        return -1;
    }
    return 0;
}

#endif

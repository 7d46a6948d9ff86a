/* cleanup_signals.c: working folders removed when the user interrupts a job (Ctrl-C,
 * SIGTERM). icv_workdir_make registers each working folder; the swap or the removal
 * unregisters it. The handler removes what is registered and then dies of the same
 * signal. It may run at any instruction, so it uses only async-signal-safe calls
 * (open, getdents64, unlinkat, close) on fixed buffers; the registry is a fixed
 * array of slots whose path is written before the slot is marked live. A process
 * killed outright (SIGKILL, a crash) leaves its folder to the next job's clean-up
 * (atomic_dir.c). */
#define _GNU_SOURCE /* syscall */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/core.h"

enum { SLOTS = 16 };

static struct {
    char path[ICV_PATH_MAX];
    atomic_int live;
} slots[SLOTS];

void icv_cleanup_register(const char *path)
{
    for (int i = 0; i < SLOTS; i++) {
        int expected = 0;
        if (atomic_load(&slots[i].live) || strlen(path) >= ICV_PATH_MAX)
            continue;
        /* claim with -1 (being written), then publish */
        if (!atomic_compare_exchange_strong(&slots[i].live, &expected, -1))
            continue;
        memcpy(slots[i].path, path, strlen(path) + 1);
        atomic_store(&slots[i].live, 1);
        return;
    }
}

void icv_cleanup_unregister(const char *path)
{
    for (int i = 0; i < SLOTS; i++)
        if (atomic_load(&slots[i].live) == 1 && !strcmp(slots[i].path, path))
            atomic_store(&slots[i].live, 0);
}

struct linux_dirent64 {
    unsigned long long d_ino;
    long long d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

/* Removes name (relative to dirfd) and all below it; depth-limited, no allocation. */
static void remove_at(int dirfd, const char *name, int depth)
{
    if (unlinkat(dirfd, name, 0) == 0 || depth > 12)
        return;
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    char buf[4096] __attribute__((aligned(8)));
    for (int pass = 0; pass < 64; pass++) { /* bounded: an entry that cannot go stays */
        long n = syscall(SYS_getdents64, fd, buf, sizeof buf);
        if (n <= 0)
            break;
        int removed = 0;
        for (long off = 0; off < n;) {
            struct linux_dirent64 *e = (struct linux_dirent64 *)(void *)(buf + off);
            off += e->d_reclen;
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            remove_at(fd, e->d_name, depth + 1);
            removed = 1;
        }
        if (removed) /* entries were removed while reading: read again from the start */
            lseek(fd, 0, SEEK_SET);
        else
            break;
    }
    close(fd);
    unlinkat(dirfd, name, AT_REMOVEDIR);
}

static void on_signal(int sig)
{
    for (int i = 0; i < SLOTS; i++)
        if (atomic_load(&slots[i].live) == 1)
            remove_at(AT_FDCWD, slots[i].path, 0);
    signal(sig, SIG_DFL);
    raise(sig);
}

void icv_cleanup_signals_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

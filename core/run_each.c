/* run_each.c: one function over a few independent items at once (the cameras of a
 * job), item 0 on the calling thread and each other on a thread of its own; an item
 * whose thread cannot be made runs on the calling thread after the others are
 * started, so the work is done either way. */
#include <pthread.h>
#include <stdlib.h>

#include "core/core.h"

void icv_run_each(void *(*fn)(void *), void *items, size_t item_size, int n)
{
    enum { SMALL = 16 };
    pthread_t th_small[SMALL];
    char started_small[SMALL] = {0};
    pthread_t *th = n <= SMALL ? th_small : malloc(sizeof *th * (size_t)n);
    char *started = n <= SMALL ? started_small : calloc((size_t)n, 1);
    char *base = items;
    for (int i = 1; i < n; i++)
        if (th && started)
            started[i] = pthread_create(&th[i], NULL, fn, base + (size_t)i * item_size) == 0;
    if (n > 0)
        fn(base);
    for (int i = 1; i < n; i++) {
        if (th && started && started[i])
            pthread_join(th[i], NULL);
        else
            fn(base + (size_t)i * item_size);
    }
    if (th != th_small)
        free(th);
    if (started != started_small)
        free(started);
}

/* browser.h: headless Chromium for the report's tests (Debian's chromium): load a
 * page from disk, read the DOM it built, its console messages and, from Chromium's
 * own NetLog (--log-net-log), the requests the page made: a page's resource loads
 * carry the blink_resource_loader traffic annotation (id 101845102 in Chromium's
 * annotations.xml), the browser's own service calls carry others. */
#ifndef ICV_TEST_REPORT_BROWSER_H
#define ICV_TEST_REPORT_BROWSER_H

#include <stdio.h>
#include <string.h>

#include "tests/harness.h"

static const char chromium[] = "/usr/bin/chromium";

/* runs chromium on file page with extra args; stdout to out, stderr to log,
 * NetLog to net (all in the test folder) */
static inline int browse(const char *page, const char *extra, const char *out, const char *log, const char *net)
{
    th_proc p;
    char ud[1024];
    snprintf(ud, sizeof ud, "%s/ud_%s", th_tmpdir(), out);
    return th_run_sh(&p,
                     "timeout 120 %s --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
                     "--disable-background-networking --disable-component-update --disable-sync "
                     "--host-resolver-rules='MAP * ~NOTFOUND' --user-data-dir='%s' --enable-logging=stderr --v=0 "
                     "--log-net-log='%s/%s' %s 'file://%s' > '%s/%s' 2> '%s/%s'",
                     chromium, ud, th_tmpdir(), net, extra, page, th_tmpdir(), out, th_tmpdir(), log);
}

/* the page's own requests in a NetLog: URLs other than data: and file: */
static inline int page_requests(const char *net, char *first, size_t n)
{
    const char *s = th_read_file(th_tmp(net));
    int count = 0;
    first[0] = 0;
    for (const char *q = s; q && (q = strstr(q, "\"traffic_annotation\":101845102")); q++) {
        const char *u = strstr(q, "\"url\":\"");
        if (!u || u - q > 200)
            continue;
        u += 7;
        if (!strncmp(u, "data:", 5) || !strncmp(u, "file:", 5))
            continue;
        if (!count++)
            snprintf(first, n, "%.*s", (int)strcspn(u, "\""), u);
    }
    return count;
}

static inline int console_lines(const char *log, char *first, size_t n)
{
    const char *s = th_read_file(th_tmp(log));
    int count = 0;
    first[0] = 0;
    for (const char *q = s; q && (q = strstr(q, ":CONSOLE")); q++)
        if (!count++)
            snprintf(first, n, "%.*s", (int)strcspn(q, "\n"), q);
    return count;
}

#endif

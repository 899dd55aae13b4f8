/*
 * fd_limit.c - raise RLIMIT_NOFILE for the connection bound, or lower the
 * bound to what the descriptors allow (fd_limit.h says why).
 */
#include "emulator/fd_limit.h"

#include <stdio.h>
#include <sys/resource.h>

unsigned fd_limit_fit(unsigned wanted)
{
    struct rlimit lim;
    rlim_t need = (rlim_t) wanted + FD_LIMIT_RESERVE;
    unsigned fit;

    if (getrlimit(RLIMIT_NOFILE, &lim) != 0) return wanted;
    if (lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur < need) {
        lim.rlim_cur = lim.rlim_max == RLIM_INFINITY || lim.rlim_max > need ? need : lim.rlim_max;
        /* Failing leaves the old soft limit, which is checked below. */
        if (setrlimit(RLIMIT_NOFILE, &lim) != 0) getrlimit(RLIMIT_NOFILE, &lim);
    }
    if (lim.rlim_cur == RLIM_INFINITY || lim.rlim_cur >= need) return wanted;
    fit = lim.rlim_cur > FD_LIMIT_RESERVE ? (unsigned) (lim.rlim_cur - FD_LIMIT_RESERVE) : 1;
    fprintf(stderr,
            "ddbemu: --max-connections %u does not fit the open-file limit (%llu): "
            "serving at most %u connections\n",
            wanted, (unsigned long long) lim.rlim_cur, fit);
    return fit;
}

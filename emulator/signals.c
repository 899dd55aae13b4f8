/*
 * signals.c - block the stop signals everywhere, wait for them in main.
 */
#include "emulator/signals.h"

#include <pthread.h>
#include <signal.h>
#include <stddef.h>

static void stop_set(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
}

void signals_block(void)
{
    sigset_t set;
    struct sigaction ignore = {.sa_handler = SIG_IGN};

    sigemptyset(&ignore.sa_mask);
    sigaction(SIGPIPE, &ignore, NULL);
    stop_set(&set);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
}

int signals_wait(void)
{
    sigset_t set;
    int sig = 0;

    stop_set(&set);
    while (sigwait(&set, &sig) != 0)
        ;
    return sig;
}

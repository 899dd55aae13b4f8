/*
 * delay.c - the timer of held answers (delay.h): a list ordered by due
 * time, one thread waiting on a condition variable for the first.
 */
#include "api/http/delay.h"

#include "storage/base/alloc.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct held {
    uint64_t due_ns;
    void *item;
    struct held *next;
};

struct delay {
    pthread_mutex_t mu;
    pthread_cond_t cond;
    pthread_t thread;
    delay_resume_fn *resume;
    struct held *list; /* by due time, earliest first */
    bool stop;         /* resume everything now, then end */
};

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static void *run(void *arg)
{
    struct delay *d = arg;

    pthread_mutex_lock(&d->mu);
    while (!d->stop || d->list) {
        struct held *h = d->list;
        if (!h) {
            pthread_cond_wait(&d->cond, &d->mu);
            continue;
        }
        if (!d->stop && h->due_ns > now_ns()) {
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            {
                uint64_t wait = h->due_ns - now_ns();
                uint64_t ns = (uint64_t) until.tv_nsec + wait % 1000000000u;
                until.tv_sec += (time_t) (wait / 1000000000u + ns / 1000000000u);
                until.tv_nsec = (long) (ns % 1000000000u);
            }
            pthread_cond_timedwait(&d->cond, &d->mu, &until);
            continue;
        }
        d->list = h->next;
        pthread_mutex_unlock(&d->mu);
        d->resume(h->item);
        free(h);
        pthread_mutex_lock(&d->mu);
    }
    pthread_mutex_unlock(&d->mu);
    return NULL;
}

struct delay *delay_start(delay_resume_fn *resume)
{
    struct delay *d = xcalloc(1, sizeof *d);

    d->resume = resume;
    pthread_mutex_init(&d->mu, NULL);
    pthread_cond_init(&d->cond, NULL);
    if (pthread_create(&d->thread, NULL, run, d) != 0) {
        fprintf(stderr, "ddbemu: cannot start the answer-delay thread\n");
        abort();
    }
    return d;
}

void delay_hold(struct delay *d, void *item, unsigned ms)
{
    struct held *h = xmalloc(sizeof *h), **p;

    h->due_ns = now_ns() + (uint64_t) ms * 1000000u;
    h->item = item;
    pthread_mutex_lock(&d->mu);
    p = &d->list;
    while (*p && (*p)->due_ns <= h->due_ns)
        p = &(*p)->next;
    h->next = *p;
    *p = h;
    pthread_cond_broadcast(&d->cond);
    pthread_mutex_unlock(&d->mu);
}

void delay_free(struct delay *d)
{
    if (!d) return;
    pthread_mutex_lock(&d->mu);
    d->stop = true;
    pthread_cond_broadcast(&d->cond);
    pthread_mutex_unlock(&d->mu);
    pthread_join(d->thread, NULL);
    pthread_cond_destroy(&d->cond);
    pthread_mutex_destroy(&d->mu);
    free(d);
}

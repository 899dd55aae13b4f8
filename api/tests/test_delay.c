/*
 * test_delay.c - the timer of held answers (api/http/delay.h): items come
 * back once each, earliest due first, and stopping the timer hands back at
 * once everything still held.
 */
#include "api/http/delay.h"
#include "storage/tests/check.h"

#include <pthread.h>
#include <stdint.h>
#include <time.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static intptr_t order[8];
static int resumed;

static void resume(void *item)
{
    pthread_mutex_lock(&mu);
    order[resumed++] = (intptr_t) item;
    pthread_mutex_unlock(&mu);
}

static int count(void)
{
    int n;
    pthread_mutex_lock(&mu);
    n = resumed;
    pthread_mutex_unlock(&mu);
    return n;
}

/* Held for minutes: only the stop brings them back, in due order. */
static void test_stop_resumes_everything_in_due_order(void)
{
    struct delay *d = delay_start(resume);

    resumed = 0;
    delay_hold(d, (void *) 3, 300000);
    delay_hold(d, (void *) 1, 100000);
    delay_hold(d, (void *) 2, 200000);
    CHECK_INT_EQ(count(), 0);
    delay_free(d);
    CHECK_INT_EQ(count(), 3);
    CHECK_INT_EQ(order[0], 1);
    CHECK_INT_EQ(order[1], 2);
    CHECK_INT_EQ(order[2], 3);
}

/* A short hold comes back by itself, before a long one. */
static void test_due_items_come_back_alone(void)
{
    struct delay *d = delay_start(resume);
    struct timespec ms = {0, 1000000};

    resumed = 0;
    delay_hold(d, (void *) 9, 600000);
    delay_hold(d, (void *) 7, 1);
    while (count() == 0)
        nanosleep(&ms, NULL);
    CHECK_INT_EQ(order[0], 7);
    CHECK_INT_EQ(count(), 1);
    delay_free(d);
    CHECK_INT_EQ(count(), 2);
    CHECK_INT_EQ(order[1], 9);
}

int main(void)
{
    RUN(test_stop_resumes_everything_in_due_order);
    RUN(test_due_items_come_back_alone);
    return check_report();
}

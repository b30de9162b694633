// SPDX-License-Identifier: MIT
/*
 * glibc's own mutexes under capture probe (tests/probe/test-probe-libs.sh):
 * the main thread and WORKERS threads contend for an error-checking mutex
 * in a fixed schedule, and each worker takes an adaptive one alone.  For
 * each worker, ROUNDS times: main locks "checked", lets the worker try it
 * (the worker blocks: glibc marks the lock word 2, a waiter), sees that
 * mark through the public pthread_mutex_t, and unlocks; the worker, woken
 * with the mutex, locks and unlocks "adaptive", then unlocks "checked".
 * Only one thread acts at a time, so the schedule and what glibc keeps in
 * the lock word are the same every run.  Every call is logged before it
 * is made, by the caller's name (main, w1, w2, ...).
 *
 * usage: mutex [WORKERS [ROUNDS]]    (default 3 and 2)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define MAX_WORKERS 8

static pthread_mutex_t checked, adaptive;
static sem_t go[MAX_WORKERS], done;
static int rounds;

static void say(const char *who, const char *op, const char *mutex)
{
	printf("%s %s %s\n", who, op, mutex);
	fflush(stdout);
}

static void *worker(void *arg)
{
	int k = (int)(long)arg;
	char who[16];

	snprintf(who, sizeof(who), "w%d", k + 1);
	for (int r = 0; r < rounds; r++) {
		sem_wait(&go[k]);
		say(who, "lock", "checked");
		pthread_mutex_lock(&checked);
		say(who, "lock", "adaptive");
		pthread_mutex_lock(&adaptive);
		say(who, "unlock", "adaptive");
		pthread_mutex_unlock(&adaptive);
		say(who, "unlock", "checked");
		pthread_mutex_unlock(&checked);
		sem_post(&done);
	}
	return NULL;
}

/* Main holds "checked" until worker @k waits for it, then lets it have it. */
static void hand_over(int k)
{
	say("main", "lock", "checked");
	pthread_mutex_lock(&checked);
	sem_post(&go[k]);
	while (__atomic_load_n(&checked.__data.__lock, __ATOMIC_ACQUIRE) != 2)
		usleep(200);
	say("main", "unlock", "checked");
	pthread_mutex_unlock(&checked);
	sem_wait(&done);
}

static void init(pthread_mutex_t *m, int type)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, type);
	pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
}

int main(int argc, char **argv)
{
	int workers = argc > 1 ? atoi(argv[1]) : 3;
	pthread_t t[MAX_WORKERS];

	rounds = argc > 2 ? atoi(argv[2]) : 2;
	if (workers < 1 || workers > MAX_WORKERS || rounds < 1) {
		fprintf(stderr, "usage: mutex [WORKERS (1-%d) [ROUNDS]]\n", MAX_WORKERS);
		return 2;
	}
	init(&checked, PTHREAD_MUTEX_ERRORCHECK);
	init(&adaptive, PTHREAD_MUTEX_ADAPTIVE_NP);
	sem_init(&done, 0, 0);
	for (int k = 0; k < workers; k++) {
		sem_init(&go[k], 0, 0);
		pthread_create(&t[k], NULL, worker, (void *)(long)k);
	}
	for (int r = 0; r < rounds; r++)
		for (int k = 0; k < workers; k++)
			hand_over(k);
	for (int k = 0; k < workers; k++)
		pthread_join(t[k], NULL);
	return 0;
}

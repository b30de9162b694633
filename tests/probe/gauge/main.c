// SPDX-License-Identifier: MIT
/*
 * WORKERS threads each apply OPS operations to the gauge (gauge.c), a
 * sequence that follows from the worker's number alone, taking turns
 * (worker 0, 1, ..., 0, ...), so that the events are the same every run
 * and at every optimization level.
 *
 * usage: gauge [WORKERS [OPS]]    (default 3 and 20)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "gauge.h"

void gauge_workers(int n);
static int nops = 20;

static void *worker(void *arg)
{
	int w = (int)(long)arg;
	unsigned seed = 11u + 17u * (unsigned)w;

	for (int i = 0; i < nops; i++) {
		seed = seed * 1103515245u + 12345u;
		gauge_lock(w);
		gauge_apply(w, (int)((seed >> 8) % 3), (int)((seed >> 12) % 40) + 1);
		fflush(stdout);
		gauge_unlock();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[16];
	int n = argc > 1 ? atoi(argv[1]) : 3;

	nops = argc > 2 ? atoi(argv[2]) : 20;
	if (n < 1 || n > 16 || nops < 0) {
		fprintf(stderr, "usage: gauge [WORKERS(1-16) [OPS]]\n");
		return 2;
	}
	gauge_workers(n);
	for (int w = 0; w < n; w++)
		pthread_create(&t[w], NULL, worker, (void *)(long)w);
	for (int w = 0; w < n; w++)
		pthread_join(t[w], NULL);
	return 0;
}

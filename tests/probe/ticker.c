// SPDX-License-Identifier: MIT
/*
 * A program already running when capture probe -p attaches to it
 * (tests/probe/test-probe-pid.sh): it ticks every 20 ms, each tick(i) a
 * call that adds i to a total under a mutex, and logs "tick I TOTAL"
 * after each; COUNT ticks, then it exits (0: it runs until killed).
 *
 * usage: ticker [COUNT]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long total;

__attribute__((noipa)) long tick(long i)
{
	pthread_mutex_lock(&lock);
	total += i;
	pthread_mutex_unlock(&lock);
	return total;
}

int main(int argc, char **argv)
{
	long count = argc > 1 ? atol(argv[1]) : 0;

	for (long i = 1; !count || i <= count; i++) {
		printf("tick %ld %ld\n", i, tick(i));
		fflush(stdout);
		usleep(20000);
	}
	return 0;
}

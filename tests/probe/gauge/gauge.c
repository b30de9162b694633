// SPDX-License-Identifier: MIT
/*
 * A gauge whose whole state is one packed word, a global: bits 0-7 its
 * level, 8-9 its mode, 16-31 its epoch, 63 whether it closed (once the
 * epoch reaches config.limit).  Threads take turns (main.c) applying
 * operations to it, each logged.  For capture probe's variables and
 * computed fields (tests/probe/test-probe-vars.sh): a global word, a
 * static of this file beside another file's of the same name (dial.c),
 * a function's static, a struct, a pointer to one and an array, all
 * global; a thread's own and a constant gcc -O2 folds, which the probes
 * refuse.
 */
#include <pthread.h>
#include <stdio.h>
#include "gauge.h"

struct config config = { 6, 3 };
const struct config *current = &config;
unsigned long gauge_word;
int history[4];                 /* the level after each of the last 4 operations */
__thread int tls_ops;
static int ops;                 /* operations applied; dial.c has an ops too */
static const unsigned level_cap = 0xff; /* gcc -O2 folds it: no address */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t next_turn = PTHREAD_COND_INITIALIZER;
static int turn, nworkers = 1;

enum { RAISE, LOWER, CYCLE };

/* Apply operation @op to the gauge (the caller holds its lock); the new word. */
PROBED unsigned long gauge_apply(int worker, int op, int arg)
{
	static long calls;
	unsigned long w = gauge_word;
	unsigned level = w & 0xff, mode = (w >> 8) & 3, epoch = (w >> 16) & 0xffff;

	calls++;
	ops++;
	tls_ops++;
	if (op == RAISE)
		level = (level + (unsigned)arg) & level_cap;
	else if (op == LOWER)
		level = level > (unsigned)arg ? level - (unsigned)arg : 0;
	else {
		mode = (mode + 1) & 3;
		epoch++;
	}
	w = level | (unsigned long)mode << 8 | (unsigned long)epoch << 16 |
	    (epoch >= (unsigned)current->limit ? 1ul << 63 : 0);
	gauge_word = w;
	history[calls % 4] = (int)level;
	printf("apply worker=%d op=%d arg=%d level=%u mode=%u epoch=%u closed=%d "
	       "ops=%d dial=%d calls=%ld limit=%d step=%d history=%d\n",
	       worker, op, arg, level, mode, epoch, (int)(w >> 63), ops, dial_tick(),
	       calls, current->limit, config.step, history[1]);
	return w;
}

/* Wait for @worker's turn and take the gauge. */
PROBED void gauge_lock(int worker)
{
	pthread_mutex_lock(&mu);
	while (turn % nworkers != worker)
		pthread_cond_wait(&next_turn, &mu);
}

/* Pass the turn on and release the gauge. */
PROBED int gauge_unlock(void)
{
	turn++;
	pthread_cond_broadcast(&next_turn);
	return pthread_mutex_unlock(&mu);
}

void gauge_workers(int n)
{
	nworkers = n;
}

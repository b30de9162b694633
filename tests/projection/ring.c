// SPDX-License-Identifier: MIT
/*
 * ring: a ring of 4 slots whose ends live in one packed word, for
 * capture's projections (docs/projection.md, tests/projection/ring.probes).
 * The ring is file-scope statics, the global ring_word and ring_slot; the
 * word holds, from its low bits up:
 *
 *   bits 0-7    head: how many values were taken (mod 256)
 *   bits 8-15   tail: how many were put (mod 256)
 *
 * so it holds (tail - head) mod 256 values, at most 4; value i (in order
 * put) is in slot i mod 4.
 *
 *   ring_put(v)       puts v at the tail: 1, or 0 when the ring is full
 *                     (nothing changes)
 *   ring_get(out)     takes the value at the head into *out: 1, or 0 when
 *                     the ring is empty (nothing changes, *out 0)
 *
 * Threads 0 .. P-1 put, thread P gets, taking turns under a mutex (0, 1,
 * ..., P, 0, ...: the same schedule every run): producer w's i-th turn
 * puts 100 * (w + 1) + i, the consumer's i-th turn takes 6 values when
 * i % 4 is 3, else i % 2: the ring fills, refuses puts, empties and
 * refuses gets.
 * Each call is logged.  usage: ring [PRODUCERS [TURNS]]  (default 2, 12)
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef __clang__
#define PROBED __attribute__((noinline))
#else
#define PROBED __attribute__((noipa))
#endif

#define SLOTS 4

static uint32_t ring_word;
static int ring_slot[SLOTS];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t next_turn = PTHREAD_COND_INITIALIZER;
static int turn, producers = 2, turns = 12;

static unsigned head(uint32_t w) { return w & 0xff; }
static unsigned tail(uint32_t w) { return (w >> 8) & 0xff; }

PROBED int ring_put(int v)
{
	uint32_t w = ring_word;

	if (((tail(w) - head(w)) & 0xff) == SLOTS)
		return 0;
	ring_slot[tail(w) % SLOTS] = v;
	ring_word = (w & ~0xff00u) | (((tail(w) + 1) & 0xff) << 8);
	return 1;
}

PROBED int ring_get(int *out)
{
	uint32_t w = ring_word;

	*out = 0;
	if (tail(w) == head(w))
		return 0;
	*out = ring_slot[head(w) % SLOTS];
	ring_word = (w & ~0xffu) | ((head(w) + 1) & 0xff);
	return 1;
}

static void *thread(void *arg)
{
	int t = (int)(long)arg;

	for (int i = 0; i < turns; i++) {
		pthread_mutex_lock(&mu);
		while (turn % (producers + 1) != t)
			pthread_cond_wait(&next_turn, &mu);
		if (t < producers) {
			int v = 100 * (t + 1) + i;
			int ok = ring_put(v);

			printf("put thread=%d value=%d ok=%d word=%#x\n", t, v, ok, ring_word);
		}
		for (int k = 0; t == producers && k < (i % 4 == 3 ? 6 : i % 2); k++) {
			int v, ok = ring_get(&v);

			printf("get thread=%d value=%d ok=%d word=%#x\n", t, v, ok, ring_word);
		}
		fflush(stdout);
		turn++;
		pthread_cond_broadcast(&next_turn);
		pthread_mutex_unlock(&mu);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[9];

	producers = argc > 1 ? atoi(argv[1]) : 2;
	turns = argc > 2 ? atoi(argv[2]) : 12;
	if (producers < 1 || producers > 8 || turns < 0) {
		fprintf(stderr, "usage: ring [PRODUCERS(1-8) [TURNS]]\n");
		return 2;
	}
	for (int i = 0; i <= producers; i++)
		pthread_create(&t[i], NULL, thread, (void *)(long)i);
	for (int i = 0; i <= producers; i++)
		pthread_join(t[i], NULL);
	return 0;
}

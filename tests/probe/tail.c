// SPDX-License-Identifier: MIT
/*
 * Returns by tail calls (gcc -O2): route() and weigh() return either by
 * their own RET or by a jump to leaf(), release() only by a jump to
 * pthread_mutex_unlock through the PLT (it has no RET); keep() jumps to
 * leaf() with its argument in its frame, gone at the return; via(), its
 * argument in its frame too, jumps through a function pointer.  capture probe
 * takes their returns by the kernel's uretprobe (tests/probe/test-probe.sh);
 * each call is logged, its result after it returns.
 */
#include <pthread.h>
#include <stdio.h>

#ifdef __clang__
#define PROBED __attribute__((noinline))
#else
#define PROBED __attribute__((noipa))
#endif

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

struct big {                    /* passed in memory, on the caller's stack */
	long a, b, c;
};

PROBED int leaf(int x)
{
	return x + 100;
}

PROBED int route(int x)
{
	if (x > 5)
		return leaf(x);
	return x;
}

/* By a jump to leaf() for a positive a: its argument is above its frame. */
PROBED int weigh(struct big b)
{
	if (b.a > 0)
		return leaf((int)b.c);
	return 0;
}

/* Its argument kept in its frame (volatile), then a jump to leaf(). */
PROBED int keep(volatile int x)
{
	return leaf(x);
}

/* Its argument's address taken (kept in its frame: probed past its
 * prologue), then a jump through a function pointer. */
static int (*volatile hop)(int) = leaf;
static int seen;

PROBED void note(int *x)
{
	seen += *x;
}

PROBED int via(int x)
{
	note(&x);
	if (x > 5)
		return hop(x);
	return x;
}

PROBED int release(void)
{
	return pthread_mutex_unlock(&mu);
}

int main(void)
{
	for (int i = 1; i <= 8; i++) {
		int r;

		pthread_mutex_lock(&mu);
		r = route(i);
		printf("route x=%d r=%d\n", i, r);
		printf("weigh c=%d r=%d\n", 10 * i, weigh((struct big){ i - 4, 0, 10 * i }));
		printf("keep r=%d\n", keep(i));
		printf("via r=%d\n", via(i));
		printf("release r=%d\n", release());
	}
	return 0;
}

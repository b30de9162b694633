// SPDX-License-Identifier: MIT
/*
 * Recursion under uretprobes (tests/probe/test-probe.sh): down(N) calls
 * itself N deep, each call's result one more than its callee's, logged
 * as it returns.  The kernel takes at most 64 nested returns of a thread
 * by uretprobe: deeper, the capture must fail, not pair a return with
 * another call's entry.
 *
 * usage: deep [N]    (default 40)
 */
#include <stdio.h>
#include <stdlib.h>

#ifdef __clang__
#define PROBED __attribute__((noinline))
#else
#define PROBED __attribute__((noipa))
#endif

PROBED void seen(int n, int r)
{
	printf("down n=%d r=%d\n", n, r);
}

PROBED int down(int n)
{
	int r = n ? down(n - 1) + 1 : 0;

	seen(n, r);
	return r;
}

int main(int argc, char **argv)
{
	return down(argc > 1 ? atoi(argv[1]) : 40) < 0;
}

// SPDX-License-Identifier: MIT
/*
 * bench/probe-returns's target: N calls of a tiny function, and the CPU
 * time per call in the process (the traps and the BPF program run in its
 * context), printed as "NS ns/call".
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noipa)) long step(long x)
{
	return x + 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000, s = 0;
	struct timespec a, b;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	for (long i = 0; i < n; i++)
		s = step(s);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	printf("%.1f ns/call\n", ((double)(b.tv_sec - a.tv_sec) * 1e9 +
				  (double)(b.tv_nsec - a.tv_nsec)) / (double)(s ? s : 1));
	return 0;
}

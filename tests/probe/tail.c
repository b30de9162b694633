// SPDX-License-Identifier: MIT
/*
 * route() returns either itself or by a tail call to leaf() (gcc -O2: a
 * jmp): capture probe refuses a return event of it (tests/probe/test-probe.sh).
 */
#include <stdio.h>

__attribute__((noipa)) int leaf(int x)
{
	printf("leaf %d\n", x);
	return x + 1;
}

__attribute__((noipa)) int route(int x)
{
	if (x > 5)
		return leaf(x);
	return x;
}

int main(int argc, char **argv)
{
	(void)argv;
	return route(argc) == 1 ? 0 : 1;
}

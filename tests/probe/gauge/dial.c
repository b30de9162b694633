// SPDX-License-Identifier: MIT
/* The gauge's dial: a static named as gauge.c's own (tests/probe/gauge). */
#include "gauge.h"

static int ops;

/* Count one more reading of the dial. */
PROBED int dial_tick(void)
{
	return ++ops;
}

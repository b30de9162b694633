/* SPDX-License-Identifier: MIT */
/* The gauge's parts (tests/probe/gauge/gauge.c): what main.c calls. */
#ifndef GAUGE_H
#define GAUGE_H

#ifdef __clang__
#define PROBED __attribute__((noinline))
#else
#define PROBED __attribute__((noipa))
#endif

struct config {
	int limit;              /* epochs before the gauge closes */
	int step;
};

extern struct config config;
extern const struct config *current;
extern unsigned long gauge_word;
extern int history[4];
extern __thread int tls_ops;

unsigned long gauge_apply(int worker, int op, int arg);
int dial_tick(void);
void gauge_lock(int worker);
int gauge_unlock(void);

#endif

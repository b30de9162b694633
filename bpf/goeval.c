// SPDX-License-Identifier: MIT
/*
 * Computed values and open calls of a probe spec (goeval.h).  Both run in
 * the consumer, on records in the order they happened: the BPF program
 * only reads, so what a spec computes never costs the probed program.
 */
#include <stdlib.h>
#include <string.h>
#include "../capture/die.h"
#include "goeval.h"

static int operand(const struct go_operand *o, const struct go_val *vals,
		   unsigned long long *v, int *nil)
{
	if (o->field < 0) {
		*v = o->k;
		return 0;
	}
	if (!vals[o->field].have) {
		*nil = o->field;
		return -1;
	}
	*v = vals[o->field].v;
	return 0;
}

static int sum(const struct go_sum *s, const struct go_val *vals,
	       unsigned long long *out, int *nil)
{
	unsigned long long total = 0, v;

	for (int i = 0; i < s->n; i++) {
		if (operand(&s->op[i], vals, &v, nil))
			return -1;
		total = s->neg[i] ? total - v : total + v;
	}
	*out = total;
	return 0;
}

int go_calc_eval(const struct go_calc *c, const struct go_val *vals,
		 unsigned long long *out, int *nil)
{
	unsigned long long a, b;

	if (!c->cond)
		return sum(&c->then, vals, out, nil);
	if (operand(&c->a, vals, &a, nil) || operand(&c->b, vals, &b, nil))
		return -1;
	return sum(a == b ? &c->then : &c->other, vals, out, nil);
}

/*
 * Open calls, innermost last.  A goroutine has few at a time (a call
 * chain's probed functions), so a list searched from its end is enough.
 */
struct go_call {
	int proc, func;
	unsigned long long goid, done;
};

struct go_calls {
	struct go_call *call;
	size_t n, cap;
};

struct go_calls *go_calls_new(void)
{
	return xcalloc(1, sizeof(struct go_calls));
}

void go_calls_free(struct go_calls *c)
{
	free(c->call);
	free(c);
}

void go_calls_enter(struct go_calls *c, int proc, unsigned long long goid, int func)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 16;
		c->call = xrealloc(c->call, c->cap * sizeof(*c->call));
	}
	c->call[c->n++] = (struct go_call){ .proc = proc, .func = func, .goid = goid };
}

static struct go_call *innermost(struct go_calls *c, int proc,
				 unsigned long long goid, int func)
{
	for (size_t i = c->n; i-- > 0;)
		if (c->call[i].proc == proc && c->call[i].goid == goid &&
		    c->call[i].func == func)
			return &c->call[i];
	return NULL;
}

unsigned long long *go_calls_open(struct go_calls *c, int proc,
				  unsigned long long goid, int func)
{
	struct go_call *k = innermost(c, proc, goid, func);

	return k ? &k->done : NULL;
}

int go_calls_leave(struct go_calls *c, int proc, unsigned long long goid,
		   int func, unsigned long long *done)
{
	struct go_call *k = innermost(c, proc, goid, func);

	if (!k)
		return -1;
	*done = k->done;
	c->n--;
	memmove(k, k + 1, (size_t)(c->call + c->n - k) * sizeof(*k));
	return 0;
}

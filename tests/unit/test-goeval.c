// SPDX-License-Identifier: MIT
/* A probe spec's computed values and the calls open on each goroutine. */
#include <string.h>
#include "bpf/goeval.h"
#include "capture/json.h"
#include "unit.h"

/* A computation built node by node: leaves, then operations over them. */
static int leaf(struct go_calc *c, int field, unsigned long long k)
{
	c->node[c->n] = (struct go_node){ .op = GO_LEAF, .leaf = { field, k } };
	return c->root = c->n++;
}

static int op(struct go_calc *c, enum go_op o, int a, int b, int x)
{
	c->node[c->n] = (struct go_node){ .op = o, .a = a, .b = b, .c = x };
	return c->root = c->n++;
}

static unsigned long long value(const struct go_calc *c, const struct go_val *v,
				int *ok)
{
	unsigned long long out = 0;
	int nil = -1;

	*ok = !go_calc_eval(c, v, &out, &nil);
	return out;
}

static void calcs(void)
{
	/* uoff, ulen, type, snap, nents; field 5 has no value */
	struct go_val v[6] = { { .v = 5, .have = 1 }, { .v = 0, .have = 1 },
			       { .v = 7, .have = 1 }, { .v = 40, .have = 1 },
			       { .v = 3, .have = 1 }, { .v = 0, .have = 0 } };
	struct go_calc log = { 0 }, ents = { 0 }, nil = { 0 };
	unsigned long long out = 0;
	int which = -1, ok;

	op(&log, GO_SUB, op(&log, GO_ADD, leaf(&log, 0, 0), leaf(&log, 1, 0), -1),
	   leaf(&log, -1, 1), -1);
	op(&ents, GO_IF, op(&ents, GO_EQ, leaf(&ents, 2, 0), leaf(&ents, -1, 7), -1),
	   leaf(&ents, 3, 0), leaf(&ents, 4, 0));
	op(&nil, GO_ADD, leaf(&nil, 0, 0), leaf(&nil, 5, 0), -1);
	check("a sum: uoff + ulen - 1", value(&log, v, &ok) == 4 && ok, "not 4");
	v[0].v = 0;
	check("unsigned, modulo 2^64: 0 + 0 - 1", value(&log, v, &ok) == ~0ull && ok,
	      "not 2^64 - 1");
	check("if type == 7 then snap", value(&ents, v, &ok) == 40 && ok,
	      "not the snapshot's index");
	v[2].v = 3;
	check("else nents", value(&ents, v, &ok) == 3 && ok, "not the entries");
	check("an operand without a value: -1 naming it",
	      go_calc_eval(&nil, v, &out, &which) == -1 && which == 5, "not refused");
	v[2].have = 0;
	which = -1;
	check("a condition without a value: -1 naming it",
	      go_calc_eval(&ents, v, &out, &which) == -1 && which == 2, "not refused");
}

/* min, max and the comparisons, of -1 and 2 as signed and as unsigned. */
static void orders(void)
{
	static const struct { enum go_op op; unsigned long long is_signed, as_unsigned; } t[] = {
		{ GO_MIN, ~0ull, 2 }, { GO_MAX, 2, ~0ull }, { GO_LT, 1, 0 }, { GO_LE, 1, 0 },
		{ GO_GT, 0, 1 }, { GO_GE, 0, 1 }, { GO_EQ, 0, 0 }, { GO_NE, 1, 1 },
	};
	struct go_val v[2] = { { .v = ~0ull, .have = 1 }, { .v = 2, .have = 1 } };
	int all = 1, ok;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		for (int sgn = 0; sgn < 2; sgn++) {
			struct go_calc c = { 0 };

			op(&c, t[i].op, leaf(&c, 0, 0), leaf(&c, 1, 0), -1);
			c.node[c.root].is_signed = sgn;
			all &= value(&c, v, &ok) == (sgn ? t[i].is_signed : t[i].as_unsigned) && ok;
		}
	check("min, max, ==, !=, <, <=, >, >= as signed and unsigned", all, "one differs");
	{
		struct go_calc c = { 0 };
		struct go_val w[2] = { { .v = 2, .have = 1 }, { .v = 2, .have = 1 } };

		op(&c, GO_LE, leaf(&c, 0, 0), leaf(&c, 1, 0), -1);
		check("2 <= 2", value(&c, w, &ok) == 1 && ok, "not true");
		op(&c, GO_GE, leaf(&c, 0, 0), leaf(&c, 1, 0), -1);
		check("2 >= 2", value(&c, w, &ok) == 1 && ok, "not true");
	}
}

static void calls(void)
{
	struct go_calls *c = go_calls_new();
	unsigned long long *mask, done = 0;

	check("nothing open at first", !go_calls_open(c, 0, 1, 0), "open");
	go_calls_enter(c, 0, 1, 0);          /* f on goroutine 1 */
	go_calls_enter(c, 0, 2, 0);          /* f on goroutine 2 */
	go_calls_enter(c, 0, 1, 0);          /* f again inside f on 1 */
	check("open on its goroutine only", go_calls_open(c, 0, 1, 0) &&
	      !go_calls_open(c, 0, 3, 0) && !go_calls_open(c, 1, 1, 0) &&
	      !go_calls_open(c, 0, 1, 1), "wrong calls open");
	mask = go_calls_open(c, 0, 1, 0);
	*mask |= 1;                          /* the inner call's once event */
	check("the inner call returns with its mask",
	      !go_calls_leave(c, 0, 1, 0, &done) && done == 1, "wrong mask");
	check("the outer call is the innermost now, its mask clear",
	      (mask = go_calls_open(c, 0, 1, 0)) && *mask == 0, "wrong call");
	check("goroutine 2's call returns",
	      !go_calls_leave(c, 0, 2, 0, &done) && done == 0, "not open");
	check("a return without its entry: -1", go_calls_leave(c, 0, 2, 0, &done) == -1,
	      "found a call");
	check("goroutine 1's outer call still open", go_calls_open(c, 0, 1, 0) != NULL,
	      "lost");
	for (int i = 0; i < 100; i++)        /* the list grows */
		go_calls_enter(c, 0, 10 + (unsigned)i, 0);
	check("100 more open", go_calls_open(c, 0, 109, 0) && go_calls_open(c, 0, 1, 0),
	      "lost one");
	go_calls_free(c);
}

/* A key of @n values: @a, then (if @n is 2) @b. */
static void key(struct strbuf *k, int n, unsigned long long a, unsigned long long b)
{
	struct go_val va = { .v = a, .have = 1 }, vb = { .v = b, .have = 1 };

	strbuf_reset(k);
	go_key_add(k, &va);
	if (n == 2)
		go_key_add(k, &vb);
}

/* A string of @n bytes at @b as a value (its length @len). */
static struct go_val str(const char *b, size_t n, unsigned long long len)
{
	return (struct go_val){ .v = len, .have = 1, .bytes = b, .nbytes = n };
}

/* Strings as keys and as values kept: their bytes, copied. */
static void strings(struct go_state *st, struct strbuf *k)
{
	char id[] = "node-a", vote[] = "node-b";
	struct go_val a = str(id, 6, 6), three = { .v = 6, .have = 1 };
	const struct go_val *v;

	strbuf_reset(k);
	go_key_add(k, &a);
	go_state_put(st, 3, k, str(vote, 6, 6));
	vote[5] = 'x';                       /* the record's bytes change */
	id[5] = 'z';
	strbuf_reset(k);
	go_key_add(k, &a);
	check("a string key of other bytes: nothing", !go_state_get(st, 3, k), "found one");
	id[5] = 'a';
	strbuf_reset(k);
	go_key_add(k, &a);
	v = go_state_get(st, 3, k);
	check("a string kept as its bytes were", v && v->nbytes == 6 &&
	      !memcmp(v->bytes, "node-b", 6) && v->v == 6, "not node-b");
	strbuf_reset(k);
	go_key_add(k, &three);
	check("an integer is not a string of that length", !go_state_get(st, 3, k),
	      "found one");
	a = str(id, 4, 6);                   /* "node" of a longer string */
	strbuf_reset(k);
	go_key_add(k, &a);
	check("a cut string is not the whole", !go_state_get(st, 3, k), "found one");
}

static void state(void)
{
	struct go_state *st = go_state_new();
	struct strbuf k = STRBUF_INIT;
	const struct go_val *v;
	struct go_val nil = { .have = 0 };
	int all = 1;

	key(&k, 2, 0, 3);
	check("nothing kept at first", !go_state_get(st, 0, &k), "found one");
	go_state_put(st, 0, &k, (struct go_val){ .v = 7, .have = 1 });
	key(&k, 2, 0, 3);
	check("kept for its key", (v = go_state_get(st, 0, &k)) && v->v == 7, "lost");
	check("not for another state", !go_state_get(st, 1, &k), "found one");
	key(&k, 2, 1, 3);
	check("not for another key", !go_state_get(st, 0, &k), "found one");
	key(&k, 1, 0, 0);
	check("not for a shorter key", !go_state_get(st, 0, &k), "found one");
	strbuf_reset(&k);
	go_key_add(&k, &nil);
	check("a nil key is not 0", !go_state_get(st, 0, &k), "found one");
	key(&k, 2, 0, 3);
	go_state_put(st, 0, &k, (struct go_val){ .v = 8, .have = 1 });
	check("a later keep replaces it", (v = go_state_get(st, 0, &k)) && v->v == 8,
	      "not replaced");
	for (unsigned long long i = 0; i < 1000; i++) {   /* the table grows */
		key(&k, 2, i, 4);
		go_state_put(st, 2, &k, (struct go_val){ .v = i * 10, .have = 1 });
	}
	for (unsigned long long i = 0; i < 1000; i++) {
		key(&k, 2, i, 4);
		v = go_state_get(st, 2, &k);
		all &= v && v->v == i * 10;
	}
	key(&k, 2, 0, 3);
	check("1000 more kept, each its own, the first still",
	      all && (v = go_state_get(st, 0, &k)) && v->v == 8, "lost one");
	strings(st, &k);
	strbuf_release(&k);
	go_state_free(st);
}

int main(void)
{
	calcs();
	orders();
	calls();
	state();
	return unit_status();
}

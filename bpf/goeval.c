// SPDX-License-Identifier: MIT
/*
 * Computed values, kept values and open calls of a probe spec (goeval.h).
 * All run in the consumer, on records in the order they happened: the BPF
 * program only reads, so what a spec computes never costs the probed program.
 */
#include <stdlib.h>
#include <string.h>
#include "../capture/die.h"
#include "../capture/json.h"
#include "goeval.h"

static int operand(const struct go_operand *o, const struct go_val *vals,
		   unsigned long long *v, int *at)
{
	if (o->field < 0) {
		*v = o->k;
		return 0;
	}
	if (!vals[o->field].have) {
		*at = o->field;
		return GO_CALC_NIL;
	}
	*v = vals[o->field].v;
	return 0;
}

/* min, max and orderings, of @a and @b as signed or unsigned numbers. */
static unsigned long long order(const struct go_node *n, unsigned long long a,
				unsigned long long b)
{
	int lt = n->is_signed ? (long long)a < (long long)b : a < b;
	int gt = n->is_signed ? (long long)a > (long long)b : a > b;

	switch (n->op) {
	case GO_MIN:
		return lt ? a : b;
	case GO_MAX:
		return gt ? a : b;
	case GO_LT:
		return lt;
	case GO_LE:
		return !gt;
	case GO_GT:
		return gt;
	default:
		return !lt;
	}
}

/*
 * @a / @b or @a % @b (@b not 0), truncated toward zero as Go, C and Rust
 * divide; signed, the quotient's sign from the operands' magnitudes, so
 * that the most negative number divided by -1 wraps to itself (Go's
 * rule) without the overflow C leaves undefined.
 */
static unsigned long long divide(const struct go_node *n, unsigned long long a,
				 unsigned long long b)
{
	int neg_a = n->is_signed && (long long)a < 0;
	int neg_b = n->is_signed && (long long)b < 0;
	unsigned long long ua = neg_a ? -a : a, ub = neg_b ? -b : b;

	if (n->op == GO_MOD)
		return neg_a ? -(ua % ub) : ua % ub;
	return neg_a != neg_b ? -(ua / ub) : ua / ub;
}

/* @a shifted by @b bits: past 63 every bit is out (a signed >> fills with its sign). */
static unsigned long long shift(const struct go_node *n, unsigned long long a,
				unsigned long long b)
{
	if (n->op == GO_SHL)
		return b > 63 ? 0 : a << b;
	if (!n->is_signed)
		return b > 63 ? 0 : a >> b;
	/* an arithmetic shift, written without one C leaves to the compiler */
	unsigned long long fill = (long long)a < 0 ? ~0ull : 0;

	return b > 63 ? fill : (a >> b) | (b ? fill << (64 - b) : 0);
}

static unsigned long long binary(const struct go_node *n, unsigned long long a,
				 unsigned long long b)
{
	switch (n->op) {
	case GO_ADD:
		return a + b;
	case GO_SUB:
		return a - b;
	case GO_MUL:
		return a * b;
	case GO_DIV:
	case GO_MOD:
		return divide(n, a, b);
	case GO_AND:
		return a & b;
	case GO_OR:
		return a | b;
	case GO_XOR:
		return a ^ b;
	case GO_SHL:
	case GO_SHR:
		return shift(n, a, b);
	case GO_EQ:
		return a == b;
	case GO_NE:
		return a != b;
	default:
		return order(n, a, b);
	}
}

/* The field node @i is, for a failure's message; -1: not one. */
static int field_of(const struct go_calc *c, int i)
{
	return c->node[i].op == GO_LEAF ? c->node[i].leaf.field : -1;
}

/* Node @i of @c: 0, or an enum go_calc_fail (the field it names in *@at). */
static int eval(const struct go_calc *c, int i, const struct go_val *vals,
		unsigned long long *out, int *at)
{
	const struct go_node *n = &c->node[i];
	unsigned long long a, b;
	int rc;

	if (n->op == GO_LEAF)
		return operand(&n->leaf, vals, out, at);
	if ((rc = eval(c, n->a, vals, &a, at)))
		return rc;
	if (n->op == GO_NOT) {
		*out = ~a;
		return 0;
	}
	if (n->op == GO_IF)
		return eval(c, a ? n->b : n->c, vals, out, at);
	if ((rc = eval(c, n->b, vals, &b, at)))
		return rc;
	if ((n->op == GO_DIV || n->op == GO_MOD) && !b) {
		*at = field_of(c, n->b);
		return GO_CALC_ZERO;
	}
	if ((n->op == GO_SHL || n->op == GO_SHR) && n->count_signed && (long long)b < 0) {
		*at = field_of(c, n->b);
		return GO_CALC_NEGATIVE;
	}
	*out = binary(n, a, b);
	return 0;
}

int go_calc_eval(const struct go_calc *c, const struct go_val *vals,
		 unsigned long long *out, int *at)
{
	return eval(c, c->root, vals, out, at);
}

/*
 * Kept values: open addressing over (state, key bytes), at most half full.
 * A run keeps a few values per node, so a table of a few entries.
 */
struct go_kept {
	int name;               /* -1: an empty slot */
	char *key;
	size_t len;
	struct go_val v;        /* a string's bytes: a copy, owned here */
};

struct go_state {
	struct go_kept *slot;
	size_t n, cap;          /* cap: a power of two */
};

struct go_state *go_state_new(void)
{
	struct go_state *st = xcalloc(1, sizeof(*st));

	st->cap = 16;
	st->slot = xcalloc(st->cap, sizeof(*st->slot));
	for (size_t i = 0; i < st->cap; i++)
		st->slot[i].name = -1;
	return st;
}

void go_state_free(struct go_state *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->cap; i++) {
		free(st->slot[i].key);
		free((char *)st->slot[i].v.bytes);
	}
	free(st->slot);
	free(st);
}

/*
 * Whether the value is there and is a string, its 8 bytes (a string's
 * length), then a string's bytes: a nil key is a key too, and no string
 * is an integer.
 */
void go_key_add(struct strbuf *key, const struct go_val *v)
{
	unsigned char b[9] = { (unsigned char)((v->have ? 1 : 0) | (v->bytes ? 2 : 0)) };

	for (int i = 0; i < 8; i++)
		b[1 + i] = (unsigned char)(v->have ? v->v >> (8 * i) : 0);
	strbuf_put(key, b, sizeof(b));
	if (v->have && v->bytes)
		strbuf_put(key, v->bytes, v->nbytes);
}

/* FNV-1a of the state and its key. */
static size_t hash(int name, const char *key, size_t len)
{
	unsigned long long h = 1469598103934665603ull ^ (unsigned)name;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)key[i]) * 1099511628211ull;
	return (size_t)h;
}

/* The slot of (@name, @key): its own, or the empty one it would take. */
static struct go_kept *find_kept(const struct go_state *st, int name,
				 const char *key, size_t len)
{
	size_t i = hash(name, key, len) & (st->cap - 1);

	for (;; i = (i + 1) & (st->cap - 1)) {
		struct go_kept *k = &st->slot[i];

		if (k->name < 0 || (k->name == name && k->len == len &&
				    !memcmp(k->key, key, len)))
			return k;
	}
}

static void grow(struct go_state *st)
{
	struct go_kept *old = st->slot;
	size_t cap = st->cap;

	st->cap *= 2;
	st->slot = xcalloc(st->cap, sizeof(*st->slot));
	for (size_t i = 0; i < st->cap; i++)
		st->slot[i].name = -1;
	for (size_t i = 0; i < cap; i++)
		if (old[i].name >= 0)
			*find_kept(st, old[i].name, old[i].key, old[i].len) = old[i];
	free(old);
}

void go_state_put(struct go_state *st, int name, const struct strbuf *key,
		  struct go_val v)
{
	struct go_kept *k;

	if (2 * (st->n + 1) > st->cap)
		grow(st);
	k = find_kept(st, name, key->buf, key->len);
	if (k->name < 0) {
		k->name = name;
		k->key = xmalloc(key->len ? key->len : 1);
		memcpy(k->key, key->buf, key->len);
		k->len = key->len;
		st->n++;
	}
	free((char *)k->v.bytes);
	k->v = v;
	if (v.bytes) {
		char *copy = xmalloc(v.nbytes ? v.nbytes : 1);

		memcpy(copy, v.bytes, v.nbytes);
		k->v.bytes = copy;
	}
}

const struct go_val *go_state_get(const struct go_state *st, int name,
				  const struct strbuf *key)
{
	const struct go_kept *k = find_kept(st, name, key->buf, key->len);

	return k->name < 0 ? NULL : &k->v;
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

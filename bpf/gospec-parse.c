// SPDX-License-Identifier: MIT
/*
 * Probe specs for `capture go` and `capture etcd` (format: docs/probe-spec.md).
 * One line a statement, so that every refusal names its exact file:line:
 *
 *   header KEY [proc]      events start with "KEY":EVENT (and "proc":P)
 *   number goroutines      goroutine ids as their index in the process
 *   names TABLE NAME...    value i is written as the i-th NAME ("-": none)
 *   func SYMBOL            a function to probe
 *   entry EVENT [CLAUSE]   its entry becomes event EVENT; several entry
 *   return EVENT [CLAUSE]  (return) lines in a row: several events of one
 *                          record, in order.  CLAUSE: "by FIELD" (EVENT is
 *                          a table naming FIELD's value), "while SYMBOL
 *                          [once]" (only inside a call of SYMBOL on the
 *                          goroutine), "per FIELD == VALUE" (one event per
 *                          element of slice FIELD that is VALUE)
 *   FIELD TYPE EXPR [or N] [as string] [hidden]
 *                          a field of the site: EXPR read as TYPE; a
 *                          dotted FIELD nests ("state.term"); TYPE str:
 *                          a string's bytes, at most N with EXPR[:N]
 *   FIELD bool EXPR == nil (or != nil): whether EXPR is nil
 *   FIELD TYPE = CALC ...  a field computed from the fields above it
 *                          (arithmetic, bits, min, max, comparisons,
 *                          if ... then ... else)
 *   keep NAME KEY... = FIELD   FIELD kept per key for later records
 *   FIELD TYPE kept NAME KEY... [or N]  the value kept last for the key
 *   group NAME PARAM       the field lines below, for "use NAME ARG" in a
 *                          site: PARAM in their expressions read as ARG
 *   projection NAME        ends the probes: the lines after it are the
 *                          spec's projection (capture/projection.c)
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../capture/die.h"
#include "../capture/err.h"
#include "../capture/ndjson.h"
#include "../capture/proc.h"
#include "expr.h"
#include "goeval.h"
#include "gospec-spec.h"
#include "gospec.h"

/* NAME or NAME.NAME...: a field's key, nested at each dot. */
static int is_path(const char *s)
{
	char *copy = xstrdup(s), *save = NULL;
	int ok = s[0] != '.' && s[strlen(s) - 1] != '.' && !strstr(s, "..");

	for (char *p = strtok_r(copy, ".", &save); ok && p; p = strtok_r(NULL, ".", &save))
		ok = is_identifier(p);
	free(copy);
	return ok;
}

static const struct { const char *name; enum probe_kind kind; int size; } types[] = {
	{ "bool", PROBE_KIND_BOOL, 1 },
	{ "i8", PROBE_KIND_SIGNED, 1 }, { "i16", PROBE_KIND_SIGNED, 2 },
	{ "i32", PROBE_KIND_SIGNED, 4 }, { "i64", PROBE_KIND_SIGNED, 8 },
	{ "u8", PROBE_KIND_UNSIGNED, 1 }, { "u16", PROBE_KIND_UNSIGNED, 2 },
	{ "u32", PROBE_KIND_UNSIGNED, 4 }, { "u64", PROBE_KIND_UNSIGNED, 8 },
};
#define NTYPES (sizeof(types) / sizeof(types[0]))

const char *gospec_type_label(enum probe_kind kind, int size)
{
	for (size_t i = 0; i < NTYPES; i++)
		if (types[i].kind == kind && types[i].size == size)
			return types[i].name;
	return "?";
}

/* number()'s word too large for 64 bits, and what a refusal says of it. */
#define NOT_64_BITS (-2)
#define TOO_LARGE "a number too large for 64 bits"

/* EXPR[:N]REST: split at the one slice range, if any. */
static int split_range(struct go_spec *s, long line, struct field *f,
		       const char *expr)
{
	const char *r = strstr(expr, "[:");
	char *end;
	long n;

	f->star = *expr == '*';
	f->expr = xstrdup(expr + f->star);
	if (!r)
		return 0;
	errno = 0;
	n = strtol(r + 2, &end, 10);
	if (end == r + 2 || *end != ']' || errno || n < 1 || n > GP_MAX_READS)
		return gospec_refuse(s, line,
				     "%s: expected [:N] with N from 1 to %d", expr, GP_MAX_READS);
	f->count = (int)n;
	if (strstr(end, "[:"))
		return gospec_refuse(s, line, "%s: one [:N] a field", expr);
	f->expr[r - expr - f->star] = 0;
	f->rest = xstrdup(end + 1);
	return 0;
}

/*
 * A str field's EXPR[:B]: at most B bytes of the string (STR_BYTES
 * without it).  A range before that, EXPR[:N]REST[:B], makes it a slice
 * of at most N strings, each element's REST (as split_range()).
 */
static int split_bytes(struct go_spec *s, long line, struct field *f,
		       const char *expr)
{
	const char *last = strstr(expr, "[:"), *close;
	size_t len = strlen(expr);   /* of the expression before the bytes' bound */
	char *end, *body;
	long n;
	int rc;

	f->bytes = STR_BYTES;
	if (*expr == '*')
		return gospec_refuse(s, line, "%s: a str field reads a string, not *X", expr);
	while (last && strstr(last + 2, "[:"))
		last = strstr(last + 2, "[:");
	close = last ? strchr(last, ']') : NULL;
	if (close && !close[1]) {
		/* the last range ends the expression: the bytes' bound */
		errno = 0;
		n = strtol(last + 2, &end, 10);
		if (end == last + 2 || end != close || errno || n < 1 || n > STR_MAX_BYTES)
			return gospec_refuse(s, line,
					     "%s: a str field ends in [:N], N from 1 to %d bytes",
					     expr, STR_MAX_BYTES);
		f->bytes = (int)n;
		len = (size_t)(last - expr);
	}
	body = xstrdup(expr);
	body[len] = 0;
	if (!strstr(body, "[:")) {
		f->expr = body;
		return 0;
	}
	rc = split_range(s, line, f, body);
	free(body);
	return rc;
}

static const struct table *find_table(struct go_spec *s, const char *name)
{
	for (int i = 0; i < s->ntables; i++)
		if (!strcmp(s->table[i].name, name))
			return &s->table[i];
	return NULL;
}

/*
 * @word as a number (C's decimal, 0x hex or 0 octal): 0, -1 if it is not
 * one, NOT_64_BITS if it is too large for 64 bits (strtoull would give its
 * largest value instead).
 */
static int number(const char *word, unsigned long long *v)
{
	char *end;

	errno = 0;
	*v = strtoull(word, &end, 0);
	if (end == word || *end)
		return -1;
	return errno == ERANGE ? NOT_64_BITS : 0;
}

/* Refuse @what, out of the range of @kind in @size bytes, naming it. */
static int out_of_range(struct go_spec *s, long line, const char *what,
			enum probe_kind kind, int size)
{
	unsigned long long max = ~0ull >> (64 - 8 * size + (kind == PROBE_KIND_SIGNED));

	return gospec_refuse(s, line, "%s: out of range for %s (%lld to %llu)", what,
			     gospec_type_label(kind, size),
			     kind == PROBE_KIND_SIGNED ? -(long long)max - 1 : 0, max);
}

int gospec_fits(struct go_spec *s, long line, const char *what,
		unsigned long long v, enum probe_kind kind, int size)
{
	unsigned long long max = ~0ull >> (64 - 8 * size + (kind == PROBE_KIND_SIGNED));

	return v <= max ? 0 : out_of_range(s, line, what, kind, size);
}

/*
 * "or -N": a signed field's negative default, kept as its 64-bit two's
 * complement (what a read of the field holds once sign-extended).
 */
static int negative_default(struct go_spec *s, long line, struct field *f,
			    const char *word)
{
	long long v, min = -(long long)(~0ull >> (64 - 8 * f->size + 1)) - 1;
	char *end;
	char *what;
	int rc;

	if (f->kind != PROBE_KIND_SIGNED || f->table)
		return gospec_refuse(s, line, "or %s: a negative default needs a "
				     "signed field", word);
	errno = 0;
	v = strtoll(word, &end, 10);
	if (end == word || *end)
		return gospec_refuse(s, line, "or %s: a default is a number of the "
				     "field's type (or true, false)", word);
	if (errno != ERANGE && v >= min) {
		f->def = (unsigned long long)v;
		return 0;
	}
	what = xasprintf("or %s", word);
	rc = out_of_range(s, line, what, f->kind, f->size);
	free(what);
	return rc;
}

/* @word as a number, or as a name of @t: number()'s codes. */
static int constant(const char *word, const struct table *t, unsigned long long *v)
{
	if (isdigit((unsigned char)*word))
		return number(word, v);
	for (int i = 0; t && i < t->n; i++)
		if (strcmp(t->names[i], "-") && !strcmp(t->names[i], word)) {
			*v = (unsigned long long)i;
			return 0;
		}
	return -1;
}

/* "or N" after a field's expression: N (or true, false) where it is nil. */
static int add_default(struct go_spec *s, long line, struct field *f,
		       const char *word)
{
	char *what;
	int rc;

	f->has_default = 1;
	if (f->bytes && !f->kept_name)
		return gospec_refuse(s, line,
				     "or %s: a str read has no default (a nil string is null); a kept one has",
				     word);
	if (f->bytes) {
		if (strchr(word, '"') || strchr(word, '\\') || strlen(word) > STR_MAX_BYTES)
			return gospec_refuse(s, line,
					     "or %s: at most %d bytes, no quotes or backslashes",
					     word, STR_MAX_BYTES);
		f->def_str = xstrdup(word);
		return 0;
	}
	if (f->kind == PROBE_KIND_BOOL && !f->table &&
	    (!strcmp(word, "true") || !strcmp(word, "false"))) {
		f->def = !strcmp(word, "true");
		return 0;
	}
	if (*word == '-' && f->kind != PROBE_KIND_BOOL)
		return negative_default(s, line, f, word);
	rc = number(word, &f->def);
	if ((rc && rc != NOT_64_BITS) || f->kind == PROBE_KIND_BOOL || *word == '-')
		return gospec_refuse(s, line,
				     "or %s: a default is a number of the field's type (or true, false)",
				     word);
	if (rc)
		return gospec_refuse(s, line, "or %s: %s", word, TOO_LARGE);
	/* A table's field has its size once resolved (gospec-resolve.c). */
	if (f->table)
		return 0;
	what = xasprintf("or %s", word);
	rc = gospec_fits(s, line, what, f->def, f->kind, f->size);
	free(what);
	return rc;
}

static int find_field(const struct site *site, const char *name)
{
	for (int i = 0; i < site->nfields; i++)
		if (!strcmp(site->field[i].name, name))
			return i;
	return -1;
}

/*
 * A computed field's text, its words joined, parsed by recursive descent
 * into a go_calc (goeval.h), with Go's precedence:
 *
 *   calc := 'if' calc 'then' calc 'else' calc | rel
 *   rel  := sum [('==' | '!=' | '<' | '<=' | '>' | '>=') sum]
 *   sum  := prod [('+' | '-' | '|' | '^') prod]...
 *   prod := unary [('*' | '/' | '%' | '<<' | '>>' | '&') unary]...
 *   unary := '~' unary | term
 *   term := FIELD | NUMBER | true | false | ('min' | 'max') '(' calc ',' calc ')'
 *         | '(' calc ')'
 *
 * A comparison is a bool, every other value an integer; min, max, the
 * orderings, / and % work as signed numbers when a signed field is among
 * their operands (a signed and an unsigned field together are refused),
 * >> as its value's.  Two operators that C and Rust would group otherwise
 * than Go (a + b << 2, a & b + 1, a | b ^ c) are refused without
 * parentheses: a spec reads programs in all three languages.
 */
#define CALC_INT 0
#define CALC_BOOL 1
#define SIGNED 1                /* a node's operands: signed fields */
#define UNSIGNED 2              /* unsigned fields; both: mixed */

struct calc_parse {
	struct go_spec *s;
	const struct site *site;
	long line;
	char *buf;              /* the lexemes, each NUL-terminated */
	char **lex;
	int nlex, at;
	char where[64];         /* here()'s */
	struct go_calc *c;
	int type[GO_CALC_NODES], sign[GO_CALC_NODES];
	const struct table *table[GO_CALC_NODES];   /* a table field's leaf */
	const struct binop *bin[GO_CALC_NODES];     /* its operator, unless
						     * in parentheses */
};

/*
 * A binary operator of integers: its node, Go's precedence (2 binds
 * tighter than 1) and C's and Rust's rank (they agree on these: *, then
 * +, then shifts, then &, ^, |).
 */
struct binop {
	const char *word;
	enum go_op op;
	int go, c;
};

static const struct binop prods[] = {
	{ "*", GO_MUL, 2, 6 }, { "/", GO_DIV, 2, 6 }, { "%", GO_MOD, 2, 6 },
	{ "<<", GO_SHL, 2, 4 }, { ">>", GO_SHR, 2, 4 }, { "&", GO_AND, 2, 3 },
	{ NULL, 0, 0, 0 }
};
static const struct binop sums[] = {
	{ "+", GO_ADD, 1, 5 }, { "-", GO_SUB, 1, 5 }, { "|", GO_OR, 1, 1 },
	{ "^", GO_XOR, 1, 2 }, { NULL, 0, 0, 0 }
};

static const char *const ops2[] = { "==", "!=", "<=", ">=", "<<", ">>" };

/* The text's lexemes: names (dotted), numbers, operators, parentheses. */
static int lex(struct calc_parse *p, const char *text)
{
	size_t len = strlen(text);
	char *out;

	p->buf = out = xmalloc(2 * len + 1);
	p->lex = xcalloc(len + 1, sizeof(*p->lex));
	for (const char *t = text; *t;) {
		size_t n = 0;

		if (*t == ' ') {
			t++;
			continue;
		}
		if (isalnum((unsigned char)*t) || *t == '_')
			while (isalnum((unsigned char)t[n]) || t[n] == '_' || t[n] == '.')
				n++;
		for (size_t i = 0; !n && i < sizeof(ops2) / sizeof(ops2[0]); i++)
			if (!strncmp(t, ops2[i], 2))
				n = 2;
		if (!n && strchr("+-*/%&|^~<>(),", *t))
			n = 1;
		if (!n)
			return gospec_refuse(p->s, p->line,
					     "'%c': not a field, a number or an operator of a computed field", *t);
		p->lex[p->nlex++] = memcpy(out, t, n);
		out[n] = 0;
		out += n + 1;
		t += n;
	}
	return 0;
}

static const char *peek(const struct calc_parse *p)
{
	return p->at < p->nlex ? p->lex[p->at] : "";
}

static int accept(struct calc_parse *p, const char *word)
{
	if (strcmp(peek(p), word))
		return 0;
	p->at++;
	return 1;
}

/* What a refusal names: the next lexeme, quoted, or the end. */
static const char *here(struct calc_parse *p)
{
	if (p->at >= p->nlex)
		return "the end";
	snprintf(p->where, sizeof(p->where), "'%s'", p->lex[p->at]);
	return p->where;
}

static int expect(struct calc_parse *p, const char *word, const char *after)
{
	if (accept(p, word))
		return 0;
	return gospec_refuse(p->s, p->line, "%s: expected '%s' after %s", here(p),
			     word, after);
}

/* A new node @op over @a, @b, @c: its index, or -1. */
static int node(struct calc_parse *p, enum go_op op, int a, int b, int c)
{
	struct go_calc *k = p->c;

	if (k->n == GO_CALC_NODES)
		return gospec_refuse(p->s, p->line,
				     "more than %d operands and operations", GO_CALC_NODES);
	k->node[k->n] = (struct go_node){ .op = op, .a = a, .b = b, .c = c,
					  .leaf = { .field = -1 } };
	p->type[k->n] = CALC_INT;
	p->table[k->n] = NULL;
	p->bin[k->n] = NULL;
	p->sign[k->n] = (a >= 0 ? p->sign[a] : 0) | (b >= 0 ? p->sign[b] : 0) |
			(c >= 0 ? p->sign[c] : 0);
	return k->n++;
}

/* Are nodes @a and @b of @type (an operator @what's operands)? */
static int typed(struct calc_parse *p, int a, int b, int type, const char *what)
{
	if (p->type[a] == type && p->type[b] == type)
		return 0;
	return gospec_refuse(p->s, p->line, "'%s': %s", what, type == CALC_INT ?
			     "takes integers, not comparisons" :
			     "takes comparisons (==, !=, <, <=, >, >=)");
}

/* A node that orders @a and @b: their signs must agree. */
static int ordered(struct calc_parse *p, enum go_op op, int a, int b, const char *what)
{
	int n;

	if (typed(p, a, b, CALC_INT, what))
		return -1;
	if ((p->sign[a] | p->sign[b]) == (SIGNED | UNSIGNED))
		return gospec_refuse(p->s, p->line,
				     "'%s': compares a signed and an unsigned field", what);
	if ((n = node(p, op, a, b, -1)) >= 0)
		p->c->node[n].is_signed = p->sign[n] == SIGNED;
	return n;
}

static int p_calc(struct calc_parse *p, const struct table *t);

/* An operand: a one-value field above, or a constant (a name of @t). */
static int leaf(struct calc_parse *p, const char *word, const struct table *t)
{
	int i = find_field(p->site, word), n, rc;
	unsigned long long k = 0;
	int is_bool = i < 0 && (!strcmp(word, "true") || !strcmp(word, "false"));

	if (i >= 0 && p->site->field[i].count)
		return gospec_refuse(p->s, p->line,
				     "%s is a slice ([:N]): a computed field takes one-value fields",
				     word);
	if (i >= 0 && p->site->field[i].bytes)
		return gospec_refuse(p->s, p->line,
				     "%s is a str: a computed field takes integers", word);
	if (is_bool) {
		k = !strcmp(word, "true");
	} else if (i < 0 && (rc = constant(word, t, &k))) {
		if (rc == NOT_64_BITS)
			return gospec_refuse(p->s, p->line, "'%s': %s", word, TOO_LARGE);
		return gospec_refuse(p->s, p->line,
				     "'%s': neither a field above nor a number%s", word,
				     t ? " nor a name of its table" : "");
	}
	if ((n = node(p, GO_LEAF, -1, -1, -1)) < 0)
		return -1;
	p->c->node[n].leaf = (struct go_operand){ .field = i, .k = k };
	if (i < 0) {
		p->type[n] = is_bool ? CALC_BOOL : CALC_INT;
		return n;
	}
	p->table[n] = p->site->field[i].table;
	p->type[n] = p->site->field[i].kind == PROBE_KIND_BOOL ? CALC_BOOL : CALC_INT;
	p->sign[n] = p->site->field[i].kind == PROBE_KIND_SIGNED ? SIGNED :
		     p->site->field[i].kind == PROBE_KIND_UNSIGNED ? UNSIGNED : 0;
	return n;
}

/* min(A, B) or max(A, B). */
static int p_minmax(struct calc_parse *p, enum go_op op, const char *what)
{
	int a, b;

	if (expect(p, "(", what) || (a = p_calc(p, NULL)) < 0 ||
	    expect(p, ",", what) || (b = p_calc(p, NULL)) < 0 || expect(p, ")", what))
		return -1;
	return ordered(p, op, a, b, what);
}

static int p_term(struct calc_parse *p, const struct table *t)
{
	const char *w = peek(p);
	int n;

	if (!*w || !(isalnum((unsigned char)*w) || *w == '_' || *w == '('))
		return gospec_refuse(p->s, p->line,
				     "%s: expected an operand (a field above, a number, min(A, B), max(A, B))",
				     here(p));
	p->at++;
	if (!strcmp(w, "(")) {
		if ((n = p_calc(p, t)) < 0 || expect(p, ")", "'(...'"))
			return -1;
		p->bin[n] = NULL;	/* grouped as written */
		return n;
	}
	if ((!strcmp(w, "min") || !strcmp(w, "max")) && !strcmp(peek(p), "("))
		return p_minmax(p, *w == 'm' && w[1] == 'i' ? GO_MIN : GO_MAX, w);
	return leaf(p, w, t);
}

/* ~X: every bit of X's 64 flipped. */
static int p_unary(struct calc_parse *p, const struct table *t)
{
	int a;

	if (!accept(p, "~"))
		return p_term(p, t);
	if ((a = p_unary(p, t)) < 0)
		return -1;
	if (p->type[a] != CALC_INT)
		return gospec_refuse(p->s, p->line, "'~': takes integers, not comparisons");
	return node(p, GO_NOT, a, -1, -1);
}

/*
 * Does C (and Rust) group operand @k of @o as Go did, @k the left
 * operand when @left?  Go's left operand binds at least as tightly, its
 * right one more; so must C's, else the reader meant something else.
 */
static int same_grouping(struct calc_parse *p, const struct binop *o, int k,
			 int left)
{
	const struct binop *in = p->bin[k];

	if (!in || (left ? in->c >= o->c : in->c > o->c))
		return 0;
	return gospec_refuse(p->s, p->line,
			     "'%s' and '%s': Go groups them otherwise than C and Rust: add parentheses",
			     left ? in->word : o->word, left ? o->word : in->word);
}

/* @a @o @b, its operands' types and signs checked. */
static int binop(struct calc_parse *p, const struct binop *o, int a, int b)
{
	int n, sign = p->sign[a] | p->sign[b];
	int divides = o->op == GO_DIV || o->op == GO_MOD, shifts = o->op == GO_SHL ||
		      o->op == GO_SHR;

	if (typed(p, a, b, CALC_INT, o->word) || same_grouping(p, o, a, 1) ||
	    same_grouping(p, o, b, 0))
		return -1;
	if ((divides && sign == (SIGNED | UNSIGNED)) ||
	    (o->op == GO_SHR && p->sign[a] == (SIGNED | UNSIGNED)))
		return gospec_refuse(p->s, p->line, "'%s': %s a signed and an unsigned field",
				     o->word, divides ? "divides" : "shifts");
	if ((n = node(p, o->op, a, b, -1)) < 0)
		return -1;
	p->bin[n] = o;
	p->c->node[n].is_signed = (divides ? sign : p->sign[a]) == SIGNED;
	p->c->node[n].count_signed = shifts && (p->sign[b] & SIGNED);
	if (shifts)	/* the value's sign, not the count's */
		p->sign[n] = p->sign[a];
	return n;
}

/* The operator of @ops next, or NULL. */
static const struct binop *next_op(const struct calc_parse *p, const struct binop *ops)
{
	for (; ops->word; ops++)
		if (!strcmp(peek(p), ops->word))
			return ops;
	return NULL;
}

/* Operands of @level (prods: p_unary()'s, sums: p_prod()'s) joined by @ops. */
static int p_chain(struct calc_parse *p, const struct table *t, const struct binop *ops)
{
	int a = ops == prods ? p_unary(p, t) : p_chain(p, t, prods), b;
	const struct binop *o;

	while (a >= 0 && (o = next_op(p, ops))) {
		p->at++;
		b = ops == prods ? p_unary(p, t) : p_chain(p, t, prods);
		a = b < 0 ? -1 : binop(p, o, a, b);
	}
	return a;
}

static int p_sum(struct calc_parse *p, const struct table *t)
{
	return p_chain(p, t, sums);
}

static const struct { const char *word; enum go_op op; } compares[] = {
	{ "==", GO_EQ }, { "!=", GO_NE }, { "<", GO_LT }, { "<=", GO_LE },
	{ ">", GO_GT }, { ">=", GO_GE },
};

/* SUM [CMP SUM]: a constant after a table's field may be one of its names. */
static int p_rel(struct calc_parse *p, const struct table *t)
{
	int a = p_sum(p, t), b, n;
	const char *op;
	size_t k;

	if (a < 0)
		return -1;
	for (k = 0; k < sizeof(compares) / sizeof(compares[0]) &&
	     strcmp(peek(p), compares[k].word); k++)
		;
	if (k == sizeof(compares) / sizeof(compares[0]))
		return a;
	op = p->lex[p->at++];
	if ((b = p_sum(p, p->table[a])) < 0)
		return -1;
	if (compares[k].op == GO_EQ || compares[k].op == GO_NE) {
		if (p->type[a] != p->type[b])
			return gospec_refuse(p->s, p->line,
					     "'%s': compares an integer and a comparison", op);
		n = node(p, compares[k].op, a, b, -1);
	} else {
		n = ordered(p, compares[k].op, a, b, op);
	}
	if (n >= 0)
		p->type[n] = CALC_BOOL;
	return n;
}

static int p_calc(struct calc_parse *p, const struct table *t)
{
	int cond, a, b, n;

	if (!accept(p, "if"))
		return p_rel(p, t);
	if ((cond = p_rel(p, NULL)) < 0 || expect(p, "then", "if's condition") ||
	    (a = p_calc(p, t)) < 0 || expect(p, "else", "then's value") ||
	    (b = p_calc(p, t)) < 0)
		return -1;
	if (p->type[cond] != CALC_BOOL)
		return gospec_refuse(p->s, p->line,
				     "if: the condition is a comparison (==, !=, <, <=, >, >=)");
	if (p->type[a] != p->type[b])
		return gospec_refuse(p->s, p->line,
				     "then and else: both integers or both comparisons");
	if ((n = node(p, GO_IF, cond, a, b)) >= 0)
		p->type[n] = p->type[a];
	return n;
}

/* Words [0, n) of a computed field of @kind: its go_calc, or NULL if refused. */
static struct go_calc *parse_calc(struct go_spec *s, struct site *site, long line,
				  enum probe_kind kind, char **tok, int n)
{
	struct calc_parse p = { .s = s, .site = site, .line = line,
				.c = xcalloc(1, sizeof(struct go_calc)) };
	struct strbuf text = STRBUF_INIT;
	int rc = -1;

	for (int i = 0; i < n; i++) {
		strbuf_addstr(&text, " ");
		strbuf_addstr(&text, tok[i]);
	}
	if (!lex(&p, text.buf ? text.buf : "") && (p.c->root = p_calc(&p, NULL)) >= 0) {
		if (p.at < p.nlex)
			gospec_refuse(s, line, "%s: unexpected here", here(&p));
		else if ((kind == PROBE_KIND_BOOL) != (p.type[p.c->root] == CALC_BOOL))
			gospec_refuse(s, line, kind == PROBE_KIND_BOOL ?
				      "a computed bool is a comparison (==, !=, <, <=, >, >=)" :
				      "a comparison is a bool: give the field the type bool");
		else
			rc = 0;
	}
	strbuf_release(&text);
	free(p.buf);
	free(p.lex);
	if (!rc)
		return p.c;
	free(p.c);
	return NULL;
}

/* The words after a field's expression: or N, as string, as thread, hidden. */
static int field_clauses(struct go_spec *s, long line, struct field *f,
			 char **tok, int n)
{
	for (int i = 0; i < n; i++) {
		if (!strcmp(tok[i], "or") && i + 1 < n && !f->calc && !f->has_default) {
			if (add_default(s, line, f, tok[++i]))
				return -1;
		} else if (!strcmp(tok[i], "as") && i + 1 < n &&
			   !strcmp(tok[i + 1], "string") && !f->quoted) {
			if (f->table || f->kind == PROBE_KIND_BOOL || f->bytes)
				return gospec_refuse(s, line,
						     "as string: only integers are written as strings");
			f->quoted = 1;
			i++;
		} else if (!strcmp(tok[i], "as") && i + 1 < n &&
			   !strcmp(tok[i + 1], "thread") && !f->thread) {
			if (f->table || f->calc || f->kept_name || f->bytes ||
			    f->kind == PROBE_KIND_BOOL || f->size < 4)
				return gospec_refuse(s, line, "as thread: a thread id is "
						     "a read integer of 4 or 8 bytes");
			f->thread = 1;
			i++;
		} else if (!strcmp(tok[i], "hidden") && !f->hidden) {
			f->hidden = 1;
		} else {
			return gospec_refuse(s, line,
					     "'%s': expected 'or VALUE', 'as string', 'as thread' or 'hidden' (each once)",
					     tok[i]);
		}
	}
	return 0;
}

/*
 * Does a keep or a kept field of @nkeys keys, whose value is @f's type,
 * fit state @st (its first keep's)?  Else refused at @line.
 */
static int same_state(struct go_spec *s, long line, const struct state *st,
		      int nkeys, const struct field *f)
{
	const struct field *v = st->value;

	if (nkeys != st->nkeys)
		return gospec_refuse(s, line, "%s: a key of %d values, keep %s (line %ld) has %d",
				     st->name, nkeys, st->name, st->line, st->nkeys);
	if (f->table != v->table || f->kind != v->kind || f->size != v->size ||
	    !f->bytes != !v->bytes)
		return gospec_refuse(s, line,
				     "%s: not the type of %s, the value keep %s (line %ld) keeps",
				     f->name, v->name, st->name, st->line);
	return 0;
}

/* Words that end a field's expression (or a kept value's key). */
static int is_clause_word(const char *w)
{
	return !strcmp(w, "or") || !strcmp(w, "as") || !strcmp(w, "hidden");
}

/* NAME TYPE kept STATE KEY...: a kept value, not a read of argument kept. */
static int is_kept(char **tok, int ntok)
{
	return ntok > 3 && !strcmp(tok[2], "kept") && !is_clause_word(tok[3]);
}

/*
 * A goroutine's id (a thread's, in a SysV binary) names it within its
 * process only: goroutine 1 of every member of a live cluster is goroutine
 * 1.  A key of one without proc would let one process's record take
 * another's kept value whenever the two run the same code at once.
 */
static int goid_needs_proc(struct go_spec *s, const struct site *site, long line,
			   const struct key *key)
{
	int goid = -1;

	for (int i = 0; i < key->n; i++) {
		if (key->field[i] == KEY_PROC)
			return 0;
		const char *expr = site->field[key->field[i]].expr;

		if (expr && !strcmp(expr, "goid"))
			goid = key->field[i];
	}
	if (goid < 0)
		return 0;
	return gospec_refuse(s, line, "key '%s': a goroutine id repeats across "
			     "processes; key by proc %s", site->field[goid].name,
			     site->field[goid].name);
}

/*
 * The key of a kept value, words [from, to): one-value fields above, or
 * proc (the process's index).
 */
static int parse_key(struct go_spec *s, const struct site *site, long line,
		     char **tok, int from, int to, struct key *key)
{
	if (to - from < 1 || to - from > MAX_KEYS)
		return gospec_refuse(s, line, "a key is 1 to %d fields above, or proc",
				     MAX_KEYS);
	key->n = 0;
	for (int i = from; i < to; i++) {
		int f = find_field(site, tok[i]);

		if (f >= 0 && !strcmp(tok[i], "proc"))
			return gospec_refuse(s, line,
					     "key proc: both a field above and the process's index");
		if (f < 0 && !strcmp(tok[i], "proc"))
			f = KEY_PROC;
		else if (f < 0 || site->field[f].count)
			return gospec_refuse(s, line,
					     "key '%s': not a one-value field above, nor proc", tok[i]);
		key->field[key->n++] = f;
	}
	return goid_needs_proc(s, site, line, key);
}

/* A field NAME TYPE kept STATE KEY... [clauses]: where its clauses start. */
static int kept_field(struct go_spec *s, const struct site *site, long line,
		      struct field *f, char **tok, int ntok)
{
	int end = 4;

	if (!is_identifier(tok[3])) {
		gospec_refuse(s, line, "kept %s: a state is an identifier", tok[3]);
		return -1;
	}
	while (end < ntok && !is_clause_word(tok[end]))
		end++;
	if (parse_key(s, site, line, tok, 4, end, &f->kept_key))
		return -1;
	f->kept_name = xstrdup(tok[3]);
	if (!strcmp(tok[1], "str"))
		f->bytes = STR_MAX_BYTES;   /* what any keep's str holds */
	return end;
}

static struct state *find_state(struct go_spec *s, const char *name)
{
	for (int i = 0; i < s->nstates; i++)
		if (!strcmp(s->state[i].name, name))
			return &s->state[i];
	return NULL;
}

/*
 * keep NAME KEY... = FIELD: from here on, state NAME's value for the key
 * is FIELD's.  Its first keep gives a state its key's length and type.
 */
static int add_keep(struct go_spec *s, struct site *site, long line,
		    char **tok, int n)
{
	int eq = n - 2, value;
	struct state *st;
	struct keep *k;

	if (!site)
		return gospec_refuse(s, line, "keep outside an entry or return");
	if (n < 5 || strcmp(tok[eq], "=") || !is_identifier(tok[1]) || is_clause_word(tok[1]))
		return gospec_refuse(s, line,
				     "expected 'keep NAME KEY... = FIELD', NAME an identifier");
	if (site->nkeeps == MAX_KEEPS)
		return gospec_refuse(s, line, "more than %d keeps a site", MAX_KEEPS);
	value = find_field(site, tok[n - 1]);
	if (value < 0 || site->field[value].count)
		return gospec_refuse(s, line, "keep %s: '%s' is not a one-value field above",
				     tok[1], tok[n - 1]);
	k = &site->keep[site->nkeeps];
	if (parse_key(s, site, line, tok, 2, eq, &k->key))
		return -1;
	if (!(st = find_state(s, tok[1]))) {
		if (s->nstates == MAX_STATES)
			return gospec_refuse(s, line, "more than %d states", MAX_STATES);
		st = &s->state[s->nstates++];
		*st = (struct state){ .name = xstrdup(tok[1]), .line = line,
				      .nkeys = k->key.n, .value = &site->field[value] };
	}
	if (same_state(s, line, st, k->key.n, &site->field[value]))
		return -1;
	k->line = line;
	k->state = (int)(st - s->state);
	k->value = value;
	k->after = site->nfields;
	site->nkeeps++;
	return 0;
}

/* The field's key must not be the header's (or proc, when written). */
static int check_key(struct go_spec *s, long line, const char *name)
{
	size_t top = strcspn(name, ".");
	const char *taken = NULL;

	if (strlen(s->key) == top && !strncmp(name, s->key, top))
		taken = s->key;
	else if (s->with_proc && top == 4 && !strncmp(name, "proc", 4))
		taken = "proc";
	if (taken)
		return gospec_refuse(s, line,
				     "field name '%s': %s is the header's key", name, taken);
	return 0;
}

static int add_field(struct go_spec *s, struct site *site, long line,
		     char **tok, int ntok)
{
	struct field *f;
	int calc = ntok > 2 && !strcmp(tok[2], "=");
	int end = 3, str, addr;
	size_t t;

	if (ntok < 3)
		return gospec_refuse(s, line,
				     "a field is NAME TYPE EXPR [or VALUE] [as string] [hidden], or NAME TYPE = CALC");
	if (!is_path(tok[0]))
		return gospec_refuse(s, line,
				     "field name '%s': Go-like identifiers joined by dots", tok[0]);
	if (check_key(s, line, tok[0]))
		return -1;
	if (find_field(site, tok[0]) >= 0)
		return gospec_refuse(s, line, "field %s already in event %s (line %ld)",
				     tok[0], site->ev[0].name, site->field[find_field(site, tok[0])].line);
	for (t = 0; t < NTYPES && strcmp(types[t].name, tok[1]); t++)
		;
	str = !strcmp(tok[1], "str");
	addr = !strcmp(tok[1], "addr");
	if (t == NTYPES && !find_table(s, tok[1]) && !str && !addr)
		return gospec_refuse(s, line,
				     "type '%s': one of bool, i8, i16, i32, i64, u8, u16, u32, u64, str, addr, or a names table defined above",
				     tok[1]);
	if (addr && (calc || is_kept(tok, ntok) || strstr(tok[2], "[:") || *tok[2] == '*'))
		return gospec_refuse(s, line, "an addr field reads one pointer (not "
				     "computed, kept, a [:N] slice or *X)");
	if (site->nfields == MAX_FIELDS)
		return gospec_refuse(s, line, "more than %d fields", MAX_FIELDS);
	f = &site->field[site->nfields];
	f->name = xstrdup(tok[0]);
	f->line = line;
	if (addr) {
		f->addr = 1;
		f->kind = PROBE_KIND_UNSIGNED;
		f->size = 8;
	} else if (t == NTYPES) {
		f->table = find_table(s, tok[1]);
		f->kind = PROBE_KIND_UNSIGNED;
	} else {
		f->kind = types[t].kind;
		f->size = types[t].size;
	}
	if (is_kept(tok, ntok)) {
		end = kept_field(s, site, line, f, tok, ntok);
		if (end < 0) {
			gospec_field_free(f);
			return -1;
		}
	} else if (calc) {
		while (end < ntok && strcmp(tok[end], "as") && strcmp(tok[end], "hidden"))
			end++;
		if (str) {
			gospec_field_free(f);
			return gospec_refuse(s, line, "a computed field is an integer or a bool");
		}
		f->calc = parse_calc(s, site, line, f->kind, tok + 3, end - 3);
		if (!f->calc) {
			gospec_field_free(f);
			return -1;
		}
	} else if (str ? split_bytes(s, line, f, tok[2]) : split_range(s, line, f, tok[2])) {
		gospec_field_free(f);
		return -1;
	} else if (ntok >= 5 && !strcmp(tok[4], "nil") &&
		   (!strcmp(tok[3], "==") || !strcmp(tok[3], "!="))) {
		f->nil_test = tok[3][0] == '=' ? 1 : 2;
		end = 5;
		if (f->kind != PROBE_KIND_BOOL || f->table || f->count || f->star) {
			gospec_field_free(f);
			return gospec_refuse(s, line, "%s %s nil: a nil test is a bool of one value",
					     tok[2], tok[3]);
		}
	}
	site->nfields++;
	return field_clauses(s, line, f, tok + end, ntok - end);
}

static int add_table(struct go_spec *s, long line, char **tok, int ntok)
{
	struct table *t;

	if (ntok < 3 || ntok > MAX_WORDS || !is_identifier(tok[1]))
		return gospec_refuse(s, line,
				     "expected 'names TABLE NAME...', TABLE an identifier, 1 to %d names",
				     MAX_WORDS - 2);
	for (size_t i = 0; i <= NTYPES; i++)
		if (!strcmp(i < NTYPES ? types[i].name : "str", tok[1]) || !strcmp(tok[1], "addr"))
			return gospec_refuse(s, line, "table %s: the name of a type",
					     tok[1]);
	if (find_table(s, tok[1]))
		return gospec_refuse(s, line, "table %s defined twice", tok[1]);
	if (s->ntables == MAX_TABLES)
		return gospec_refuse(s, line, "more than %d tables", MAX_TABLES);
	for (int i = 2; i < ntok; i++)
		if (strchr(tok[i], '"') || strchr(tok[i], '\\'))
			return gospec_refuse(s, line, "name %s: no quotes or backslashes",
					     tok[i]);
	t = &s->table[s->ntables++];
	t->name = xstrdup(tok[1]);
	t->n = ntok - 2;
	t->names = xcalloc((size_t)t->n, sizeof(*t->names));
	t->shown = xcalloc((size_t)t->n, sizeof(*t->shown));
	t->len = xcalloc((size_t)t->n, sizeof(*t->len));
	for (int i = 0; i < t->n; i++) {
		t->names[i] = xstrdup(tok[i + 2]);
		t->len[i] = strlen(t->names[i]);
		t->shown[i] = strcmp(t->names[i], "-") ? t->names[i] : NULL;
	}
	return 0;
}

/* header KEY [proc]: once, before any function. */
static int set_header(struct go_spec *s, long line, char **tok, int n)
{
	if (n < 2 || n > 3 || !is_identifier(tok[1]) || (n == 3 && strcmp(tok[2], "proc")) ||
	    !strcmp(tok[1], "proc"))
		return gospec_refuse(s, line,
				     "expected 'header KEY [proc]', KEY an identifier other than proc");
	if (s->header_line || s->nfuncs)
		return gospec_refuse(s, line,
				     "one header, before any 'func'");
	free(s->key);
	s->key = xstrdup(tok[1]);
	s->with_proc = n == 3;
	s->header_line = line;
	return 0;
}

/* The clauses of an event line after its name: by, while [once], per. */
static int event_clauses(struct go_spec *s, struct event *ev, char **tok, int n)
{
	for (int i = 0; i < n; i++) {
		if (!strcmp(tok[i], "by") && i + 1 < n && !ev->by_name && is_path(tok[i + 1])) {
			ev->by_name = xstrdup(tok[++i]);
		} else if (!strcmp(tok[i], "while") && i + 1 < n && !ev->open_name) {
			ev->open_name = xstrdup(tok[++i]);
			if (i + 1 < n && !strcmp(tok[i + 1], "once"))
				ev->once = ++i;   /* its bit is given below */
		} else if (!strcmp(tok[i], "per") && i + 3 < n && !ev->per_name &&
			   !strcmp(tok[i + 2], "==")) {
			ev->per_name = xstrdup(tok[i + 1]);
			ev->per_text = xstrdup(tok[i + 3]);
			i += 3;
		} else {
			return gospec_refuse(s, ev->line,
					     "'%s': expected 'by FIELD', 'while SYMBOL [once]' or 'per FIELD == VALUE' (each once)",
					     tok[i]);
		}
	}
	return 0;
}

/* The site the event line adds to, or NULL if refused. */
static struct site *add_event(struct go_spec *s, struct func *fn, long line,
			      char **tok, int ntok)
{
	int at_exit = !strcmp(tok[0], "return");
	struct site **slot = at_exit ? &fn->exit : &fn->entry;
	struct event *ev;

	if (ntok < 2 || !is_identifier(tok[1])) {
		gospec_refuse(s, line, "expected '%s EVENT [CLAUSE]...', EVENT an identifier",
			      tok[0]);
		return NULL;
	}
	if (*slot && (*slot)->nfields) {
		gospec_refuse(s, line,
			      "%s already has its %s event and fields (line %ld): a site's events are listed together, above its fields",
			      fn->name, tok[0], (*slot)->line);
		return NULL;
	}
	if (!*slot) {
		*slot = xcalloc(1, sizeof(**slot));
		(*slot)->line = line;
		(*slot)->at_exit = at_exit;
		(*slot)->fn = fn;
	}
	if ((*slot)->nevents == MAX_EVENTS) {
		gospec_refuse(s, line, "more than %d events a site", MAX_EVENTS);
		return NULL;
	}
	ev = &(*slot)->ev[(*slot)->nevents++];
	ev->name = xstrdup(tok[1]);
	ev->line = line;
	if (event_clauses(s, ev, tok + 2, ntok - 2))
		return NULL;
	if (ev->by_name) {
		if (!(ev->by_table = find_table(s, tok[1]))) {
			gospec_refuse(s, line, "no names table %s above", tok[1]);
			return NULL;
		}
		ev->by_count = xcalloc((size_t)ev->by_table->n, sizeof(long));
	}
	return *slot;
}

static int split(char *text, char **tok, int max)
{
	int n = 0;

	for (char *t = strtok(text, " \t\r"); t; t = strtok(NULL, " \t\r"))
		if (n < max)
			tok[n++] = t;
		else
			return max + 1;
	return n;
}

/*
 * A '#' starts a comment, but inside a quoted name (a Rust closure's
 * {closure#0}).
 */
static void strip_comment(char *text)
{
	int quoted = 0;

	for (char *p = text; *p; p++) {
		if (*p == '"')
			quoted = !quoted;
		else if (*p == '#' && !quoted) {
			*p = '\0';
			return;
		}
	}
}

/*
 * The words of a func, entry or return line, as split() cuts them, but a
 * word in double quotes is one word whatever it holds, without its
 * quotes: a function's name with blanks (Rust's <crate::T as
 * crate::Trait>::method), docs/probes.md.  -1 (refused) for a quote not
 * closed, or closed inside a word.
 */
static int split_names(struct go_spec *s, long line, char *text, char **tok, int max)
{
	int n = 0;

	for (char *p = text + strspn(text, " \t\r"); *p; p += strspn(p, " \t\r")) {
		char *end = *p == '"' ? strchr(p + 1, '"') : p + strcspn(p, " \t\r");

		if (*p == '"' && (!end || end == p + 1 || (end[1] && !strchr(" \t\r", end[1]))))
			return gospec_refuse(s, line, "a quoted name without its closing \" "
					     "(or empty, or followed by more than a blank)");
		if (n == max)
			return max + 1;
		tok[n++] = *p == '"' ? p + 1 : p;
		p = *end ? end + 1 : end;
		*end = '\0';
	}
	return n;
}

static int add_func(struct go_spec *s, long line, char **tok, int n)
{
	struct func *fn;

	if (n != 2)
		return gospec_refuse(s, line, "expected 'func SYMBOL'");
	if (s->nfuncs == MAX_FUNCS)
		return gospec_refuse(s, line, "more than %d functions", MAX_FUNCS);
	for (int i = 0; i < s->nfuncs; i++)
		if (!strcmp(s->func[i].name, tok[1]))
			return gospec_refuse(s, line,
					     "%s already probed (line %ld)", tok[1], s->func[i].line);
	fn = &s->func[s->nfuncs];
	fn->name = xstrdup(tok[1]);
	fn->line = line;
	fn->index = s->nfuncs++;
	return 0;
}

static const char *const statements[] = {
	"header", "names", "group", "use", "keep", "func", "entry", "return",
	"number", "projection",
};

/* Does @text (a line, comment stripped) start with a statement's word? */
static int is_statement(const char *text)
{
	size_t skip = strspn(text, " \t\r"), len = strcspn(text + skip, " \t\r");

	for (size_t i = 0; i < sizeof(statements) / sizeof(statements[0]); i++)
		if (strlen(statements[i]) == len && !strncmp(text + skip, statements[i], len))
			return 1;
	return 0;
}

static struct group *find_group(struct go_spec *s, const char *name)
{
	for (int i = 0; i < s->ngroups; i++)
		if (!strcmp(s->group[i].name, name))
			return &s->group[i];
	return NULL;
}

/* group NAME PARAM: the field lines below, until the next statement. */
static int add_group(struct go_spec *s, long line, char **tok, int n)
{
	struct group *g;

	if (n != 3 || !is_identifier(tok[1]) || !is_identifier(tok[2]))
		return gospec_refuse(s, line,
				     "expected 'group NAME PARAM', NAME and PARAM identifiers");
	if (find_group(s, tok[1]))
		return gospec_refuse(s, line, "group %s defined twice (line %ld)",
				     tok[1], find_group(s, tok[1])->line);
	if (s->ngroups == MAX_GROUPS)
		return gospec_refuse(s, line, "more than %d groups", MAX_GROUPS);
	g = &s->group[s->ngroups++];
	g->name = xstrdup(tok[1]);
	g->param = xstrdup(tok[2]);
	g->line = line;
	s->open_group = g;
	return 0;
}

static int group_line(struct go_spec *s, const char *text, long line)
{
	struct group *g = s->open_group;

	if (!text[strspn(text, " \t\r")])
		return 0;
	if (g->n == MAX_FIELDS)
		return gospec_refuse(s, line, "more than %d fields in group %s",
				     MAX_FIELDS, g->name);
	g->at[g->n] = line;
	g->text[g->n++] = xstrdup(text);
	return 0;
}

/* @expr with each identifier @param (not a field after a dot) as @arg. */
static char *substitute(const char *expr, const char *param, const char *arg)
{
	struct strbuf sb = STRBUF_INIT;
	size_t len = strlen(param);

	for (const char *p = expr; *p;) {
		int word = (p == expr || (!isalnum((unsigned char)p[-1]) && p[-1] != '_' &&
					  p[-1] != '.')) &&
			   !strncmp(p, param, len) &&
			   !isalnum((unsigned char)p[len]) && p[len] != '_';

		if (word) {
			strbuf_addstr(&sb, arg);
			p += len;
		} else {
			strbuf_add(&sb, p++, 1);
		}
	}
	return sb.buf ? sb.buf : xstrdup("");
}

/* use NAME ARG: the group's fields in this site, its PARAM read as ARG. */
static int use_group(struct go_spec *s, struct site *site, long line,
		     char **tok, int n)
{
	const struct group *g = n == 3 ? find_group(s, tok[1]) : NULL;

	if (n != 3)
		return gospec_refuse(s, line, "expected 'use GROUP ARG'");
	if (!g)
		return gospec_refuse(s, line, "no group %s above", tok[1]);
	if (!g->n)
		return gospec_refuse(s, line, "group %s (line %ld) has no fields",
				     g->name, g->line);
	for (int i = 0; i < g->n; i++) {
		char *text = xstrdup(g->text[i]), *ftok[MAX_WORDS + 1], *expr = NULL;
		int k = split(text, ftok, MAX_WORDS), rc;

		if (k > 2 && strcmp(ftok[2], "=")) {
			expr = substitute(ftok[2], g->param, tok[2]);
			ftok[2] = expr;
		}
		rc = add_field(s, site, g->at[i], ftok, k);
		free(expr);
		free(text);
		if (rc)
			return -1;
	}
	return 0;
}

/* Does @text start with one of the statements that name functions? */
static int names_line(const char *text)
{
	size_t skip = strspn(text, " \t\r"), len = strcspn(text + skip, " \t\r");

	return (len == 4 && !strncmp(text + skip, "func", 4)) ||
	       (len == 5 && !strncmp(text + skip, "entry", 5)) ||
	       (len == 6 && !strncmp(text + skip, "return", 6));
}

static int parse_line(struct go_spec *s, char *text, long line,
		      struct site **site)
{
	char *tok[MAX_WORDS + 1];
	int n;
	struct func *fn = s->nfuncs ? &s->func[s->nfuncs - 1] : NULL;

	strip_comment(text);
	if (s->open_group && !is_statement(text))
		return group_line(s, text, line);
	s->open_group = NULL;
	n = names_line(text) ? split_names(s, line, text, tok, MAX_WORDS) :
	    split(text, tok, MAX_WORDS);
	if (n <= 0)
		return n;
	if (!strcmp(tok[0], "projection"))
		return 1;   /* the rest is the spec's projection, not its probes */
	if (!strcmp(tok[0], "group")) {
		*site = NULL;
		return add_group(s, line, tok, n);
	} else if (!strcmp(tok[0], "use")) {
		if (!*site)
			return gospec_refuse(s, line, "use outside an entry or return");
		return use_group(s, *site, line, tok, n);
	} else if (!strcmp(tok[0], "keep")) {
		return add_keep(s, *site, line, tok, n);
	} else if (!strcmp(tok[0], "names")) {
		return add_table(s, line, tok, n);
	} else if (!strcmp(tok[0], "header")) {
		return set_header(s, line, tok, n);
	} else if (!strcmp(tok[0], "number")) {
		if (n != 2 || strcmp(tok[1], "goroutines") || s->nfuncs)
			return gospec_refuse(s, line, "expected 'number goroutines', "
					     "before any 'func'");
		s->number_goroutines = 1;
		return 0;
	} else if (!strcmp(tok[0], "func")) {
		*site = NULL;
		return add_func(s, line, tok, n);
	} else if (!strcmp(tok[0], "entry") || !strcmp(tok[0], "return")) {
		if (!fn)
			return gospec_refuse(s, line, "%s before any 'func'", tok[0]);
		*site = add_event(s, fn, line, tok, n);
		return *site ? 0 : -1;
	} else if (!*site) {
		return gospec_refuse(s, line,
				     "'%s': expected header, number, names, group, func, entry, return, projection, or a field, use or keep after them",
				     tok[0]);
	}
	return add_field(s, *site, line, tok, n);
}

/* An event's "by" or "per" field: one value (@slice 0) or a [:N] slice. */
static int clause_field(struct go_spec *s, const struct site *site,
			const struct event *ev, const char *name, int slice)
{
	int i = find_field(site, name);
	const char *clause = slice ? "per" : "by";

	if (i < 0)
		return gospec_refuse(s, ev->line, "%s %s: no field %s below", clause, name, name);
	if (site->field[i].bytes)
		return gospec_refuse(s, ev->line, "%s %s: a str, and %s takes %s", clause, name,
				     clause, slice ? "a [:N] slice" : "an integer");
	if (!site->field[i].count != !slice)
		return gospec_refuse(s, ev->line, slice ?
				     "per %s: one value, and per takes a [:N] slice" :
				     "by %s: a [:N] slice, and by takes one value (read, computed or kept)",
				     name);
	return i;
}

static struct func *find_func(struct go_spec *s, const char *name)
{
	for (int i = 0; i < s->nfuncs; i++)
		if (!strcmp(s->func[i].name, name))
			return &s->func[i];
	return NULL;
}

/* An empty site of a followed function: its calls' entries or returns. */
static void follow_site(struct func *fn, struct site **slot, int at_exit)
{
	if (*slot)
		return;
	*slot = xcalloc(1, sizeof(**slot));
	(*slot)->line = fn->line;
	(*slot)->at_exit = at_exit;
	(*slot)->fn = fn;
}

/* "while SYMBOL": the function is followed, at its entry and returns. */
static int resolve_while(struct go_spec *s, struct event *ev)
{
	if (!ev->open_name)
		return 0;
	if (!(ev->open = find_func(s, ev->open_name)))
		return gospec_refuse(s, ev->line,
				     "while %s: no 'func %s' in the spec", ev->open_name, ev->open_name);
	ev->open->tracked = 1;
	follow_site(ev->open, &ev->open->entry, 0);
	follow_site(ev->open, &ev->open->exit, 1);
	if (!ev->once)
		return 0;
	if (s->nonce == MAX_ONCE)
		return gospec_refuse(s, ev->line, "more than %d 'once' events",
				     MAX_ONCE);
	ev->once = ++s->nonce;
	return 0;
}

/* "per FIELD == VALUE": VALUE a number FIELD can hold, or a name of its table. */
static int per_value(struct go_spec *s, struct event *ev, const struct field *f)
{
	int rc = constant(ev->per_text, f->table, &ev->per_value);
	char *what;

	if (rc == NOT_64_BITS)
		return gospec_refuse(s, ev->line, "per %s == %s: %s", ev->per_name,
				     ev->per_text, TOO_LARGE);
	if (rc)
		return gospec_refuse(s, ev->line,
				     "per %s == %s: a number or a name of its table",
				     ev->per_name, ev->per_text);
	if (f->table || f->kind == PROBE_KIND_BOOL)
		return 0;
	what = xasprintf("per %s == %s", ev->per_name, ev->per_text);
	rc = gospec_fits(s, ev->line, what, ev->per_value, f->kind, f->size);
	free(what);
	return rc;
}

static int resolve_events(struct go_spec *s, struct site *site)
{
	for (int i = 0; site && i < site->nevents; i++) {
		struct event *ev = &site->ev[i];

		if (ev->by_name &&
		    (ev->by_field = clause_field(s, site, ev, ev->by_name, 0)) < 0)
			return -1;
		if (ev->per_name) {
			ev->per_field = clause_field(s, site, ev, ev->per_name, 1);
			if (ev->per_field < 0)
				return -1;
			if (per_value(s, ev, &site->field[ev->per_field]))
				return -1;
		}
		if (resolve_while(s, ev))
			return -1;
	}
	return 0;
}

/* Levels of @a and @b's nesting (the dots before their last key) in common. */
static int common_groups(const char *a, const char *b)
{
	int n = 0;

	for (size_t i = 0; a[i] && a[i] == b[i]; i++)
		if (a[i] == '.')
			n++;
	return n;
}

static int groups(const char *a)
{
	int n = 0;

	while ((a = strchr(a, '.')))
		n++, a++;
	return n;
}

/* The @k-th key of dotted @name (its own text up to the next dot). */
static void add_key(struct strbuf *sb, const char *name, int k)
{
	while (k--)
		name = strchr(name, '.') + 1;
	strbuf_addstr(sb, "\"");
	strbuf_add(sb, name, strcspn(name, "."));
	strbuf_addstr(sb, "\":");
}

/*
 * What each written field is preceded by (closing the objects the field
 * before opened and it does not share, opening its own) and what ends the
 * event.  An object's fields must be consecutive, and no key both a value
 * and an object.
 */
/* Field @i's key against those above it: a value or an object, consecutive. */
static int nest_check(struct go_spec *s, const struct site *site, int i,
		      const char *prev)
{
	const struct field *f = &site->field[i];

	for (int j = 0; j < i; j++) {
		const char *o = site->field[j].name;
		size_t lo = strlen(o), lf = strlen(f->name);

		if (site->field[j].hidden)
			continue;
		if ((lo < lf && !strncmp(o, f->name, lo) && f->name[lo] == '.') ||
		    (lf < lo && !strncmp(o, f->name, lf) && o[lf] == '.'))
			return gospec_refuse(s, f->line,
					     "%s and %s (line %ld): a key is a value or an object, not both",
					     f->name, o, site->field[j].line);
		if (prev && common_groups(o, f->name) > common_groups(prev, f->name))
			return gospec_refuse(s, f->line,
					     "%s: the fields of an object are consecutive (%s is at line %ld)",
					     f->name, o, site->field[j].line);
	}
	return 0;
}

static int nest(struct go_spec *s, struct site *site)
{
	const char *prev = NULL;
	struct strbuf sb = STRBUF_INIT;

	for (int i = 0; i < site->nfields; i++) {
		struct field *f = &site->field[i];
		int c;

		if (f->hidden)
			continue;
		if (nest_check(s, site, i, prev)) {
			strbuf_release(&sb);
			return -1;
		}
		/* the header comes first: every key follows another, or a "{" */
		c = prev ? common_groups(prev, f->name) : 0;
		strbuf_reset(&sb);
		for (int k = prev ? groups(prev) : 0; k > c; k--)
			strbuf_addstr(&sb, "}");
		for (int k = c; k <= groups(f->name); k++) {
			strbuf_addstr(&sb, k == c ? "," : "{");
			add_key(&sb, f->name, k);
		}
		f->pre = xstrdup(sb.buf);
		f->pre_len = sb.len;
		prev = f->name;
	}
	strbuf_reset(&sb);
	for (int k = prev ? groups(prev) : 0; k > 0; k--)
		strbuf_addstr(&sb, "}");
	strbuf_addstr(&sb, "}\n");
	site->post = xstrdup(sb.buf);
	site->post_len = sb.len;
	strbuf_release(&sb);
	return 0;
}

/* Every line of the spec, until the end or the first refusal. */
static int parse_lines(struct go_spec *s)
{
	struct line_reader lr;
	struct site *site = NULL;
	const char *line;
	int rc;

	if (line_reader_try_open_as(&lr, s->path, s->path, s->err))
		return -1;
	while (!(rc = line_reader_try_next(&lr, &line, s->err)) && line &&
	       !(rc = parse_line(s, lr.buf, lr.line, &site)))
		;
	line_reader_close(&lr);
	return rc < 0 ? -1 : 0;
}

/* Each kept field's state: a "keep" of its name, its key's length and type. */
static int resolve_kept(struct go_spec *s, struct site *site)
{
	for (int i = 0; site && i < site->nfields; i++) {
		struct field *f = &site->field[i];
		const struct state *st;

		if (!f->kept_name)
			continue;
		if (!(st = find_state(s, f->kept_name)))
			return gospec_refuse(s, f->line, "kept %s: no 'keep %s' in the spec",
					     f->kept_name, f->kept_name);
		if (same_state(s, f->line, st, f->kept_key.n, f))
			return -1;
		f->state = (int)(st - s->state);
	}
	return 0;
}

/* What the lines make together: clauses resolved, each site's nesting. */
static int resolve_spec(struct go_spec *s)
{
	if (!s->nfuncs)
		return gospec_refuse(s, 0, "the probe spec names no function");
	for (int i = 0; i < s->nfuncs; i++)
		if (resolve_events(s, s->func[i].entry) ||
		    resolve_events(s, s->func[i].exit) ||
		    resolve_kept(s, s->func[i].entry) || resolve_kept(s, s->func[i].exit))
			return -1;
	for (int i = 0; i < s->nfuncs; i++) {
		struct func *fn = &s->func[i];

		if (!fn->entry && !fn->exit)
			return gospec_refuse(s, fn->line,
					     "%s has neither an entry nor a return event, and no 'while' names it",
					     fn->name);
		if ((fn->entry && nest(s, fn->entry)) || (fn->exit && nest(s, fn->exit)))
			return -1;
	}
	return 0;
}

struct go_spec *go_spec_parse(const char *path, struct cap_err *err)
{
	struct go_spec *s = xcalloc(1, sizeof(*s));

	s->path = xstrdup(path);
	s->key = xstrdup("event");
	s->with_proc = 1;
	s->err = err;
	s->calls = go_calls_new();
	s->kept = go_state_new();
	if (parse_lines(s) || resolve_spec(s)) {
		go_spec_free(s);
		return NULL;
	}
	s->err = NULL;
	return s;
}

/* SPDX-License-Identifier: MIT */
/*
 * What a probe spec computes from a record beyond the values it reads
 * (docs/probe-spec-computed.md): a value computed from other values (sums, minima and
 * maxima, comparisons and a choice between two on one), values kept from
 * one record for later ones, and which probed calls are open on each
 * goroutine (an event "while FUNC" is written only inside a FUNC call).
 */
#ifndef GOEVAL_H
#define GOEVAL_H

#define GO_CALC_NODES 32

/*
 * A value of a record: what was read or computed, or none (nil).  A
 * string's is its length, and its first @nbytes bytes at @bytes (which
 * the record, or the spec, owns); an integer's @bytes is NULL.
 */
struct go_val {
	unsigned long long v;
	int have;
	const char *bytes;
	size_t nbytes;
};

/* A field's value (@field >= 0) or a constant. */
struct go_operand {
	int field;
	unsigned long long k;
};

enum go_op {
	GO_LEAF,                /* an operand */
	GO_ADD, GO_SUB, GO_MUL, /* unsigned, modulo 2^64 */
	GO_DIV, GO_MOD,         /* Go's: truncated; by 0 fails */
	GO_AND, GO_OR, GO_XOR, GO_NOT,  /* bits; GO_NOT of a only */
	GO_SHL, GO_SHR,         /* a count of 64 or more shifts every bit out */
	GO_MIN, GO_MAX,
	GO_EQ, GO_NE, GO_LT, GO_LE, GO_GT, GO_GE,   /* 1 or 0 */
	GO_IF,                  /* a ? b : c, only the one chosen evaluated */
};

/* A node of a computation: its operands are nodes a, b (and c). */
struct go_node {
	enum go_op op;
	int a, b, c;
	int is_signed;          /* min, max, orderings, /, %, >>: as signed
				 * numbers (>>: its value, not its count) */
	int count_signed;       /* <<, >>: the count is signed (negative fails) */
	struct go_operand leaf;
};

/* A computed value: a tree of nodes, node[root] its value. */
struct go_calc {
	int n, root;
	struct go_node node[GO_CALC_NODES];
};

/* Why a computation has no value (go_calc_eval()'s return). */
enum go_calc_fail {
	GO_CALC_NIL = -1,       /* an operand had none: *@at is its field */
	GO_CALC_ZERO = -2,      /* a division or modulo by 0: *@at is the
				 * divisor's field, or -1 (not a field) */
	GO_CALC_NEGATIVE = -3,  /* a shift by a negative count: *@at as for 0 */
};

/*
 * Evaluate @c over @vals (indexed by field).  Returns 0, or an enum
 * go_calc_fail with *@at the field it names.
 */
int go_calc_eval(const struct go_calc *c, const struct go_val *vals,
		 unsigned long long *out, int *at);

/*
 * Values a spec keeps from one record for later ones ("keep NAME KEY... =
 * FIELD"), by state (a "keep" name's index) and key: the bytes of the
 * key's values, each added by go_key_add(), so that a key may be any
 * value a record has.  Per run, in record order.
 */
struct go_state;

struct go_state *go_state_new(void);
void go_state_free(struct go_state *st);
/* Append value @v to @key (a key of several values: one call each). */
struct strbuf;
void go_key_add(struct strbuf *key, const struct go_val *v);
/* State @name's value for @key becomes @v (a string's bytes copied). */
void go_state_put(struct go_state *st, int name, const struct strbuf *key,
		  struct go_val v);
/*
 * State @name's value for @key, or NULL when none was kept; a string's
 * bytes are the state's until its next put for @key.
 */
const struct go_val *go_state_get(const struct go_state *st, int name,
				  const struct strbuf *key);

/* The probed calls open on each goroutine of each process. */
struct go_calls;

struct go_calls *go_calls_new(void);
void go_calls_free(struct go_calls *c);
/* A call of function @func begins on (@proc, @goid). */
void go_calls_enter(struct go_calls *c, int proc, unsigned long long goid, int func);
/*
 * The innermost open call of @func on (@proc, @goid): its mask of "once"
 * events written (the caller sets bits), or NULL when none is open.
 */
unsigned long long *go_calls_open(struct go_calls *c, int proc,
				  unsigned long long goid, int func);
/*
 * That call returns: 0 and its mask in *@done, or -1 when none was open
 * (a return whose entry the capture did not see).
 */
int go_calls_leave(struct go_calls *c, int proc, unsigned long long goid,
		   int func, unsigned long long *done);

#endif

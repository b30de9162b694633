/* SPDX-License-Identifier: MIT */
/*
 * TLA+ values in the text form PGo's recorder writes them (TLC's printing):
 * numbers, strings "s", TRUE/FALSE, sequences <<a, b>>, sets {a, b}, and
 * functions (("k1") :> (v1) @@ ("k2") :> (v2)), which is how records come
 * out.  Any value may sit in parentheses.  Only what folders ask of a value
 * is read: a field of a function, the length of a sequence or an element,
 * a number, a string.  Nothing is evaluated; text inside strings is skipped, escapes
 * included.
 */
#ifndef CAPTURE_TLA_VALUE_H
#define CAPTURE_TLA_VALUE_H

#include <stddef.h>

/* A value: @len bytes at @p, inside the text it was read from. */
struct tla_span {
	const char *p;
	size_t len;
};

/* @s as a span (NULL: the empty span, which is no value). */
struct tla_span tla_span(const char *s);
/* @v without surrounding blanks and enclosing parentheses. */
struct tla_span tla_unwrap(struct tla_span v);
/* The value at key "@key" of function @v: 1 and *@out, else 0. */
int tla_field(struct tla_span v, const char *key, struct tla_span *out);
/* Elements of sequence @v, or -1 if @v is not a sequence. */
long tla_seq_len(struct tla_span v);
/* Element @i (from 0) of sequence @v: 1 and *@out, else 0. */
int tla_seq_at(struct tla_span v, long i, struct tla_span *out);
/* Natural number @v, or -1 if it is not one. */
long tla_nat(struct tla_span v);
/* Whether @v is the string "@s". */
int tla_str_is(struct tla_span v, const char *s);
/* Whether @v is TRUE (1), FALSE (0); -1: neither. */
int tla_bool(struct tla_span v);

#endif

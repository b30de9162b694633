/* SPDX-License-Identifier: MIT */
/*
 * Between the strict JSON tokenizer (json-tokens.c) and its fast path
 * (json-tokens-fast.c): what each needs of the other.  Not an interface.
 */
#ifndef CAPTURE_JSON_TOKENS_FAST_H
#define CAPTURE_JSON_TOKENS_FAST_H

#include <stddef.h>
#include <stdint.h>
#include "json-tokens.h"

/*
 * 0: t->text[0, @len) is tokenized; -1: leave it to the scalar code
 * (no AVX2 here, or anything the fast path does not take).
 */
int json_tokenize_fast(struct json_tokens *t, size_t len);

/* From the scalar code. */
/* The value of the 4 hex digits at @p, or -1. */
long json_hex_value(const char *p);
/* Whether the @n-byte escape at @esc (of @cp) is how json_write() writes @cp. */
int json_written_so(const char *esc, uint32_t cp, size_t n);
/* A number at @p as token @i, as value() reads it: its length, or 0. */
size_t json_number_at(struct json_tokens *t, unsigned i, const char *p,
		      const char *end);

#endif

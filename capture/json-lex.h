/* SPDX-License-Identifier: MIT */
/*
 * The lexemes both JSON tokenizers read the same way: the strict one
 * (json-tokens.c) and its fast path (json-tokens-fast.c).  Not an
 * interface.
 */
#ifndef CAPTURE_JSON_LEX_H
#define CAPTURE_JSON_LEX_H

#include <stddef.h>
#include <stdint.h>
#include "json-token.h"

/* The value of the 4 hex digits at @p, or -1. */
long json_hex_value(const char *p);
/* Whether the @n-byte escape at @esc (of @cp) is how json_write() writes @cp. */
int json_written_so(const char *esc, uint32_t cp, size_t n);
/* The double of number token @k of @t. */
double json_number_value(const struct json_tokens *t, const struct json_token *k);
/*
 * The number at @p (before @end) as token @k of @t, whose start is set:
 * where it ends, *@why NULL; or where it stops being one, and *@why why.
 */
const char *json_lex_number(const struct json_tokens *t, struct json_token *k,
			    const char *p, const char *end, const char **why);

#endif

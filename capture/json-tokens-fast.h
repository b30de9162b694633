/* SPDX-License-Identifier: MIT */
/*
 * The strict JSON tokenizer's fast path (json-tokens-fast.c), which
 * json-tokens.c tries first.  Not an interface.
 */
#ifndef CAPTURE_JSON_TOKENS_FAST_H
#define CAPTURE_JSON_TOKENS_FAST_H

#include <stddef.h>
#include "json-token.h"

/*
 * 0: t->text[0, @len) is tokenized; -1: leave it to the scalar code
 * (no AVX2 here, or anything the fast path does not take).
 */
int json_tokenize_fast(struct json_tokens *t, size_t len);

#endif

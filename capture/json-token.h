/* SPDX-License-Identifier: MIT */
/*
 * A JSON text's tokens (json-tokens.h says what they mean): the types the
 * tokenizer's parts share, below all of them, so that its fast path
 * (json-tokens-fast.c) and their shared lexemes (json-lex.c) need nothing
 * of json-tokens.c.
 */
#ifndef CAPTURE_JSON_TOKEN_H
#define CAPTURE_JSON_TOKEN_H

#include "json.h"

#define JSON_TOKENS_DEPTH 1000

enum json_token_type { JT_NULL, JT_FALSE, JT_TRUE, JT_NUMBER, JT_STRING,
		       JT_ARRAY, JT_OBJECT };

struct json_token {
	unsigned char type;     /* enum json_token_type */
	unsigned char escaped;  /* a string with escapes in its text */
	unsigned char as_is;    /* written as its text (a string, a number) */
	unsigned int start;     /* text offset (a string's: after its quote) */
	unsigned int len;       /* text bytes (a string's: between the quotes) */
	unsigned int next;      /* index of the first token after the subtree */
};

struct json_tokens {
	const char *text;
	struct json_token *tok;
	unsigned int n, alloc;
	int spaced;             /* whitespace between tokens */
	struct strbuf scratch;  /* a string decoded for json_string() */
	struct json_strings *strings;  /* what json_string() returned */
};

#endif

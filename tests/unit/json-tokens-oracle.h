/* SPDX-License-Identifier: MIT */
/*
 * What the strict tokenizer must agree on with cJSON (capture/json-tokens.h
 * says what it refuses beyond cJSON): shared by the unit test and the fuzz
 * harness, so both judge the tokenizer by the same rules.
 */
#ifndef CAPTURE_TESTS_JSON_TOKENS_ORACLE_H
#define CAPTURE_TESTS_JSON_TOKENS_ORACLE_H

#include <stddef.h>
#include "capture/json-tokens.h"

/* @s[0, len) as a C literal for messages (cut after ~240 bytes). */
const char *tokens_show(const char *s, size_t len);
/* A writable copy of @s[0, len) followed by a NUL (aborts without memory). */
char *tokens_copy(const char *s, size_t len);

/*
 * Tokenize @s[0, len) into @t (a writable copy); if accepted, cJSON must
 * accept it too (strictly: nothing but whitespace after the value) with
 * nothing for json_check_record(), and both writers and every accessor
 * must agree with cJSON's tree.  Returns what is inconsistent, or NULL;
 * *@accepted tells whether json_tokenize() accepted.  @out (may be NULL)
 * gets json_tokens_write()'s output.
 */
const char *tokens_consistent(struct json_tokens *t, const char *s,
			      size_t len, int *accepted, struct strbuf *out);

#endif

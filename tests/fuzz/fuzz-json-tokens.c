// SPDX-License-Identifier: MIT
/*
 * The strict JSON tokenizer against cJSON (differential): whatever it
 * accepts cJSON must accept, json_check_record() must pass, and the
 * tokens' accessors and writer must agree with cJSON's tree and
 * json_write() byte for byte (tests/unit/json-tokens-oracle.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include "tests/unit/json-tokens-oracle.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static struct json_tokens t;
	int accepted;
	const char *why = tokens_consistent(&t, (const char *)data, size,
					    &accepted, NULL);

	if (why) {
		fprintf(stderr, "fuzz: %s: %s\n", why,
			tokens_show((const char *)data, size));
		abort();
	}
	return 0;
}

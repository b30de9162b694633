// SPDX-License-Identifier: MIT
/*
 * The probe-spec parser (bpf/gospec.c) over one input: a .probes file.
 * It returns its refusals (bad input, naming the spec), so a die() is a
 * finding; what it parsed it frees either way.
 */
#include "bpf/gospec.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	const char *path = fuzz_input("spec.probes", data, size);
	struct cap_err err = { 0 };
	struct go_spec *s;

	if (setjmp(fuzz_jmp))
		return fuzz_died(0);
	s = go_spec_parse(path, &err);
	if (!s)
		return fuzz_refused(&err, FUZZ_CODE(EXIT_BAD_INPUT));
	go_spec_free(s);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * What the libFuzzer harnesses (tests/fuzz/fuzz-*.c) share.
 *
 * The readers die() on bad input; in a fuzz build die() calls a hook
 * (capture/die.h) that comes back here by longjmp, so one process reads
 * input after input.  The readers take paths: each input is written to a
 * file in a private directory under /dev/shm (or $TMPDIR) first.
 *
 * A death is a finding unless its code is one the harness allows and its
 * message names a file of the input (file:line, or the input's directory):
 * the project's rule for bad input.  A usage error (2) names none.
 */
#ifndef CAPTURE_TESTS_FUZZ_H
#define CAPTURE_TESTS_FUZZ_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <cJSON.h>
#include "capture/err.h"

/* Where die() returns to: if (setjmp(fuzz_jmp)) return fuzz_died(...); */
extern jmp_buf fuzz_jmp;

/* Bit of exit code @c in the mask fuzz_died() takes. */
#define FUZZ_CODE(c) (1u << (c))

/*
 * After a longjmp to fuzz_jmp: abort (a finding) unless the code is in
 * @allowed and the message starts with the input's directory (but for
 * exit 2).  Closes what the dead reader left open of the input.  Returns 0,
 * for LLVMFuzzerTestOneInput().
 */
int fuzz_died(unsigned allowed);
/*
 * The same for inputs that name other files (a manifest names its runs'
 * inputs): the message must start with some path ("PATH: ", "PATH:N: ";
 * a path may hold any byte, so: anything before a ": ").
 */
int fuzz_died_elsewhere(unsigned allowed);

/*
 * A reader that returns its refusals (capture/err.h) instead of dying:
 * abort unless @err's code is in @allowed and its message names the
 * input, as fuzz_died() does; then releases @err.  Returns 0.  Such a
 * reader must not die at all: arm fuzz_jmp with fuzz_died(0).
 */
int fuzz_refused(struct cap_err *err, unsigned allowed);

/*
 * Write @data[0, size) to @name in the input directory (emptied first);
 * returns its path (valid until the next call).  Arms the die hook.
 */
const char *fuzz_input(const char *name, const uint8_t *data, size_t size);
/* Another file of the same input, after fuzz_input(): nothing emptied. */
const char *fuzz_input_also(const char *name, const uint8_t *data,
			    size_t size);
/*
 * A PGo run directory: @data split at lines "--", part i written as
 * trace-SELF-i.log, SELF the process its first "self" names (else i), as
 * the reader wants file names.  Returns the directory.
 */
const char *fuzz_input_pgo(const uint8_t *data,
			     size_t size);

/* @a and @b (either may be NULL) written as the same compact JSON. */
int fuzz_same_json(const cJSON *a, const cJSON *b);

/*
 * Files split from @data at lines "--", part-0@ext, part-1@ext, ... (the
 * window files of a directory); returns the directory.
 */
const char *fuzz_input_parts(const uint8_t *data, size_t size, const char *ext);

/*
 * Fold @input as `capture check SYSTEM INPUT` does; a death must be bad
 * input (3), a failed check (4) or lost events (6), naming the input.
 */
int fuzz_fold(const char *system, const char *input);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * TLC, the TLA+ model checker, as capture grade --tlc runs it
 * (docs/tlc.md): JSON values written as TLA+
 * values, the constants of a TLC configuration file, one TLC run of a
 * module in a directory of its own, and the violations it reports read
 * back from its output.
 */
#ifndef CAPTURE_TLC_H
#define CAPTURE_TLC_H

#include <stddef.h>
#include <cJSON.h>
#include "err.h"
#include "json.h"

/*
 * @v as a TLA+ value: an integer, a string, TRUE/FALSE, a list as a tuple,
 * an object as a record when its keys are identifiers (not reserved
 * words), else as a function from its keys ("k" :> v @@ ...); {} and []
 * are <<>>.  -1 and @err (EXIT_BAD_INPUT, saying which value) for a value
 * TLA+ has no literal of: null, a fraction, a string with a character
 * outside printable ASCII.
 */
int tla_value(struct strbuf *sb, const cJSON *v, struct cap_err *err);

/*
 * The CONSTANT(S) statements of the TLC configuration @text (read from
 * @path, for messages), in order: "Name = value" or "Name <- Op", each
 * with the name it sets.  Comments (\* and (* *)) are left out.  -1 and
 * @err (EXIT_BAD_INPUT, @path:line) if a statement cannot be read.
 */
struct tlc_constant {
	char *name, *stmt;
};
int tlc_cfg_constants(const char *text, const char *path,
		      struct tlc_constant **out, size_t *n, struct cap_err *err);
void tlc_constants_free(struct tlc_constant *c, size_t n);

/*
 * One TLC run of @dir/@module.tla with @dir/@module.cfg: java (@java, on
 * PATH if a bare name) with @jar on its class path, @library (directories
 * joined by ':') as TLA-Library, its own java.io.tmpdir and -metadir in
 * @dir (two TLCs at once race on one), breadth-first, one worker,
 * deadlock not checked, the JVM's C1 compiler alone; its output in
 * @dir/tlc.out.  Killed after
 * @timeout seconds (0: never).
 */
struct tlc_run {
	const char *java, *jar, *library, *dir, *module;
	double timeout;
};
/*
 * 0 once TLC ran to its end (*@status 0) or stopped at a violated
 * invariant (12); -1 and @err otherwise: EXIT_ENV_MISSING without java
 * or TLC, EXIT_CAPTURE_FAILED if it was killed or timed out,
 * EXIT_BAD_INPUT if it refused the module or stopped at an error (its
 * message, and the window it was at: @index_var's value in the state TLC
 * shows, into *@at, else 0).
 */
int tlc_run(const struct tlc_run *r, const char *index_var, long *at,
	    int *status, struct cap_err *err);

/*
 * What TLC printed of PrintT(<<@tag, I, S>>) in its output @out, each
 * line "<<"@tag", I, S>>": the integers I and S into @hits.  -1 and @err
 * (EXIT_CAPTURE_FAILED) for such a line without them.
 */
struct tlc_hit {
	long index, step;
};
int tlc_printed(const char *out, const char *tag, struct tlc_hit **hits,
		size_t *n, struct cap_err *err);

/*
 * The last value of the integer variable @var in a behavior TLC's output
 * @out shows (a line "/\\ @var = N"), or -1 if none.
 */
long tlc_last_value(const char *out, const char *var);

#endif

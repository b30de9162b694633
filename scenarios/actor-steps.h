/* SPDX-License-Identifier: MIT */
/*
 * The step language of the lock scenarios (spin, rwlock): one step a line,
 *
 *	# comment
 *	ACTOR OP
 *
 * ACTOR 0 or 1, OP one of the system's words.  Blank lines are fine.
 */
#ifndef SCENARIOS_ACTOR_STEPS_H
#define SCENARIOS_ACTOR_STEPS_H

#include <stddef.h>

struct actor_step {
	int actor;          /* 0 or 1 */
	int op;             /* index in the system's words */
	long line;          /* line in the scenario file, for messages */
};

/*
 * The steps of the file @path over the words @ops (NULL-terminated); *@n
 * gets their number (at least 1).  A malformed line dies with
 * EXIT_BAD_INPUT naming file:line, as does a file without steps.
 */
struct actor_step *actor_steps_load(const char *path, const char *const ops[],
				    size_t *n);

/*
 * The scenario on the guest kernel's command line, for its /guest.sh and
 * module: "capture_name=NAME capture_steps=0l1t0r...", two characters a
 * step: the actor's digit and @letters[op].  A scenario too long for the
 * command line dies with EXIT_BAD_INPUT naming @path.
 */
char *actor_steps_cmdline(const char *name, const char *path,
			  const struct actor_step *steps, size_t n,
			  const char *letters);

/*
 * The guest's module refused a step, @error "step N: why": dies with
 * EXIT_BAD_INPUT naming @path and step N's line ("'0 lock': the kernel
 * cannot run this step: why"); any other @error dies with
 * EXIT_CAPTURE_FAILED ("the @module module failed: ...").
 */
_Noreturn void actor_steps_refused(const char *path, const struct actor_step *steps,
				   size_t n, const char *const ops[],
				   const char *module, const char *error);

#endif

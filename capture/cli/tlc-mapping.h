/* SPDX-License-Identifier: MIT */
/*
 * capture grade --tlc's mapping (docs/tlc.md): what
 * the windows' variables and actions are in a TLA+ spec's terms, and the
 * module that grades windows with it: a variable wvWindow picks the window
 * in Init, wvStep counts the steps of its action, WVNeverPost is upstream's
 * invariant, WVReport prints <<"WVPost", window, step>> for each state
 * that is its window's post-state and always holds.
 */
#ifndef CAPTURE_CLI_TLC_MAPPING_H
#define CAPTURE_CLI_TLC_MAPPING_H

#include <stddef.h>
#include <cJSON.h>
#include "../windows.h"

struct mapping {
	const char *path;
	cJSON *root;
	const cJSON *constants, *define, *init, *view, *ignore, *actions,
		    *unmapped, *unmapped_values, *domain;
};

/* Read and check the mapping @path; dies (EXIT_BAD_INPUT, @path) if it is not one. */
void map_load(struct mapping *m, const char *path);
/*
 * Window @w's action as the mapping maps it, or NULL when the window is
 * unscoreable (*@why: its action unmapped, a value the mapping has none
 * of, a variable over other keys than its domain).  Dies (EXIT_BAD_INPUT,
 * @w's file:line) for an action or a variable the mapping does not name.
 */
const cJSON *map_action_of(const struct mapping *m, const struct window *w,
			  const char **why);
/* The TLA+ step of action mapping @a, and how many steps a window may take. */
const char *map_step(const cJSON *a, long *steps);
/* The module WV, extending @spec, that grades the @n windows @w. */
char *map_module(const struct mapping *m, const char *spec,
		 const struct window *const *w, size_t n);
/*
 * Its configuration: the constants of @cfg (the spec's, or NULL), the
 * mapping's over them, WVInit, WVNext and @invariant.
 */
char *map_cfg(const struct mapping *m, const char *cfg, const char *invariant);

#endif

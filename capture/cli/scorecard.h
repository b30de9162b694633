/* SPDX-License-Identifier: MIT */
/*
 * The scorecard of capture grade's two graders (grade.c: an external
 * command; grade-tlc.c: TLC on a TLA+ spec): a tally per action.
 */
#ifndef CAPTURE_CLI_SCORECARD_H
#define CAPTURE_CLI_SCORECARD_H

#include <stdio.h>
#include <cJSON.h>
#include "../verdict.h"
#include "../windows.h"

/* A tally {action, windows, passed, failed, unscoreable, identity, ...}. */
cJSON *scorecard_new_tally(const char *action);
/* @action's tally in the object @actions, added in order of appearance. */
cJSON *scorecard_tally(cJSON *actions, const char *action);
/* Count @w, judged @d, into tally @a. */
void scorecard_record(cJSON *a, const struct window *w, enum verdict d);
/* The scorecard {system, grader, actions, all, failures} as text. */
void scorecard_print(FILE *f, const cJSON *card);

#endif

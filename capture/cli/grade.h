/* SPDX-License-Identifier: MIT */
/*
 * What capture grade's two graders share (grade.c: an external command;
 * grade-tlc.c: TLC on a TLA+ spec): the scorecard, a tally per action.
 */
#ifndef CAPTURE_CLI_GRADE_H
#define CAPTURE_CLI_GRADE_H

#include <stdio.h>
#include <cJSON.h>
#include "../verdict.h"
#include "../windows.h"

/* A tally {action, windows, passed, failed, unscoreable, identity, ...}. */
cJSON *grade_new_tally(const char *action);
/* @action's tally in the object @actions, added in order of appearance. */
cJSON *grade_tally(cJSON *actions, const char *action);
/* Count @w, judged @d, into tally @a. */
void grade_record(cJSON *a, const struct window *w, enum verdict d);
/* The scorecard {system, grader, actions, all, failures} as text. */
void grade_print_card(FILE *f, const cJSON *card);

/* capture grade --tlc (grade-tlc.c): argv as cmd_grade() got it. */
int cmd_grade_tlc(int argc, char **argv);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Subcommands, git-style: one file each in capture/cli/, one line in the
 * table in main.c.  Each gets argv with argv[0] the subcommand's name and
 * returns the process exit code.
 */
#ifndef CAPTURE_COMMAND_H
#define CAPTURE_COMMAND_H

#include "../system.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

/* The systems, one line each (systems.c). */
extern const struct system systems[];

int cmd_live(const struct system *sys, int argc, char **argv);
int cmd_go(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_fold(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_audit(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_grade(int argc, char **argv);

#endif

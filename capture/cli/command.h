/* SPDX-License-Identifier: MIT */
/*
 * Subcommands, git-style: one file each in capture/cli/, one line in the
 * table in main.c.  Each gets argv with argv[0] the subcommand's name and
 * returns the process exit code.
 */
#ifndef CAPTURE_COMMAND_H
#define CAPTURE_COMMAND_H

#include "../options.h"
#include "../system.h"

struct corpus;

/*
 * A probe spec's corpus (capture go, probe, jvm): a system's if its
 * events are folded (--fold), else the command's own; finished by
 * folding the spec's events at @ev_rel or keeping them, then committed.
 */
struct corpus *spec_corpus_begin(const struct output_options *out, const struct folder *fold,
				 int argc, char **argv);
void spec_corpus_finish(const struct output_options *out, const struct folder *fold,
			struct corpus *c, const char *name, const char *ev_rel);

/* --fold SYSTEM of a probe spec's command: the system's folder. */
int spec_fold_option(const struct opt *o, const char *arg, struct cap_err *err);
/* --timeout S of a probe spec's command, into the double @v. */
#define SPEC_TIMEOUT_ROW(v) OPT_SECONDS(0, "timeout", v, "S", 1e7, \
	"kill COMMAND after S seconds (default 600)")

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

/* The systems, one line each (systems.c). */
extern const struct system systems[];

int cmd_live(const struct system *sys, int argc, char **argv);
int cmd_go(int argc, char **argv);
int cmd_jvm(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_fold(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_audit(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_grade(int argc, char **argv);
/* capture grade --tlc (grade-tlc.c): argv as cmd_grade() got it. */
int cmd_grade_tlc(int argc, char **argv);

#endif

// SPDX-License-Identifier: MIT
/* capture: the command table, the live systems (system.h), and dispatch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "command.h"
#include "../die.h"
#include "../live.h"
#include "../proc.h"
#include "../system.h"
#include "../version.h"

static const struct command commands[] = {
	{ "fold", cmd_fold, "fold recorded raw streams into a corpus of windows" },
	{ "go", cmd_go, "run a Go program under eBPF probes a probe spec names" },
	{ "probe", cmd_probe, "the same for any ELF with DWARF: Go, C, C++, Rust" },
	{ "jvm", cmd_jvm, "the same for Java programs: a JVMTI agent in every JVM" },
	{ "check", cmd_check, "run every check on recorded streams, write nothing" },
	{ "list", cmd_list, "list systems, their actions and scenarios" },
	{ "audit", cmd_audit, "coverage, identity base rate, schedules of window files" },
	{ "convert", cmd_convert, "rewrite window files in another form or JSON style" },
	{ "verify", cmd_verify, "rerun a corpus's recorded command, compare byte for byte" },
	{ "grade", cmd_grade, "stream windows to an external grader, print the scorecard" },
};

/* The name column fits the longest command or live system's name. */
static int name_width(void)
{
	size_t w = 0;

	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strlen(commands[i].name) > w)
			w = strlen(commands[i].name);
	for (const struct system *s = systems; s->folder; s++)
		if (s->live && strlen(s->folder->name) > w)
			w = strlen(s->folder->name);
	return (int)w;
}

static void print_usage(FILE *f)
{
	int w = name_width();

	fputs("usage: capture [--version] [--help] COMMAND [ARGS]\n\n"
	      "Record what real systems do; fold it into (pre, action, post) windows.\n\n"
	      "commands:\n", f);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-*s %s\n", w, commands[i].name, commands[i].summary);
	for (const struct system *s = systems; s->folder; s++)
		if (s->live)
			fprintf(f, "  %-*s %s\n", w, s->folder->name, s->live->summary);
	fputs("\n'capture COMMAND --help' describes a command.\n", f);
}

int main(int argc, char **argv)
{
	cleanup_on_signals();
	hashing_init();
	system_table_set(systems);
	check_stdout_at_exit();
	if (argc < 2) {
		print_usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		print_usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("capture %s\n", CAPTURE_VERSION);
		return EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	/* Every live system of the table is a command: capture spin ... */
	for (const struct system *s = systems; s->folder; s++)
		if (s->live && !strcmp(argv[1], s->folder->name))
			return cmd_live(s, argc - 1, argv + 1);
	fprintf(stderr, "capture: '%s' is not a command\n\n", argv[1]);
	print_usage(stderr);
	return EXIT_USAGE;
}

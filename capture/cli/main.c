// SPDX-License-Identifier: MIT
/* capture: the command table, the live systems (system.h), and dispatch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "command.h"
#include "../die.h"
#include "../json.h"
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

/* The usage and the commands, for the help above its options. */
static char *usage_text(void)
{
	struct strbuf sb = STRBUF_INIT;
	int w = name_width();

	strbuf_addf(&sb, "usage: capture [--version] [--help] COMMAND [ARGS]\n\n"
		    "Record what real systems do; fold it into (pre, action, post) "
		    "windows.\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		strbuf_addf(&sb, "  %-*s %s\n", w, commands[i].name, commands[i].summary);
	for (const struct system *s = systems; s->folder; s++)
		if (s->live)
			strbuf_addf(&sb, "  %-*s %s\n", w, s->folder->name, s->live->summary);
	return sb.buf;
}

/* COMMAND with its arguments @argv (argv[0]: its name), or -1: no such command. */
static int run(int argc, char **argv)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[0], commands[i].name))
			return commands[i].run(argc, argv);
	/* Every live system of the table is a command: capture spin ... */
	for (const struct system *s = systems; s->folder; s++)
		if (s->live && !strcmp(argv[0], s->folder->name))
			return cmd_live(s, argc, argv);
	return -1;
}

int main(int argc, char **argv)
{
	int version = 0, first, rc;
	const struct opt options[] = {
		OPT_FLAG(0, "version", &version, "print capture's version"),
		OPT_HELP(),
		OPT_END(),
	};
	struct opt_command cmd = {
		NULL, options, "'capture COMMAND --help' describes a command.\n",
		/* the options after COMMAND are its own */
		OPT_STOP_AT_OPERAND,
	};

	cleanup_on_signals();
	hashing_init();
	system_table_set(systems);
	check_stdout_at_exit();
	cmd.usage = usage_text();
	first = parse_options(&cmd, argc, argv);
	if (version) {
		printf("capture %s\n", CAPTURE_VERSION);
		return EXIT_OK;
	}
	if (first == argc)
		opt_usage(&cmd, 0);
	if (!strcmp(argv[first], "help"))
		opt_usage(&cmd, 1);
	rc = run(argc - first, argv + first);
	if (rc < 0) {
		fprintf(stderr, "capture: '%s' is not a command\n\n", argv[first]);
		opt_usage(&cmd, 0);
	}
	free((char *)cmd.usage);
	return rc;
}

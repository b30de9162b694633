/* SPDX-License-Identifier: MIT */
/*
 * Subcommands, git-style: one file each in capture/cmd/, one line in the
 * table in main.c.  Each gets argv with argv[0] the subcommand's name and
 * returns the process exit code.
 */
#ifndef CAPTURE_COMMAND_H
#define CAPTURE_COMMAND_H

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

#define CAPTURE_VERSION "0.1.0"

/* Directory holding scenarios/, qemu/, ... (the source tree). */
const char *capture_home(void);
/*
 * The source tree the running executable was built in, whatever
 * CAPTURE_HOME says: what belongs to the toolkit itself (a probe spec
 * such as etcd's, like the BPF object built into the executable).
 */
const char *toolkit_tree(void);

/*
 * Scenario files are scenarios/SYSTEM/NN-NAME: NN orders them (for "all"
 * and for the run's file names), NAME is letters, digits, '-' and '_'.
 * Returns NN and points @name at NAME, or -1 if @file is no such name.
 */
int scenario_file_name(const char *file, const char **name);
int is_scenario_file(const char *file);

int cmd_spin(int argc, char **argv);
int cmd_etcd(int argc, char **argv);
int cmd_go(int argc, char **argv);
int cmd_fold(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_audit(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_grade(int argc, char **argv);

#endif

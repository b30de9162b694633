/* SPDX-License-Identifier: MIT */
/*
 * Is the command `capture go` was given a Go binary it can probe?  What a
 * new user names instead gets its own message, before the binary's DWARF
 * is read (whose absence would be the wrong thing to blame): `go run .`
 * (the go tool builds the program without DWARF into a temporary
 * directory and runs it as a child of its own) and a script are usage
 * errors (EXIT_USAGE), with the command to use instead; an ELF that is no
 * Go program, or a file that is no ELF, is bad input (EXIT_BAD_INPUT).
 */
#ifndef GOCOMMAND_H
#define GOCOMMAND_H

struct cap_err;

/* 0 if @path (run as @argv) is a Go program; else -1 and @err. */
int go_command_check(const char *path, char *const argv[], struct cap_err *err);
/* Is @path a Go program's ELF (it has a .go.buildinfo section)? */
int go_is_go_program(const char *path);

#endif

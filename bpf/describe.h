/* SPDX-License-Identifier: MIT */
/*
 * What a binary offers a probe spec, read from its DWARF (libdw), so
 * that a spec can be written without its source: `capture go --describe`
 * lists the functions matching a pattern, and describes one function (its
 * arguments and results with the names a spec uses, `~r0` for unnamed
 * results; the fields of those that are structs or point to one, one
 * level down, embedded fields with what they promote; whether it can be
 * probed: its RET sites, or the calls it is inlined into).  Sorted and
 * free of addresses unless asked: the same binary gives the same text.
 */
#ifndef PROBE_DESCRIBE_H
#define PROBE_DESCRIBE_H

#include <stdio.h>

struct probe_binary;
struct cap_err;

/*
 * Describe @what in @b onto @out: the function it names, else the
 * functions it matches (a glob if it holds * ? or [, else a substring;
 * NULL: package main's).  @addresses adds the file offsets of the entry,
 * stack check and RETs.  Matching nothing is -1 with @err
 * (EXIT_BAD_INPUT), with the names nearest to @what.
 */
int probe_describe(struct probe_binary *b, const char *what, int addresses, FILE *out,
		   struct cap_err *err);

#endif

/* SPDX-License-Identifier: MIT */
/* QEMU's command line of a guest boot.  Not part of the guest runner's interface. */
#ifndef QEMU_CMDLINE_H
#define QEMU_CMDLINE_H

#include <stddef.h>
#include "accel.h"
#include "guest.h"

/* A QEMU command line and the strings it owns. */
struct qemu_line {
	const char *argv[64];
	size_t n;
	char *owned[16];
	size_t nowned;
};

/* Add @a to @l. */
void qemu_arg(struct qemu_line *l, const char *a);
/* Add @a, freed with the line. */
void qemu_arg_own(struct qemu_line *l, char *a);
void qemu_line_free(struct qemu_line *l);
/* @s with QEMU's option commas doubled: "," is ",," inside a value. */
char *qemu_opt_value(const char *s);
/*
 * The machine of boot @b under @accel, its console into @console: the
 * event channel (port 0xe9) into @events and, if the boot asks, the trace
 * channel (0x4e9) into @trace; @words for /init, or NULL for a snapshot's
 * machine, which always has both channels.
 */
void qemu_machine_line(struct qemu_line *l, const struct guest_boot *b,
		       enum accel accel, const char *console, const char *events,
		       const char *trace, const char *words);

#endif

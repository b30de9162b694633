/* SPDX-License-Identifier: MIT */
/*
 * Guest snapshots: a guest booted once to the point where /init waits for
 * its run's words (qemu/init, "capture-guest: ready"), saved to a file by
 * QMP "migrate" and restored by every later run with -incoming; the words
 * reach the restored guest through fw_cfg (qemu/guest/fwcfg.c).  Not part
 * of the guest runner's interface.
 */
#ifndef QEMU_SNAPSHOT_H
#define QEMU_SNAPSHOT_H

#include "../capture/err.h"
#include "../capture/proc.h"
#include "guest.h"

/*
 * The snapshot file of guests like @b under @accel booted with kernel
 * command line @append (it may not exist yet); its key into @key.  NULL
 * and @err if QEMU cannot tell its version or there is no cache for it.
 */
char *snapshot_path(const struct guest_boot *b, const char *accel,
		    const char *append, char key[17], struct cap_err *err);
/*
 * Beside @snapshot, what its guest wrote to the trace channel before it
 * was saved (the trace formats; empty for a guest without tracing).
 */
char *snapshot_trace_path(const char *snapshot);
/*
 * Are @snapshot and its trace part there?  If so it is about to be used:
 * its modification time says so (a snapshot unused for an hour may be
 * removed as stale, snapshot_commit()).
 */
int snapshot_take(const char *snapshot);
/* Remove @snapshot and its trace part. */
void snapshot_remove(const char *snapshot);
/*
 * Rename @tmp into @snapshot and @trace_tmp into its trace part, then
 * remove the stale snapshots of its slot: the same guest (kernel command
 * line), QEMU path, CPUs and accelerator under another key (another QEMU
 * version, kernel or initramfs), unused for an hour.  -1 and @err on
 * failure.
 */
int snapshot_commit(const char *tmp, const char *trace_tmp, const char *snapshot,
		    struct cap_err *err);
/*
 * A restored guest's trace channel @rest continues what @snapshot's guest
 * wrote before it was saved: both into @out (the whole channel, as a full
 * boot writes it), @rest removed.  -1 and @err on failure.
 */
int snapshot_join_trace(const char *snapshot, const char *rest, const char *out,
			struct cap_err *err);
/* The -incoming URI that restores the snapshot at @path. */
char *snapshot_incoming(const char *path);
/*
 * @qemu was started with -qmp unix:@sock and its guest is ready: save it
 * into @out and end QEMU.  NULL, or what went wrong (QEMU is stopped then).
 */
char *snapshot_save(struct proc *qemu, const char *sock, const char *out);

#endif

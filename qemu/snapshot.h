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

#include "../capture/proc.h"
#include "guest.h"

/*
 * The snapshot file of guests like @b under @accel booted with kernel
 * command line @append (it may not exist yet); its key into @key.  NULL
 * and @err if QEMU cannot tell its version or there is no cache for it.
 */
char *snapshot_path(const struct guest_boot *b, const char *accel,
		    const char *append, char key[17], struct cap_err *err);
/* The -incoming URI that restores the snapshot at @path. */
char *snapshot_incoming(const char *path);
/*
 * @qemu was started with -qmp unix:@sock and its guest is ready: save it
 * into @out and end QEMU.  NULL, or what went wrong (QEMU is stopped then).
 */
char *snapshot_save(struct proc *qemu, const char *sock, const char *out);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The boot a guest gets: CAPTURE_GUEST_BOOT's choice and the kernel
 * command line of a boot (the rest of the choice, guest_qemu() and
 * guest_boot_lean(), is in guest.h).  Not part of the guest runner's
 * interface.
 */
#ifndef QEMU_BOOT_H
#define QEMU_BOOT_H

#include "guest.h"

/* CAPTURE_GUEST_BOOT: 0 snapshot (the default), 1 lean or 2 classic. */
int guest_boot(void);
/* The words /init gets as variables: the boot's own and its capture_stop. */
char *boot_words(const struct guest_boot *b);
/*
 * The kernel command line of @b with @words, or, for a snapshot (NULL),
 * with the word that makes /init wait for them from fw_cfg.
 */
char *boot_kernel_line(const struct guest_boot *b, const char *words);

#endif

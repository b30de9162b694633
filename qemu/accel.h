/* SPDX-License-Identifier: MIT */
/*
 * Which accelerator guests run under: forced by CAPTURE_ACCEL, TCG without
 * a usable /dev/kvm, else the verdict of a KVM guest that raced a TCG one
 * to its first sign of life (qemu/run.c), cached per host so that only the
 * first capture on a machine pays for it.  Not part of the guest runner's
 * interface.
 */
#ifndef QEMU_ACCEL_H
#define QEMU_ACCEL_H

#include "guest.h"

enum accel { ACCEL_TCG, ACCEL_KVM };

/* "kvm" or "tcg", as QEMU's -accel says. */
const char *accel_name(enum accel a);

/*
 * 1 with *@accel set when guests like @b need no probe (said on stderr
 * once, with why); 0 while KVM is untried; -1 and @err if the verdict's
 * file cannot be named (QEMU cannot tell its version, no cache).
 */
int accel_known(const struct guest_boot *b, enum accel *accel,
		struct cap_err *err);
/* The probe's verdict and why: said, and cached for this host. */
void accel_settle(enum accel accel, const char *why);
/*
 * A KVM guest failed after KVM was chosen: TCG from now on (the verdict
 * turned and cached), unless CAPTURE_ACCEL forces KVM.  1 if turned.
 */
int accel_demote(const char *why);

#endif

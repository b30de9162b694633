/* SPDX-License-Identifier: MIT */
/*
 * The checks of a guest's channels once it has ended (guest.h says what
 * each must hold).  Not part of the guest runner's interface.
 */
#ifndef QEMU_CHANNEL_H
#define QEMU_CHANNEL_H

/*
 * The event channel at @path: NULL if it is whole, else what is wrong;
 * *@error gets the guest's "CAPTURE ERROR" text if it refused its input.
 */
char *channel_check(const char *path, char **error);
/* The trace channel at @path: NULL if it reached its end marker, else why not. */
char *channel_check_trace(const char *path);

#endif

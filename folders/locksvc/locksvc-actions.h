/* SPDX-License-Identifier: MIT */
/*
 * locksvc's actions, NULL-terminated: the windows the folder makes
 * (locksvc.c, both projections) and, in this order, the columns of its
 * audit domain (locksvc-audit.c), one per action and client.
 */
#ifndef FOLDERS_LOCKSVC_ACTIONS_H
#define FOLDERS_LOCKSVC_ACTIONS_H

extern const char *const locksvc_actions[];

#endif

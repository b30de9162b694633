/* SPDX-License-Identifier: MIT */
/*
 * The audit of window files read back (window-read.h): each run's
 * windows, and the calls its fold saw that never returned, fed to the
 * audit's one pass (audit.h) as a fold feeds it.
 */
#ifndef CAPTURE_AUDIT_REPORT_H
#define CAPTURE_AUDIT_REPORT_H

#include <cJSON.h>
#include "window-read.h"

/* Audit @ws (system settled); returns the report (caller frees). */
cJSON *audit_report(const struct window_set *ws);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Reader of upstream etcd raft's `with_tla` trace (state_trace.go):
 * NDJSON, one TracingEvent a line (name, nid, state, role, log, conf,
 * msg, prop), bare as `capture etcd` writes it, or wrapped by upstream's
 * TraceLogger in zap lines {"level", "tag": "trace", "event": {...}}.
 * Wrapped lines are kept when tag is "trace"; other zap lines are skipped;
 * a line that is neither, or not JSON, fails with EXIT_BAD_INPUT naming
 * file:line.
 */
#ifndef FOLDERS_WITH_TLA_H
#define FOLDERS_WITH_TLA_H

#include <cJSON.h>
#include "../ndjson.h"

struct cap_err;

/*
 * Read @path (named @as in messages) through @in, which @event may use
 * for file:line messages, handing @event each TracingEvent in order; close
 * @in.  Returns the number of lines skipped, or -1 with @err (EXIT_BAD_INPUT
 * naming file:line: it cannot be opened or read, a line is not JSON or
 * neither kind of line).  What an event means is the folder's: @event may
 * die as it decides.
 */
long long with_tla_read(struct line_reader *in, const char *path, const char *as,
			void (*event)(void *ctx, const cJSON *ev), void *ctx,
			struct cap_err *err);

#endif

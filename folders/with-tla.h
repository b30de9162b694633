/* SPDX-License-Identifier: MIT */
/*
 * Reader of upstream etcd raft's `with_tla` trace (state_trace.go):
 * NDJSON, one TracingEvent a line (name, nid, state, role, log, conf,
 * msg, prop), bare as `capture etcd` writes it, or wrapped by upstream's
 * TraceLogger in zap lines {"level", "tag": "trace", "event": {...}}.
 * Wrapped lines are kept when tag is "trace"; other zap lines are skipped;
 * a line that is neither dies with EXIT_BAD_INPUT naming file:line.
 */
#ifndef FOLDERS_WITH_TLA_H
#define FOLDERS_WITH_TLA_H

#include <cJSON.h>
#include "../capture/ndjson.h"

/*
 * Read @path (named @as in messages) through @in, which @event may use
 * for file:line messages, handing @event each TracingEvent in order; close
 * @in.  Returns the number of lines skipped.
 */
long long with_tla_read(struct line_reader *in, const char *path, const char *as,
			void (*event)(void *ctx, const cJSON *ev), void *ctx);

#endif

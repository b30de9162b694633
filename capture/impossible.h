/* SPDX-License-Identifier: MIT */
/*
 * Impossibility windows: transitions the real system cannot make, one for
 * each way its audit domain draws an impossible cell (audit.h,
 * impossible_windows), so that a spec accepting one is wrong by a lookup.
 */
#ifndef CAPTURE_IMPOSSIBLE_H
#define CAPTURE_IMPOSSIBLE_H

#include "json.h"

struct corpus;
struct folder;

/*
 * Write SYSTEM/impossible/ACTION.ndjson into corpus @c: the windows of
 * every cell @f's domain declares impossible and draws, in the canonical
 * form (windows.h) and JSON style @st, each with "impossible": the
 * reason; trace_id the cell ("ROW: COL") and seq 1, as each stands
 * alone.  Returns the windows written.
 */
long impossible_windows_write(struct corpus *c, const struct folder *f,
			      enum json_style st);

#endif

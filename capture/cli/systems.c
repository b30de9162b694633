// SPDX-License-Identifier: MIT
/*
 * The systems capture knows, one line each, in `capture list` order
 * (docs/architecture.md):
 * (a system's name is its folder's: folder_spin_spinning is "spin-spinning")
 *   FOLDED(name)  folded from recordings only: folder_NAME (folders/NAME/);
 *   LIVE(name)    also captured live by `capture NAME`: folder_NAME, its
 *                 live entry live_NAME (capture/live.h) and its scenario
 *                 files scenarios/NAME/NN-SCENARIO.
 *   LIVE_ON(name, other)  LIVE, on the scenario files of system other
 *                 (scenarios/OTHER/NN-SCENARIO: two rafts, one language).
 */
#include <stddef.h>
#include "../live.h"
#include "../fold.h"

#define SYSTEMS(FOLDED, LIVE, LIVE_ON) \
	LIVE(spin) \
	FOLDED(spin_spinning) \
	FOLDED(spin_task) \
	FOLDED(locksvc) \
	FOLDED(locksvc_task) \
	FOLDED(dqueue) \
	FOLDED(dqueue_task) \
	LIVE(etcd) \
	FOLDED(etcd_entries) \
	FOLDED(etcd_task) \
	LIVE_ON(hashicorp, etcd) \
	LIVE_ON(raftrs, etcd) \
	FOLDED(raftkvs) \
	FOLDED(raftkvs_task) \
	LIVE(rwlock) \
	FOLDED(rwlock_task) \
	LIVE(zookeeper)

#define DECLARE_FOLDED(n) extern const struct folder folder_##n;
#define DECLARE_LIVE(n) DECLARE_FOLDED(n) extern const struct live_system live_##n;
#define DECLARE_LIVE_ON(n, o) DECLARE_LIVE(n)
SYSTEMS(DECLARE_FOLDED, DECLARE_LIVE, DECLARE_LIVE_ON)

#define ENTRY_FOLDED(n) { &folder_##n, NULL, NULL },
#define ENTRY_LIVE(n) { &folder_##n, &live_##n, "scenarios/" #n },
#define ENTRY_LIVE_ON(n, o) { &folder_##n, &live_##n, "scenarios/" #o },

const struct system systems[] = {
	SYSTEMS(ENTRY_FOLDED, ENTRY_LIVE, ENTRY_LIVE_ON)
	{ NULL, NULL, NULL },
};

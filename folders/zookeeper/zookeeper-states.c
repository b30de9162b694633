// SPDX-License-Identifier: MIT
/* A ZooKeeper server's states: see zookeeper-states.h. */
#include <stddef.h>
#include "zookeeper-states.h"

const char *const zk_states[N_STATES + 1] = {
	"LOOKING", "FOLLOWING", "LEADING", "OBSERVING", NULL,
};

// SPDX-License-Identifier: MIT
/* locksvc's actions: see locksvc-actions.h. */
#include <stddef.h>
#include "locksvc-actions.h"

const char *const locksvc_actions[] = {
	"ClientLockRequest", "ServerGrantLock", "ClientCriticalSection",
	"ClientUnlockRequest", NULL,
};

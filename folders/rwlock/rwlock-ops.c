// SPDX-License-Identifier: MIT
/* The rwlock guest's operations: see rwlock-ops.h. */
#include <stddef.h>
#include "rwlock-ops.h"

const char *const rwlock_op_names[N_OPS + 1] = {
	"read_lock", "read_trylock", "read_unlock",
	"write_lock", "write_trylock", "write_unlock", NULL,
};

const char *const rwlock_actions[N_OPS + 1] = {
	"ReadLock", "ReadTryLock", "ReadUnlock",
	"WriteLock", "WriteTryLock", "WriteUnlock", NULL,
};

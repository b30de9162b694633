// SPDX-License-Identifier: MIT
/* The systems capture knows: one line each. */
#include <string.h>
#include "folder.h"

extern const struct folder folder_spin, folder_spin_spinning;
extern const struct folder folder_locksvc, folder_dqueue, folder_etcd;
extern const struct folder folder_raftkvs;

const struct folder *const folders[] = {
	&folder_spin, &folder_spin_spinning,
	&folder_locksvc, &folder_dqueue, &folder_etcd, &folder_raftkvs,
	NULL,
};

const struct folder *folder_find(const char *name)
{
	for (int i = 0; folders[i]; i++)
		if (!strcmp(folders[i]->name, name))
			return folders[i];
	return NULL;
}

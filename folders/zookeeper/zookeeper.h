/* SPDX-License-Identifier: MIT */
/* What zookeeper's folder (zookeeper.c) and audit domain share. */
#ifndef FOLDERS_ZOOKEEPER_H
#define FOLDERS_ZOOKEEPER_H

#include "../../capture/audit.h"
#include "../../capture/system.h"

/* LOOKING, FOLLOWING, LEADING, OBSERVING (QuorumPeer.ServerState's), NULL-ended. */
extern const char *const zk_states[];
extern const struct folder folder_zookeeper;
extern const struct audit_domain zk_audit;

#endif

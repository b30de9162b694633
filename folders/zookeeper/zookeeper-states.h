/* SPDX-License-Identifier: MIT */
/*
 * A ZooKeeper server's states (QuorumPeer.ServerState): what the folder
 * (zookeeper.c) reads in the events and writes in the state, and what
 * its audit domain (zookeeper-audit.c) classifies a notification by.
 */
#ifndef FOLDERS_ZOOKEEPER_STATES_H
#define FOLDERS_ZOOKEEPER_STATES_H

enum zk_state { LOOKING, FOLLOWING, LEADING, OBSERVING, N_STATES };
/* Their names, by state, NULL-ended. */
extern const char *const zk_states[];

#endif

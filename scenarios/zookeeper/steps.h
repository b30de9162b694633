/* SPDX-License-Identifier: MIT */
/*
 * zookeeper scenarios: data files scenarios/zookeeper/NN-NAME, one step a
 * line, `#` a comment.  A step says what is done to the ensemble (which
 * servers run, which are cut off, what clients write), never what the
 * election does: that is what the servers report.
 *
 *   start S...      start servers S (their ids, 1 to 5), one after another
 *   kill S|leader   SIGKILL server S, or the one that leads now
 *   restart S|killed|first-killed  start S again from its data directory
 *                   (the last server killed, or the first)
 *   isolate S|leader  cut S off from the other servers (clients still reach it)
 *   heal            end every cut
 *   write N         N znodes created by a client, each committed by a quorum
 *   elected         wait until the servers that reach each other have one
 *                   leader and the others follow it (60 s at most)
 */
#ifndef SCENARIOS_ZOOKEEPER_STEPS_H
#define SCENARIOS_ZOOKEEPER_STEPS_H

#include <stddef.h>

#define ZK_MAX_SERVERS 5
#define ZK_LEADER (-1)          /* a step's server: the one leading now */
#define ZK_KILLED (-2)          /* the one killed last */
#define ZK_FIRST_KILLED (-3)    /* the one killed first */

enum zk_op { ZK_START, ZK_KILL, ZK_RESTART, ZK_ISOLATE, ZK_HEAL, ZK_WRITE, ZK_ELECTED };

struct zk_step {
	enum zk_op op;
	int servers[ZK_MAX_SERVERS];    /* ids, ZK_LEADER or ZK_KILLED */
	int n;                          /* how many; write: the znodes */
	long line;
};

struct zk_scenario {
	char *name, *run, *path;
	struct zk_step *steps;
	size_t nsteps;
	int nservers;                   /* the highest id started */
};

/* Parse @path (dies with EXIT_BAD_INPUT naming file:line). */
void zk_scenario_load(struct zk_scenario *s, const char *name, const char *run,
		      const char *path);
void zk_scenario_free(struct zk_scenario *s);
/* A step as its file writes it ("kill leader"), for progress lines. */
const char *zk_step_word(enum zk_op op);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * A raft harness's step map (etcd-harness SCENARIO STEP_MAP, and the
 * explorer's -generate): one line per scenario step, "N FILE:LINE", N the trace events written before the
 * step.  It turns a trace line into the scenario line that made it, so a
 * violation names the step of the scenario.
 */
#ifndef FOLDERS_RAFT_RAFT_STEPS_H
#define FOLDERS_RAFT_RAFT_STEPS_H

struct raft_steps;

/* Read @path (NULL: no map, returns NULL); a bad line dies naming it. */
struct raft_steps *raft_steps_read(const char *path);
/* The FILE:LINE of the step that wrote trace line @line, or NULL. */
const char *raft_step_at(const struct raft_steps *s, long line);
void raft_steps_free(struct raft_steps *s);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * capture etcd --explore --via ebpf (and --merge's replays), capture
 * hashicorp --explore, capture raftrs --explore: the tries run on the
 * unmodified harness under raft's probes, one "HARNESS -serve" process
 * for the whole exploration (the probes attached once).  The engine runs
 * in a thread of its own; tries are written to the harness's stdin, and
 * the probes at its try start and end (tryStart and tryEnd,
 * scenarios/raft/lang/serve.go; a harness's own, ebpf.h) send each try's
 * events to its trace file and say how it ended.
 */
#ifndef SCENARIOS_RAFT_SERVED_H
#define SCENARIOS_RAFT_SERVED_H

struct job;
struct raft_harness;

/* The served harness @bin of raft @h (built with -cover -covermode=atomic
 * if any try has a GOCOVERDIR) under @h's probes, its work files in
 * @work; dies if it cannot start. */
struct served *served_start(const struct raft_harness *h, const char *bin,
			    const char *work);
/* Run @n jobs in order, each job's events into its trace file, its
 * status set (0, or 3: a step refused); a harness that fails dies. */
void served_batch(struct served *s, struct job *jobs, int n);
/* End the harness (its stdin closed) and check it ended well. */
void served_stop(struct served *s);
/* served_batch() with @s, else run_batch(): the explorer's runs. */
void run_tries(struct served *s, struct job *jobs, int n);

#endif

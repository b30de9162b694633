/* SPDX-License-Identifier: MIT */
/*
 * The exploration's harness runs (explore.c): a try's files, a batch of
 * BATCH runs at once under one deadline, the work directory.
 */
#ifndef SCENARIOS_RAFT_TRIES_H
#define SCENARIOS_RAFT_TRIES_H

#include "../../capture/proc.h"

/* The work files of one harness run. */
struct try_files {
	char *scen, *trace, *steps;
};

/*
 * One harness run of a batch.  The with_tla harness sleeps a millisecond
 * per message it receives (upstream's traceReceiveMessage), so a try is
 * mostly waiting: BATCH of them run at once.  The batch size is fixed, not
 * the machine's: the tries and what is kept do not depend on it.
 */
#define BATCH 4

struct job {
	const char *argv[9];
	struct try_files *files;
	const char *coverdir;  /* GOCOVERDIR of a covered harness, or NULL */
	int quiet;         /* a shrunk replay: a refusal is expected */
	int status;        /* 0, or 3: the harness refused a step */
	struct proc p;
};

/* Run @n jobs at once and wait for all of them (a run that fails dies). */
void run_batch(struct job *jobs, int n);

/* A batch slot: its files and the arguments of its harness run. */
struct slot {
	struct try_files f;
	char *parent;
	char *cover;   /* its GOCOVERDIR */
	char seed[24], steps[24], prefix[24];
	struct job job;
};

/* The BATCH slots of the work directory @work; slots_free() them. */
void slots_init(struct slot *slots, const char *work);
void slots_free(struct slot *slots);
/* The tries' files: removed at the end, and if the run fails (@cleanup). */
char *work_dir(int *cleanup);

#endif

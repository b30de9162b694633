/* SPDX-License-Identifier: MIT */
/*
 * PGo recorder logs: reading one run and merging it by vector clocks.
 *
 * A PGo run is a directory with one log per archetype instance
 * (trace-<self>-<n>.log).  Each line is one critical section the instance
 * committed or aborted: {archetypeName, self, clock, csElements, isAbort,
 * startTime, endTime}.  The merge streams: it looks at one record per file
 * (the file's head; a reading thread parses a bounded number of records
 * ahead, capture/ndjson-ahead.h, and digests them, pgo-record.h) and emits
 * a head only once every event its clock depends on has been emitted, so
 * the order respects happens-before.  Among ready heads the tie-break is
 * the smallest clock sum (a Lamport time), then the
 * process (archetype name, then self: numbers first, in numeric order,
 * then the others in byte order).
 * Timestamps are never looked at.
 *
 * Checks while merging (each names file:line, returned: pgo_fold()): within a file the own clock
 * component ticks by exactly one per record (aborted ones included: the
 * recorder ticks for them too) and no component decreases; every clock
 * entry names a process that has a file in the run, and an event that file
 * contains.  Aborted critical sections are counted and dropped.
 */
#ifndef CAPTURE_PGO_H
#define CAPTURE_PGO_H

#include "../json-tokens.h"

struct fold_run;
struct cap_err;

struct pgo_element;
struct pgo_process;

/* A committed critical section, in merged order. */
struct pgo_event {
	const char *archetype;  /* "AClient" */
	const char *self;       /* "1" */
	long self_num;          /* self as a number (-1 if it is not one) */
	const char *file;       /* for error messages */
	long line;
	const char *label;      /* the label the step executed: the old value
				 * of its ".pc" write, unquoted ("" if none) */
	struct json_tokens *record;  /* the recorder's line */
	const struct pgo_element *elements;  /* its csElements, indexed */
	size_t nelements;
};

typedef void pgo_step_fn(void *ctx, struct fold_run *run,
			 const struct pgo_event *e);

#define PGO_MAX_ARCHETYPES 8

/* A system recorded by PGo: what the shared driver calls per event. */
struct pgo_system {
	const char *name;
	/*
	 * Open run->windows with the initial state; returns the context.
	 * @procs: the run's @n processes (a trace file each), in file order.
	 */
	void *(*begin)(struct fold_run *run, const struct pgo_process *procs,
		       size_t n);
	/* Fold one committed step of an archetype, in merged order. */
	struct {
		const char *archetype;
		pgo_step_fn *step;
	} archetypes[PGO_MAX_ARCHETYPES];  /* up to the first NULL one */
	/* Frees the context (only: it runs after a failed merge too). */
	void (*end)(void *ctx);
};

/*
 * Merge the run in run->input, write every committed step to run->events
 * and hand it to @sys; record the counts of aborted and merged sections in
 * run->info.  What is wrong with the run (a file that cannot be read, a
 * malformed record, a clock that does not tick, a merge that cannot go on,
 * no committed record, an archetype @sys does not know) is -1 and @err
 * naming file:line, every file closed and the reading thread stopped; the
 * steps of @sys are its semantics, and may die as it decides.
 */
int pgo_fold(struct fold_run *run, const struct pgo_system *sys,
	     struct cap_err *err);

/*
 * The first element of @e tagged @tag ("read"/"write") on variable @name
 * with one index equal to @index (NULL: any index); its "value" text.
 */
const char *pgo_value(const struct pgo_event *e, const char *tag,
		      const char *name, const char *index);
/* The index of that element (the first of its indices), or NULL. */
const char *pgo_index(const struct pgo_event *e, const char *tag,
		      const char *name);

/* csElements entry @i of @e (i < e->nelements), in the step's order. */
struct pgo_access {
	const char *tag, *name, *index, *value, *old;  /* NULL: absent */
};
void pgo_access(const struct pgo_event *e, size_t i, struct pgo_access *a);

/* A TLA+ integer value ("3") as a number; dies naming @e if it is not. */
long pgo_int(const struct pgo_event *e, const char *value, const char *what);

/*
 * pgo_int() of a process id (a client, a recipient): the systems index
 * arrays with it, so one above PGO_MAX_ID is refused as bad input rather
 * than allocated for.
 */
#define PGO_MAX_ID 4096
long pgo_id(const struct pgo_event *e, const char *value, const char *what);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * One PGo record, digested for the merge (pgo.h).
 *
 * The merge reads a few things of every record: its clock, whether it
 * aborted, its csElements and label, and its event line.  Reading them
 * where the record was tokenized, on the reading thread (ndjson-ahead.h),
 * finds it in that core's cache; the merge's core then gets a digest of a
 * few cache lines instead of the record's tokens.  Whatever is wrong with
 * a record is kept in its digest, and raised by the merge when the record
 * reaches the head of its file: errors come in the same order as when the
 * merge read every record itself.
 */
#ifndef CAPTURE_PGO_RECORD_H
#define CAPTURE_PGO_RECORD_H

#include "../json-tokens.h"

/* A process of the run: the archetype instance one trace file records. */
struct pgo_process {
	const char *archetype, *self;
	size_t archetype_len, self_len;
};

/* A csElements entry: its tokens a folder asks for (-1: none). */
struct pgo_element {
	int tag, name, index, value, old;
};
/* Element @el of record @t is a @tag ("read"/"write") of variable @name. */
int pgo_element_is(struct json_tokens *t, const struct pgo_element *el,
		   const char *tag, const char *name);

struct pgo_record {
	int exit;                 /* 0, or the exit code for what is wrong */
	char *why;                /* what is wrong with the record */
	int abort;                /* the section aborted */
	long *clock;              /* dense: one entry per process of the run */
	long sum;                 /* sum of the clock's entries */
	struct pgo_element *el;   /* csElements, indexed (committed records) */
	size_t nel, el_alloc;
	char label[128];          /* see pgo_event.label */
	struct strbuf line;       /* event line, if asked for and committed */
};

/* One thread's digesting of a run's records. */
struct pgo_reading {
	const struct pgo_process *procs;  /* the run's, in file order */
	size_t n;
	int write_events;          /* make event lines */
	/* per file and clock entry: the process it named last time */
	long *hints;
};

void pgo_reading_init(struct pgo_reading *r, const struct pgo_process *procs,
		      size_t n, int write_events);
void pgo_reading_release(struct pgo_reading *r);

/*
 * Digest record @t of file @file into @rec (whose buffers are reused).
 * What is wrong goes into rec->exit and rec->why: it dies only when
 * memory runs out.
 */
void pgo_record_digest(struct pgo_reading *r, size_t file,
		       struct json_tokens *t, struct pgo_record *rec);
void pgo_record_release(struct pgo_record *rec);

/* The digest as ndjson-ahead's prepare() and release() (@ctx: a pgo_reading). */
void pgo_record_prepare(void *ctx, size_t file, struct json_tokens *t,
			void *rec);
void pgo_record_free(void *rec);

#endif

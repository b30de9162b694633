// SPDX-License-Identifier: MIT
/* One PGo record, digested for the merge: see pgo-record.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../die.h"
#include "pgo-record.h"

/* A key, and its length: members are matched by the million. */
struct key {
	const char *s;
	size_t n;
};
#define KEY(s) { s, sizeof(s) - 1 }

/* Keys the normalized events leave out (the first of each, as deleted). */
static const struct key dropped_keys[] = {
	KEY("startTime"), KEY("endTime"), KEY("isAbort"),
};

void pgo_reading_init(struct pgo_reading *r, const struct pgo_process *procs,
		      size_t n, int write_events)
{
	r->procs = procs;
	r->n = n;
	r->write_events = write_events;
	r->hints = xcalloc(n * n + 1, sizeof(*r->hints));
	for (size_t i = 0; i < n * n; i++)
		r->hints[i] = -1;
}

void pgo_reading_release(struct pgo_reading *r)
{
	free(r->hints);
	r->hints = NULL;
}

/* Keep what is wrong with the record (digesting stops at the first thing). */
static int wrong(struct pgo_record *rec, int exit, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int wrong(struct pgo_record *rec, int exit, const char *fmt, ...)
{
	va_list ap;

	rec->exit = exit;
	free(rec->why);
	va_start(ap, fmt);
	if (vasprintf(&rec->why, fmt, ap) < 0)
		die(EXIT_CAPTURE_FAILED, "out of memory");
	va_end(ap);
	return -1;
}

/*
 * In one pass over object @obj's members, the value of the first member
 * named keys[k] into *slot[k] (left as it is when there is none).
 */
static void find_members(struct json_tokens *t, int obj,
			 const struct key *keys, int *const *slot, int n)
{
	for (int j = obj + 1; j < (int)t->tok[obj].next; j = (int)t->tok[j + 1].next)
		for (int k = 0; k < n; k++) {
			if (*slot[k] >= 0 ||
			    !json_string_is_n(t, j, keys[k].s, keys[k].n))
				continue;
			*slot[k] = j + 1;
			break;
		}
}

static int is_process(struct json_tokens *t, int arch, int self,
		      const struct pgo_process *p)
{
	return json_string_is_n(t, self, p->self, p->self_len) &&
	       json_string_is_n(t, arch, p->archetype, p->archetype_len);
}

/*
 * The process of clock entry @entry, [archetype, self] in @who, of a
 * record of file @file; -1 if there is none.
 */
static long process_of(struct pgo_reading *r, size_t file, struct json_tokens *t,
		       int who, long count, size_t entry, struct pgo_record *rec)
{
	long *hint = entry < r->n ? &r->hints[file * r->n + entry] : NULL;
	int arch, self;

	if (!json_pair(t, who, &arch, &self) || !json_is(t, arch, JT_STRING) ||
	    !json_is(t, self, JT_STRING))
		return wrong(rec, EXIT_BAD_INPUT,
			     "clock entry without [archetype, self]");
	/* a process writes its clock entries in the same order every time */
	if (hint && *hint >= 0 && is_process(t, arch, self, &r->procs[*hint]))
		return *hint;
	for (size_t j = 0; j < r->n; j++) {
		if (!is_process(t, arch, self, &r->procs[j]))
			continue;
		if (hint)
			*hint = (long)j;
		return (long)j;
	}
	return wrong(rec, EXIT_CHECK_FAILED, "depends on event %ld of %s %s, "
		     "but the run has no trace file for %s %s", count,
		     json_string(t, arch), json_string(t, self),
		     json_string(t, arch), json_string(t, self));
}

/* The record's clock, dense over the run's processes, and its sum. */
static int read_clock(struct pgo_reading *r, size_t file, struct json_tokens *t,
		      int clock, struct pgo_record *rec)
{
	size_t entry = 0;

	memset(rec->clock, 0, r->n * sizeof(*rec->clock));
	rec->sum = 0;
	json_for_each_element(t, e, clock) {
		int who, count;
		long long n;
		long j;

		/* up to 2^53: exact in a double, and a long holds it */
		if (!json_pair(t, e, &who, &count) || json_integer(t, count, &n) ||
		    n < 1)
			return wrong(rec, EXIT_BAD_INPUT, "clock entry without a "
				     "positive integer counter");
		j = process_of(r, file, t, who, (long)n, entry++, rec);
		if (j < 0)
			return -1;
		rec->clock[j] = (long)n;
		rec->sum += (long)n;
	}
	return 0;
}

/* The members of csElements entry @e a folder asks for (the first of each). */
static void element_members(struct json_tokens *t, int e,
			    struct pgo_element *el)
{
	static const struct key keys[] = {
		KEY("tag"), KEY("name"), KEY("indices"), KEY("value"),
		KEY("oldValue"),
	};
	int *const slot[] = { &el->tag, &el->name, &el->index, &el->value,
			      &el->old };

	find_members(t, e, keys, slot, 5);
	el->name = json_member(t, el->name, "name");
	el->index = json_element(t, el->index, 0);
}

/* The record's csElements, indexed: folders look them up several times. */
static void index_elements(struct json_tokens *t, int cs,
			   struct pgo_record *rec)
{
	rec->nel = 0;
	json_for_each_element(t, e, cs) {
		struct pgo_element *el;

		if (rec->nel == rec->el_alloc) {
			rec->el_alloc = rec->el_alloc ? 2 * rec->el_alloc : 16;
			rec->el = xrealloc(rec->el, rec->el_alloc * sizeof(*rec->el));
		}
		el = &rec->el[rec->nel++];
		*el = (struct pgo_element){ -1, -1, -1, -1, -1 };
		if (json_is(t, e, JT_OBJECT))
			element_members(t, e, el);
	}
}

int pgo_element_is(struct json_tokens *t, const struct pgo_element *el,
		   const char *tag, const char *name)
{
	return json_string_is(t, el->tag, tag) && json_string_is(t, el->name, name);
}

/* The label the step executed: the old value of its ".pc" write, unquoted. */
static void label_of(struct json_tokens *t, struct pgo_record *rec)
{
	for (size_t i = 0; i < rec->nel; i++) {
		const char *old;
		size_t len;

		if (!pgo_element_is(t, &rec->el[i], "write", ".pc") ||
		    !(old = json_string(t, rec->el[i].old)))
			continue;
		len = strlen(old);
		if (len >= 2 && old[0] == '"' && old[len - 1] == '"' &&
		    len - 2 < sizeof(rec->label)) {
			memcpy(rec->label, old + 1, len - 2);
			rec->label[len - 2] = '\0';
		}
		return;
	}
}

/* Key @j is one the event line leaves out (the first of its name). */
static int dropped(struct json_tokens *t, unsigned j, int seen[3])
{
	for (int k = 0; k < 3; k++)
		if (!seen[k] && json_string_is_n(t, (int)j, dropped_keys[k].s,
						 dropped_keys[k].n))
			return seen[k] = 1;
	return 0;
}

/* Write the members from key *@run up to key @to, if any; none pending. */
static void write_run(struct strbuf *out, struct json_tokens *t, int *run,
		      unsigned to, int *first)
{
	if (*run < 0)
		return;
	if (!*first)
		strbuf_add(out, ",", 1);
	json_tokens_write_members(out, t, *run, (int)to);
	*first = 0;
	*run = -1;
}

/*
 * The record's event line: timestamps and isAbort left out, the members
 * between them written as runs of the text.
 */
static void event_line(struct json_tokens *t, struct strbuf *out)
{
	int seen[3] = { 0 }, first = 1, run = -1;
	unsigned end = t->tok[0].next;

	strbuf_add(out, "{", 1);
	for (unsigned j = 1; j < end; j = t->tok[j + 1].next) {
		if (dropped(t, j, seen))
			write_run(out, t, &run, j, &first);
		else if (run < 0)
			run = (int)j;
	}
	write_run(out, t, &run, end, &first);
	strbuf_add(out, "}\n", 2);
}

void pgo_record_digest(struct pgo_reading *r, size_t file,
		       struct json_tokens *t, struct pgo_record *rec)
{
	static const struct key keys[] = {
		KEY("archetypeName"), KEY("self"), KEY("clock"),
		KEY("isAbort"), KEY("csElements"),
	};
	const struct pgo_process *p = &r->procs[file];
	int arch = -1, self = -1, clock = -1, abort = -1, cs = -1;
	int *const slot[] = { &arch, &self, &clock, &abort, &cs };

	rec->exit = 0;
	rec->nel = 0;
	rec->label[0] = '\0';
	strbuf_reset(&rec->line);
	if (!rec->clock)
		rec->clock = xcalloc(r->n + 1, sizeof(*rec->clock));
	if (json_is(t, 0, JT_OBJECT))
		find_members(t, 0, keys, slot, 5);
	if (!json_is(t, clock, JT_ARRAY) ||
	    !(json_is(t, abort, JT_TRUE) || json_is(t, abort, JT_FALSE))) {
		wrong(rec, EXIT_BAD_INPUT,
		      "PGo record without clock array or isAbort");
		return;
	}
	if (!is_process(t, arch, self, p)) {
		wrong(rec, EXIT_BAD_INPUT, "record of another process than %s %s",
		      p->archetype, p->self);
		return;
	}
	rec->abort = json_is(t, abort, JT_TRUE);
	if (read_clock(r, file, t, clock, rec) || rec->abort)
		return;
	index_elements(t, cs, rec);
	label_of(t, rec);
	if (r->write_events)
		event_line(t, &rec->line);
}

void pgo_record_release(struct pgo_record *rec)
{
	free(rec->why);
	free(rec->clock);
	free(rec->el);
	strbuf_release(&rec->line);
	memset(rec, 0, sizeof(*rec));
}

void pgo_record_prepare(void *ctx, size_t file, struct json_tokens *t,
			void *rec)
{
	pgo_record_digest(ctx, file, t, rec);
}

void pgo_record_free(void *rec)
{
	pgo_record_release(rec);
}

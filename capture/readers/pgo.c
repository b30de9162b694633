// SPDX-License-Identifier: MIT
/* PGo recorder logs: per-file cursors merged by vector clock (see pgo.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "../die.h"
#include "../err.h"
#include "../json.h"
#include "../ndjson-ahead.h"
#include "../ndjson.h"
#include "../proc.h"
#include "../fold.h"
#include "pgo.h"
#include "pgo-record.h"

/* One archetype instance: its log and the record at its head. */
struct pgo_file {
	char *path;
	struct line_reader r;
	struct strbuf first_text;  /* the first record, read to identify */
	struct json_tokens first;
	char *archetype, *self;
	long self_num;
	int rank;          /* place in process order (process_cmp) */
	struct json_tokens *head;  /* NULL once the file is exhausted */
	struct pgo_record *head_rec;  /* the head's digest */
	struct pgo_record own[2];  /* digests the merge made (in turns: the
				    * head's and the current event's) */
	int own_next;
	long head_line;
	int head_abort;
	long *clock;       /* head's clock, dense over the run's processes */
	long *prev;        /* clock of the record before the head */
	long sum;          /* sum of the head's clock: the tie-break */
	long emitted;      /* records taken from this file, aborts included */
};

struct pgo_merge {
	struct pgo_file *files;
	struct pgo_process *procs;  /* the files' processes, in file order */
	size_t n;
	long aborted, committed;
	struct ndjson_ahead *ahead;  /* reads every file's records after the first */
	struct pgo_reading reading;  /* digests this thread makes */
	struct pgo_reading reader_reading;  /* the reading thread's */
	struct json_tokens *current;  /* record of the event last returned */
	struct pgo_record *current_rec;
	struct pgo_file *current_file;
	struct pgo_event ev;
	struct cap_err *err;  /* the merge's failure, for pgo_fold()'s caller */
};

static long number_or_minus_one(const char *s)
{
	char *end;
	long v;

	if (!*s)
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	return *end || v < 0 || errno ? -1 : v;
}

/*
 * Process order: archetype name, then self: numbers first, in numeric
 * order, then the others in byte order (a total order, so that ranking the
 * processes once gives the tie-break of comparing them pairwise).
 */
static int process_cmp(const struct pgo_file *a, const struct pgo_file *b)
{
	int c = strcmp(a->archetype, b->archetype);

	if (c)
		return c;
	if ((a->self_num >= 0) != (b->self_num >= 0))
		return a->self_num >= 0 ? -1 : 1;
	if (a->self_num >= 0 && a->self_num != b->self_num)
		return a->self_num < b->self_num ? -1 : 1;
	return strcmp(a->self, b->self);
}

/* trace-*.log files of @dir, sorted by name. */
static int is_trace_log(const char *name)
{
	return !strncmp(name, "trace-", 6) && strlen(name) >= 10 &&
	       has_suffix(name, ".log");
}

static char **list_logs(const char *dir, size_t *n, struct cap_err *err)
{
	char **names = list_dir(dir, is_trace_log, n);

	if (!names) {
		cap_fail_at(err, EXIT_BAD_INPUT, dir, 0,
			    "not a directory of PGo trace-*.log files");
		return NULL;
	}
	if (!*n) {
		free_names(names, 0);
		cap_fail_at(err, EXIT_BAD_INPUT, dir, 0, "no trace-*.log files");
		return NULL;
	}
	for (size_t i = 0; i < *n; i++) {
		char *path = xasprintf("%s/%s", dir, names[i]);

		free(names[i]);
		names[i] = path;
	}
	return names;
}

/* A process name into *@s: a string, and one a C string can hold. */
static int record_str(struct pgo_file *f, struct json_tokens *rec,
		      const char *key, char **s, struct cap_err *err)
{
	int i = json_member(rec, 0, key);
	const char *v = json_string(rec, i);

	if (!v)
		return cap_fail_at(err, EXIT_BAD_INPUT, f->path, f->head_line,
				   "PGo record without string \"%s\"", key);
	if (!json_string_is(rec, i, v))
		return cap_fail_at(err, EXIT_BAD_INPUT, f->path, f->head_line,
				   "PGo record whose \"%s\" holds a NUL character", key);
	*s = xstrdup(v);
	return 0;
}

/* The file's process, from its first record; the name must agree. */
static int identify(struct pgo_file *f, struct cap_err *err)
{
	const char *base = strrchr(f->path, '/') + 1;
	size_t len;

	if (record_str(f, f->head, "archetypeName", &f->archetype, err) ||
	    record_str(f, f->head, "self", &f->self, err))
		return -1;
	f->self_num = number_or_minus_one(f->self);
	len = strlen(f->self);
	if (strncmp(base + 6, f->self, len) || base[6 + len] != '-')
		return cap_fail_at(err, EXIT_BAD_INPUT, f->path, f->head_line,
				   "record of %s %s in a file named for another process",
				   f->archetype, f->self);
	return 0;
}

/* A digest of the head made on this thread: the reader had no time for it. */
static struct pgo_record *digest_here(struct pgo_merge *m, struct pgo_file *f)
{
	struct pgo_record *rec = &f->own[f->own_next];

	f->own_next ^= 1;
	pgo_record_digest(&m->reading, (size_t)(f - m->files), f->head, rec);
	return rec;
}

/*
 * The head's digest: fail on what is wrong with the record, and check its
 * clock against the record before it.
 */
static int load_head(struct pgo_merge *m, struct pgo_file *f,
		     struct pgo_record *rec)
{
	long own = f - m->files;

	if (rec->exit)
		return cap_fail_at(m->err, rec->exit, f->path, f->head_line, "%s",
				   rec->why);
	f->head_rec = rec;
	f->head_abort = rec->abort;
	memcpy(f->clock, rec->clock, m->n * sizeof(*f->clock));
	f->sum = rec->sum;
	if (f->clock[own] != f->prev[own] + 1)
		return cap_fail_at(m->err, EXIT_CHECK_FAILED, f->path, f->head_line,
				   "own clock of %s %s goes from %ld to %ld (must tick by "
				   "one per record)", f->archetype, f->self,
				   f->prev[own], f->clock[own]);
	for (size_t j = 0; j < m->n; j++)
		if (f->clock[j] < f->prev[j])
			return cap_fail_at(m->err, EXIT_CHECK_FAILED, f->path,
					   f->head_line,
					   "clock entry for %s %s goes back from %ld to %ld",
					   m->files[j].archetype, m->files[j].self,
					   f->prev[j], f->clock[j]);
	return 0;
}

static int advance(struct pgo_merge *m, struct pgo_file *f)
{
	long *t = f->prev;
	void *rec;

	f->prev = f->clock;
	f->clock = t;
	if (ndjson_ahead_next(m->ahead, f - m->files, &f->head, &f->head_line,
			      &rec, m->err))
		return -1;
	if (!f->head)
		return 0;
	return load_head(m, f, rec ? rec : digest_here(m, f));
}

static int ready(const struct pgo_merge *m, const struct pgo_file *f)
{
	for (size_t j = 0; j < m->n; j++)
		if (&m->files[j] != f && f->clock[j] > m->files[j].emitted)
			return 0;
	return 1;
}

/* No head can go: name the dependency that cannot be met. */
static int stuck(const struct pgo_merge *m)
{
	const struct pgo_file *first = NULL;

	for (size_t i = 0; i < m->n; i++) {
		const struct pgo_file *f = &m->files[i];

		if (!f->head)
			continue;
		if (!first)
			first = f;
		for (size_t j = 0; j < m->n; j++) {
			const struct pgo_file *g = &m->files[j];

			if (g->head || f->clock[j] <= g->emitted)
				continue;
			return cap_fail_at(m->err, EXIT_CHECK_FAILED, f->path,
					   f->head_line,
					   "depends on event %ld of %s %s, but %s ends "
					   "after %ld records", f->clock[j], g->archetype,
					   g->self, g->path, g->emitted);
		}
	}
	for (size_t j = 0; j < m->n; j++)
		if (first->clock[j] > m->files[j].emitted &&
		    &m->files[j] != first)
			return cap_fail_at(m->err, EXIT_CHECK_FAILED, first->path,
					   first->head_line,
					   "waits on event %ld of %s %s (%s:%ld), which "
					   "waits on it in turn: the vector clocks form a "
					   "cycle", first->clock[j], m->files[j].archetype,
					   m->files[j].self, m->files[j].path,
					   m->files[j].head_line);
	return cap_fail(m->err, EXIT_CHECK_FAILED, "PGo merge stuck");
}

/* The ready head to emit next into *@best (NULL: every file is done). */
static int pick(const struct pgo_merge *m, struct pgo_file **best)
{
	int pending = 0;

	*best = NULL;
	for (size_t i = 0; i < m->n; i++) {
		struct pgo_file *f = &m->files[i];

		if (!f->head)
			continue;
		pending = 1;
		if (!ready(m, f))
			continue;
		if (!*best || f->sum < (*best)->sum ||
		    (f->sum == (*best)->sum && f->rank < (*best)->rank))
			*best = f;
	}
	return pending && !*best ? stuck(m) : 0;
}

static void drop_current(struct pgo_merge *m)
{
	struct pgo_file *f = m->current_file;

	if (!m->current)
		return;
	if (m->current != &f->first)
		ndjson_ahead_release(m->ahead, f - m->files);
	m->current = NULL;
}

/* The next committed event into *@ev (NULL at the end of the run). */
static int merge_next(struct pgo_merge *m, const struct pgo_event **ev)
{
	struct pgo_file *f;

	*ev = NULL;
	drop_current(m);
	for (;;) {
		struct pgo_record *rec;
		int aborted;

		if (pick(m, &f))
			return -1;
		if (!f)
			return 0;
		rec = f->head_rec;
		aborted = f->head_abort;
		m->current = f->head;
		m->current_rec = rec;
		m->current_file = f;
		m->ev = (struct pgo_event){
			.archetype = f->archetype, .self = f->self,
			.self_num = f->self_num, .file = f->path,
			.line = f->head_line, .record = m->current,
			.label = rec->label, .elements = rec->el,
			.nelements = rec->nel,
		};
		f->emitted++;
		if (advance(m, f))
			return -1;
		if (!aborted)
			break;
		m->aborted++;
		drop_current(m);
	}
	m->committed++;
	*ev = &m->ev;
	return 0;
}

/* Read every file after its first record on a thread that digests them. */
static void start_reading(struct pgo_merge *m, int write_events)
{
	struct line_reader **readers = xcalloc(m->n + 1, sizeof(*readers));
	const struct ndjson_preparer digest = {
		.prepare = pgo_record_prepare, .release = pgo_record_free,
		.ctx = &m->reader_reading, .size = sizeof(struct pgo_record),
	};

	for (size_t i = 0; i < m->n; i++)
		readers[i] = &m->files[i].r;
	pgo_reading_init(&m->reader_reading, m->procs, m->n, write_events);
	m->ahead = ndjson_ahead_start(readers, m->n, &digest);
	free(readers);
}

/* The file's first record, read on this thread to know the process. */
static int read_first(struct pgo_file *f, struct cap_err *err)
{
	struct ndjson_error e;
	int got = ndjson_try_next_tokens(&f->r, &f->first_text, &f->first, &e);

	if (got < 0)
		return cap_fail_at(err, EXIT_BAD_INPUT, f->path, e.line, "%s", e.msg);
	f->head = got ? &f->first : NULL;
	f->head_line = f->r.line;
	return 0;
}

static void release_first(struct pgo_file *f)
{
	strbuf_release(&f->first_text);
	json_tokens_release(&f->first);
}

/* The run's processes, in file order, and their places in process order. */
static void name_processes(struct pgo_merge *m)
{
	m->procs = xcalloc(m->n + 1, sizeof(*m->procs));
	for (size_t i = 0; i < m->n; i++) {
		struct pgo_file *f = &m->files[i];

		m->procs[i] = (struct pgo_process){
			.archetype = f->archetype, .self = f->self,
			.archetype_len = strlen(f->archetype),
			.self_len = strlen(f->self),
		};
		for (size_t j = 0; j < m->n; j++)
			f->rank += process_cmp(&m->files[j], f) < 0;
		f->clock = xcalloc(m->n, sizeof(long));
		f->prev = xcalloc(m->n, sizeof(long));
	}
}

/*
 * Open @f (m->files[@kept], its path set) and identify its process, unless
 * it recorded nothing: 1 if it is kept, 0 if not (closed), -1 on failure
 * (what it holds is m->files[@kept]'s, for merge_close()).
 */
static int open_file(struct pgo_merge *m, struct pgo_file *f, size_t kept)
{
	if (line_reader_try_open_as(&f->r, f->path, f->path, m->err) ||
	    read_first(f, m->err))
		return -1;
	if (!f->head) {
		/* an instance that recorded nothing has no events */
		line_reader_close(&f->r);
		release_first(f);
		free(f->path);
		f->path = NULL;
		return 0;
	}
	if (identify(f, m->err))
		return -1;
	for (size_t j = 0; j < kept; j++)
		if (!process_cmp(&m->files[j], f))
			return cap_fail_at(m->err, EXIT_BAD_INPUT, f->path, 0,
					   "second trace file for %s %s (first: %s)",
					   f->archetype, f->self, m->files[j].path);
	return 1;
}

/* Open the trace files of @paths (@n of them, freed), into m->files. */
static int open_files(struct pgo_merge *m, char **paths, size_t n)
{
	size_t kept = 0, i;
	int rc = 0;

	m->files = xcalloc(n, sizeof(*m->files));
	for (i = 0; i < n && rc >= 0; i++) {
		m->files[kept].path = paths[i];
		rc = open_file(m, &m->files[kept], kept);
		kept += rc != 0;
	}
	for (; i < n; i++)
		free(paths[i]);
	free(paths);
	m->n = kept;
	return rc < 0 ? -1 : 0;
}

static void merge_close(struct pgo_merge *m)
{
	drop_current(m);
	if (m->ahead)
		ndjson_ahead_stop(m->ahead);
	for (size_t i = 0; i < m->n; i++) {
		struct pgo_file *f = &m->files[i];

		line_reader_close(&f->r);
		release_first(f);
		pgo_record_release(&f->own[0]);
		pgo_record_release(&f->own[1]);
		free(f->path);
		free(f->archetype);
		free(f->self);
		free(f->clock);
		free(f->prev);
	}
	pgo_reading_release(&m->reading);
	pgo_reading_release(&m->reader_reading);
	free(m->procs);
	free(m->files);
	free(m);
}

/* The merge of the run in @dir, its heads loaded; NULL with @err. */
static struct pgo_merge *merge_open(const char *dir, int write_events,
				    struct cap_err *err)
{
	struct pgo_merge *m = xcalloc(1, sizeof(*m));
	size_t n;
	char **paths = list_logs(dir, &n, err);

	m->err = err;
	if (!paths || open_files(m, paths, n))
		goto fail;
	name_processes(m);
	pgo_reading_init(&m->reading, m->procs, m->n, write_events);
	for (size_t i = 0; i < m->n; i++)
		if (load_head(m, &m->files[i], digest_here(m, &m->files[i])))
			goto fail;
	start_reading(m, write_events);
	return m;
fail:
	merge_close(m);
	return NULL;
}

static pgo_step_fn *archetype_step(const struct pgo_system *sys,
				   const struct pgo_event *e, struct cap_err *err)
{
	for (size_t i = 0; i < PGO_MAX_ARCHETYPES &&
	     sys->archetypes[i].archetype; i++)
		if (!strcmp(sys->archetypes[i].archetype, e->archetype))
			return sys->archetypes[i].step;
	cap_fail_at(err, EXIT_BAD_INPUT, e->file, e->line,
		    "archetype %s is not part of %s", e->archetype, sys->name);
	return NULL;
}

/* Hand @sys each committed event of @m in merged order. */
static int merge_steps(struct pgo_merge *m, struct fold_run *run,
		       const struct pgo_system *sys, void *ctx)
{
	const struct pgo_event *e;
	const struct strbuf *line;
	pgo_step_fn *step;

	for (;;) {
		if (merge_next(m, &e))
			return -1;
		if (!e)
			break;
		line = &m->current_rec->line;
		events_add_line(run->events, line->buf, line->len);
		if (!(step = archetype_step(sys, e, m->err)))
			return -1;
		step(ctx, run, e);
	}
	if (!m->committed)
		return cap_fail_at(m->err, EXIT_CHECK_FAILED, run->input, 0,
				   "no committed records: the trace files hold no "
				   "committed critical section");
	return 0;
}

int pgo_fold(struct fold_run *run, const struct pgo_system *sys,
	     struct cap_err *err)
{
	struct pgo_merge *m = merge_open(run->input, run->corpus != NULL, err);
	void *ctx;
	int rc;

	if (!m)
		return -1;
	ctx = sys->begin(run, m->procs, m->n);
	rc = merge_steps(m, run, sys, ctx);
	sys->end(ctx);
	if (!rc) {
		json_add(run->info, "processes", json_int((long long)m->n));
		json_add(run->info, "committed_sections", json_int(m->committed));
		json_add(run->info, "aborted_sections_dropped", json_int(m->aborted));
	}
	merge_close(m);
	return rc;
}

/* The first csElements entry that is a @tag of @name (at @index if given). */
static const struct pgo_element *element(const struct pgo_event *e,
					 const char *tag, const char *name,
					 const char *index)
{
	for (size_t i = 0; i < e->nelements; i++) {
		const struct pgo_element *el = &e->elements[i];

		if (pgo_element_is(e->record, el, tag, name) &&
		    (!index || json_string_is(e->record, el->index, index)))
			return el;
	}
	return NULL;
}

const char *pgo_value(const struct pgo_event *e, const char *tag,
		      const char *name, const char *index)
{
	const struct pgo_element *el = element(e, tag, name, index);

	return el ? json_string(e->record, el->value) : NULL;
}

const char *pgo_index(const struct pgo_event *e, const char *tag,
		      const char *name)
{
	const struct pgo_element *el = element(e, tag, name, NULL);

	return el ? json_string(e->record, el->index) : NULL;
}

void pgo_access(const struct pgo_event *e, size_t i, struct pgo_access *a)
{
	const struct pgo_element *el = &e->elements[i];

	*a = (struct pgo_access){
		.tag = json_string(e->record, el->tag),
		.name = json_string(e->record, el->name),
		.index = json_string(e->record, el->index),
		.value = json_string(e->record, el->value),
		.old = json_string(e->record, el->old),
	};
}

long pgo_int(const struct pgo_event *e, const char *value, const char *what)
{
	long v = value ? number_or_minus_one(value) : -1;

	if (v < 0)
		die_at(EXIT_BAD_INPUT, e->file, e->line,
		       "%s of %s %s is %s, not a natural number", what,
		       e->archetype, e->self, value ? value : "missing");
	return v;
}

long pgo_id(const struct pgo_event *e, const char *value, const char *what)
{
	long v = pgo_int(e, value, what);

	if (v > PGO_MAX_ID)
		die_at(EXIT_BAD_INPUT, e->file, e->line,
		       "%s of %s %s is %ld, above %d (ids index arrays)", what,
		       e->archetype, e->self, v, PGO_MAX_ID);
	return v;
}

// SPDX-License-Identifier: MIT
/* PGo recorder logs: per-file cursors merged by vector clock (see pgo.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "../capture/die.h"
#include "../capture/json.h"
#include "../capture/ndjson-ahead.h"
#include "../capture/ndjson.h"
#include "../capture/proc.h"
#include "folder.h"
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

static char **list_logs(const char *dir, size_t *n)
{
	char **names = list_dir(dir, is_trace_log, n);

	if (!names)
		die_at(EXIT_BAD_INPUT, dir, 0,
		       "not a directory of PGo trace-*.log files");
	if (!*n) {
		free_names(names, 0);
		die_at(EXIT_BAD_INPUT, dir, 0, "no trace-*.log files");
	}
	for (size_t i = 0; i < *n; i++) {
		char *path = xasprintf("%s/%s", dir, names[i]);

		free(names[i]);
		names[i] = path;
	}
	return names;
}

/* A process name: a string, and one a C string can hold. */
static const char *record_str(struct pgo_file *f, struct json_tokens *rec,
			      const char *key)
{
	int i = json_member(rec, 0, key);
	const char *s = json_string(rec, i);

	if (!s)
		die_at(EXIT_BAD_INPUT, f->path, f->head_line,
		       "PGo record without string \"%s\"", key);
	if (!json_string_is(rec, i, s))
		die_at(EXIT_BAD_INPUT, f->path, f->head_line,
		       "PGo record whose \"%s\" holds a NUL character", key);
	return s;
}

/* The file's process, from its first record; the name must agree. */
static void identify(struct pgo_file *f)
{
	const char *base = strrchr(f->path, '/') + 1;
	size_t len;

	f->archetype = xstrdup(record_str(f, f->head, "archetypeName"));
	f->self = xstrdup(record_str(f, f->head, "self"));
	f->self_num = number_or_minus_one(f->self);
	len = strlen(f->self);
	if (strncmp(base + 6, f->self, len) || base[6 + len] != '-')
		die_at(EXIT_BAD_INPUT, f->path, f->head_line,
		       "record of %s %s in a file named for another process",
		       f->archetype, f->self);
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
 * The head's digest: die on what is wrong with the record, and check its
 * clock against the record before it.
 */
static void load_head(struct pgo_merge *m, struct pgo_file *f,
		      struct pgo_record *rec)
{
	long own = f - m->files;

	if (rec->exit)
		die_at(rec->exit, f->path, f->head_line, "%s", rec->why);
	f->head_rec = rec;
	f->head_abort = rec->abort;
	memcpy(f->clock, rec->clock, m->n * sizeof(*f->clock));
	f->sum = rec->sum;
	if (f->clock[own] != f->prev[own] + 1)
		die_at(EXIT_CHECK_FAILED, f->path, f->head_line,
		       "own clock of %s %s goes from %ld to %ld (must tick by "
		       "one per record)", f->archetype, f->self,
		       f->prev[own], f->clock[own]);
	for (size_t j = 0; j < m->n; j++)
		if (f->clock[j] < f->prev[j])
			die_at(EXIT_CHECK_FAILED, f->path, f->head_line,
			       "clock entry for %s %s goes back from %ld to %ld",
			       m->files[j].archetype, m->files[j].self,
			       f->prev[j], f->clock[j]);
}

static void advance(struct pgo_merge *m, struct pgo_file *f)
{
	long *t = f->prev;
	void *rec;

	f->prev = f->clock;
	f->clock = t;
	f->head = ndjson_ahead_next(m->ahead, f - m->files, &f->head_line, &rec);
	if (f->head)
		load_head(m, f, rec ? rec : digest_here(m, f));
}

static int ready(const struct pgo_merge *m, const struct pgo_file *f)
{
	for (size_t j = 0; j < m->n; j++)
		if (&m->files[j] != f && f->clock[j] > m->files[j].emitted)
			return 0;
	return 1;
}

/* No head can go: name the dependency that cannot be met. */
static _Noreturn void stuck(const struct pgo_merge *m)
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
			die_at(EXIT_CHECK_FAILED, f->path, f->head_line,
			       "depends on event %ld of %s %s, but %s ends "
			       "after %ld records", f->clock[j], g->archetype,
			       g->self, g->path, g->emitted);
		}
	}
	for (size_t j = 0; j < m->n; j++)
		if (first->clock[j] > m->files[j].emitted &&
		    &m->files[j] != first)
			die_at(EXIT_CHECK_FAILED, first->path, first->head_line,
			       "waits on event %ld of %s %s (%s:%ld), which "
			       "waits on it in turn: the vector clocks form a "
			       "cycle", first->clock[j], m->files[j].archetype,
			       m->files[j].self, m->files[j].path,
			       m->files[j].head_line);
	die(EXIT_CHECK_FAILED, "PGo merge stuck");
}

static struct pgo_file *pick(const struct pgo_merge *m)
{
	struct pgo_file *best = NULL;
	int pending = 0;

	for (size_t i = 0; i < m->n; i++) {
		struct pgo_file *f = &m->files[i];

		if (!f->head)
			continue;
		pending = 1;
		if (!ready(m, f))
			continue;
		if (!best || f->sum < best->sum ||
		    (f->sum == best->sum && f->rank < best->rank))
			best = f;
	}
	if (pending && !best)
		stuck(m);
	return best;
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

static const struct pgo_event *merge_next(struct pgo_merge *m)
{
	struct pgo_file *f;

	drop_current(m);
	while ((f = pick(m))) {
		struct pgo_record *rec = f->head_rec;
		int aborted = f->head_abort;

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
		advance(m, f);
		if (!aborted)
			break;
		m->aborted++;
		drop_current(m);
	}
	if (!f)
		return NULL;
	m->committed++;
	return &m->ev;
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
static void read_first(struct pgo_file *f)
{
	struct ndjson_error e;
	int got = ndjson_try_next_tokens(&f->r, &f->first_text, &f->first, &e);

	if (got < 0)
		die_at(EXIT_BAD_INPUT, f->path, e.line, "%s", e.msg);
	f->head = got ? &f->first : NULL;
	f->head_line = f->r.line;
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

static struct pgo_merge *merge_open(const char *dir, int write_events)
{
	struct pgo_merge *m = xcalloc(1, sizeof(*m));
	char **paths = list_logs(dir, &m->n);
	size_t kept = 0;

	m->files = xcalloc(m->n, sizeof(*m->files));
	for (size_t i = 0; i < m->n; i++) {
		struct pgo_file *f = &m->files[kept];

		f->path = paths[i];
		line_reader_open(&f->r, f->path);
		read_first(f);
		if (!f->head) {
			/* an instance that recorded nothing has no events */
			line_reader_close(&f->r);
			release_first(f);
			free(f->path);
			continue;
		}
		identify(f);
		for (size_t j = 0; j < kept; j++)
			if (!process_cmp(&m->files[j], f))
				die_at(EXIT_BAD_INPUT, f->path, 0,
				       "second trace file for %s %s (first: %s)",
				       f->archetype, f->self, m->files[j].path);
		kept++;
	}
	free(paths);
	m->n = kept;
	name_processes(m);
	pgo_reading_init(&m->reading, m->procs, m->n, write_events);
	for (size_t i = 0; i < m->n; i++)
		load_head(m, &m->files[i], digest_here(m, &m->files[i]));
	start_reading(m, write_events);
	return m;
}

static void merge_close(struct pgo_merge *m)
{
	drop_current(m);
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

static pgo_step_fn *archetype_step(const struct pgo_system *sys,
				   const struct pgo_event *e)
{
	for (size_t i = 0; i < PGO_MAX_ARCHETYPES &&
	     sys->archetypes[i].archetype; i++)
		if (!strcmp(sys->archetypes[i].archetype, e->archetype))
			return sys->archetypes[i].step;
	die_at(EXIT_BAD_INPUT, e->file, e->line,
	       "archetype %s is not part of %s", e->archetype, sys->name);
}

void pgo_fold(struct fold_run *run, const struct pgo_system *sys)
{
	struct pgo_merge *m = merge_open(run->input, run->corpus != NULL);
	const struct pgo_event *e;
	void *ctx = sys->begin(run, m->procs, m->n);

	while ((e = merge_next(m))) {
		const struct strbuf *line = &m->current_rec->line;

		events_add_line(run->events, line->buf, line->len);
		archetype_step(sys, e)(ctx, run, e);
	}
	sys->end(ctx);
	if (!m->committed)
		die_at(EXIT_CHECK_FAILED, run->input, 0,
		       "no committed records: the trace files hold no "
		       "committed critical section");
	json_add(run->info, "processes", json_int((long long)m->n));
	json_add(run->info, "committed_sections", json_int(m->committed));
	json_add(run->info, "aborted_sections_dropped", json_int(m->aborted));
	merge_close(m);
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

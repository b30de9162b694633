// SPDX-License-Identifier: MIT
/*
 * The trace channel decoded with libtraceevent (see ftrace.h).  Framing,
 * from the guest's tracedump:
 *	CAPTURE TRACE\n
 *	FILE <path> <length>\n<length bytes>	(repeated)
 *	CAPTURE TRACE END <number of files>\n
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>
#include <kbuffer.h>
#include "../capture/die.h"
#include "../capture/json.h"
#include "../capture/proc.h"
#include "ftrace.h"

#define MAX_CPUS 64
/* The guest's ring-buffer pages are x86 pages. */
#define TRACE_PAGE 4096

struct cpu_records {
	struct ftrace_record *r;
	size_t n, alloc;
};

struct ftrace {
	const char *path;
	char *data;		/* the channel's bytes: records point into it */
	size_t len;
	struct tep_handle *tep;
	int cpus;
	struct cpu_records cpu[MAX_CPUS];
};

/* One FILE of the channel. */
struct shipped {
	char path[256];
	char *bytes;
	size_t len;
};

static _Noreturn void truncated(const struct ftrace *t, size_t at)
{
	die_at(EXIT_CAPTURE_FAILED, t->path, 0,
	       "the trace channel stops at byte %zu of its framing without "
	       "CAPTURE TRACE END: events were lost", at);
}

/* The header line at *@pos (without its newline), or NULL at the end. */
static const char *header_line(struct ftrace *t, size_t *pos, char *line,
			       size_t size)
{
	const char *nl = memchr(t->data + *pos, '\n', t->len - *pos);
	size_t n;

	if (*pos == t->len)
		return NULL;
	if (!nl)
		truncated(t, *pos);
	n = nl - (t->data + *pos);
	if (n >= size)
		die_at(EXIT_BAD_INPUT, t->path, 0,
		       "byte %zu: a framing line of %zu bytes", *pos, n);
	memcpy(line, t->data + *pos, n);
	line[n] = '\0';
	*pos += n + 1;
	return line;
}

/* The next FILE at *@pos; 0 at the end marker (its count checked). */
static int next_file(struct ftrace *t, size_t *pos, struct shipped *f,
		     int files)
{
	char line[320];
	int count, used = 0;

	if (!header_line(t, pos, line, sizeof(line)))
		truncated(t, *pos);
	if (sscanf(line, "CAPTURE TRACE END %d%n", &count, &used) == 1 &&
	    !line[used]) {
		if (count != files)
			die_at(EXIT_CAPTURE_FAILED, t->path, 0,
			       "the guest shipped %d trace files, %d arrived",
			       count, files);
		if (*pos != t->len)
			die_at(EXIT_BAD_INPUT, t->path, 0,
			       "%zu bytes after CAPTURE TRACE END", t->len - *pos);
		return 0;
	}
	if (sscanf(line, "FILE %255s %zu%n", f->path, &f->len, &used) != 2 ||
	    line[used])
		die_at(EXIT_BAD_INPUT, t->path, 0,
		       "byte %zu: expected FILE <path> <length>, not \"%.40s\"",
		       *pos - strlen(line) - 1, line);
	if (f->len > t->len - *pos)
		truncated(t, *pos);
	f->bytes = t->data + *pos;
	*pos += f->len;
	return 1;
}

static void add_record(struct ftrace *t, int cpu, const struct ftrace_record *r)
{
	struct cpu_records *c = &t->cpu[cpu];

	if (c->n == c->alloc) {
		c->alloc = c->alloc ? 2 * c->alloc : 64;
		c->r = xrealloc(c->r, c->alloc * sizeof(*c->r));
	}
	c->r[c->n++] = *r;
}

/*
 * A ring-buffer page: a u64 time stamp, a u64 commit (the data's length in
 * its low 27 bits, flags above; a stored missed count takes 8 bytes after
 * the data), then the data.  kbuffer believes the commit (a corrupt one
 * made it read past the page; found by fuzzing): the data's length, or -1
 * if it does not fit the page.
 */
#define PAGE_DATA 16
#define COMMIT_MASK ((1ull << 27) - 1)
#define MISSED_STORED (1ull << 30)

static long page_size(const char *page)
{
	unsigned long long commit;
	size_t size, room = TRACE_PAGE - PAGE_DATA;

	memcpy(&commit, page + 8, sizeof(commit));
	size = (size_t)(commit & COMMIT_MASK);
	if (size > room || ((commit & MISSED_STORED) && size + 8 > room))
		return -1;
	return (long)size;
}

/* Every record of one ring-buffer page of @cpu; the page's missed events. */
static long read_page(struct ftrace *t, struct kbuffer *kb, int cpu, char *page)
{
	unsigned long long ts;
	struct tep_record rec = { .cpu = cpu };
	struct tep_event *ev;
	long missed;
	void *data;

	if (page_size(page) < 0 || kbuffer_load_subbuffer(kb, page))
		die_at(EXIT_BAD_INPUT, t->path, 0, "cpu%d: a page kbuffer cannot load",
		       cpu);
	missed = kbuffer_missed_events(kb);
	for (data = kbuffer_read_event(kb, &ts); data;
	     data = kbuffer_next_event(kb, &ts)) {
		rec.ts = ts;
		rec.data = data;
		rec.size = kbuffer_event_size(kb);
		if (rec.size < 0 || (char *)data - page + rec.size > PAGE_DATA + page_size(page))
			die_at(EXIT_BAD_INPUT, t->path, 0,
			       "cpu%d: a record that runs past its page's data", cpu);
		ev = tep_find_event_by_record(t->tep, &rec);
		if (!ev)
			die_at(EXIT_BAD_INPUT, t->path, 0,
			       "cpu%d: a record of an event whose format was not shipped (id %d)",
			       cpu, tep_data_type(t->tep, &rec));
		add_record(t, cpu, &(struct ftrace_record){
			.cpu = cpu, .ts = ts, .system = ev->system,
			.name = ev->name, .data = data, .size = rec.size });
	}
	return missed;
}

static void read_pages(struct ftrace *t, int cpu, const struct shipped *f)
{
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	long missed = 0, m;

	if (!kb)
		die(EXIT_CAPTURE_FAILED, "out of memory");
	if (f->len % TRACE_PAGE)
		die_at(EXIT_CAPTURE_FAILED, t->path, 0,
		       "%s: %zu bytes, not whole pages of %d: events were lost",
		       f->path, f->len, TRACE_PAGE);
	for (size_t off = 0; off < f->len; off += TRACE_PAGE) {
		m = read_page(t, kb, cpu, f->bytes + off);
		/* -1: events were missed, the kernel did not say how many. */
		if (m)
			missed += m > 0 ? m : 1;
	}
	kbuffer_free(kb);
	if (missed)
		die_at(EXIT_CAPTURE_FAILED, t->path, 0,
		       "cpu%d: the ring buffer missed %ld events (pages marked by "
		       "the kernel): the trace buffer was too small", cpu, missed);
}

/* A stats line "KEY: N", or 0 if absent. */
static unsigned long long stat_value(const struct shipped *f, const char *key)
{
	char *text = xasprintf("%.*s", (int)f->len, f->bytes);
	char *at = strstr(text, key);
	unsigned long long v = 0;

	if (at && (at == text || at[-1] == '\n'))
		v = strtoull(at + strlen(key), NULL, 10);
	free(text);
	return v;
}

/* The buffer's own counts of what it lost. */
static void check_stats(const struct ftrace *t, int cpu, const struct shipped *f)
{
	unsigned long long overrun = stat_value(f, "overrun: ");
	unsigned long long commit = stat_value(f, "commit overrun: ");
	unsigned long long dropped = stat_value(f, "dropped events: ");

	if (overrun || commit || dropped)
		die_at(EXIT_CAPTURE_FAILED, t->path, 0,
		       "cpu%d: the ring buffer lost events: overrun %llu, commit "
		       "overrun %llu, dropped %llu (the trace buffer was too small)",
		       cpu, overrun, commit, dropped);
}

/*
 * The lines of an event's format file as the kernel writes them.
 * libtraceevent trusts what it parses (a bad field line made it follow a
 * NULL pointer; found by fuzzing), so anything else is refused before it
 * sees it.
 */
static const char *const format_lines[] = {
	"^name: [A-Za-z0-9_]+$",
	"^ID: [0-9]+$",
	"^format:$",
	"^$",
	"^\tfield:(\\*|\\*?[A-Za-z_][A-Za-z0-9_]*(\\[[0-9]*\\])?)"
	"( (\\*|\\*?[A-Za-z_][A-Za-z0-9_]*(\\[[0-9]*\\])?))*;"
	"\toffset:[0-9]+;\tsize:[0-9]+;\tsigned:[01];$",
	"^print fmt: [ -~]*$",
	NULL,
};

/* 0, or the first line of @f (1-based) that is no format line. */
static long bad_format_line(const struct shipped *f)
{
	static regex_t re[sizeof(format_lines) / sizeof(*format_lines)];
	static int compiled;
	const char *p = f->bytes, *end = f->bytes + f->len;
	long line = 1;

	for (int i = 0; !compiled && format_lines[i]; i++)
		if (regcomp(&re[i], format_lines[i], REG_EXTENDED | REG_NOSUB))
			die(EXIT_CAPTURE_FAILED, "cannot compile a format pattern");
	compiled = 1;
	if (memchr(p, '\0', f->len))
		return 1;
	for (; p < end; line++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *text = xmalloc(n + 1);
		int ok = 0;

		memcpy(text, p, n);
		text[n] = '\0';

		for (int i = 0; format_lines[i] && !ok; i++)
			ok = !regexec(&re[i], text, 0, NULL, 0);
		free(text);
		if (!ok)
			return line;
		p = nl ? nl + 1 : end;
	}
	return 0;
}

/*
 * An event's format for tep_parse_event() with its print format emptied:
 * only fields are read here, and libtraceevent evaluates the constant
 * arithmetic of a print format as it parses it, so a corrupt one (a
 * division by zero) killed the process with SIGFPE (found by fuzzing).
 */
static struct strbuf fields_only(const struct shipped *f)
{
	static const char key[] = "\nprint fmt:";
	struct strbuf sb = STRBUF_INIT;
	const char *at = memmem(f->bytes, f->len, key, sizeof(key) - 1);
	const char *end;

	if (!at) {
		strbuf_add(&sb, f->bytes, f->len);
		return sb;
	}
	end = memchr(at + 1, '\n', f->len - (size_t)(at + 1 - f->bytes));
	strbuf_add(&sb, f->bytes, (size_t)(at - f->bytes));
	strbuf_addstr(&sb, "\nprint fmt: \"\"\n");
	if (end)
		strbuf_add(&sb, end + 1, f->len - (size_t)(end + 1 - f->bytes));
	return sb;
}

static void take(struct ftrace *t, const struct shipped *f)
{
	char sys[128];
	int cpu, used = 0;

	if (!strcmp(f->path, "events/header_page")) {
		if (tep_parse_header_page(t->tep, f->bytes, f->len, 8))
			die_at(EXIT_BAD_INPUT, t->path, 0, "events/header_page does not parse");
	} else if (sscanf(f->path, "events/%127[^/]/%*[^/]/format%n", sys, &used) == 1 &&
		   !f->path[used]) {
		long line = bad_format_line(f);
		struct strbuf format;
		int bad;

		if (line)
			die_at(EXIT_BAD_INPUT, t->path, 0, "%s, line %ld: not a line of "
			       "an event format the kernel writes", f->path, line);
		format = fields_only(f);
		bad = tep_parse_event(t->tep, format.buf, format.len, sys);

		strbuf_release(&format);
		if (bad)
			die_at(EXIT_BAD_INPUT, t->path, 0, "%s does not parse", f->path);
	} else if (sscanf(f->path, "per_cpu/cpu%d/%n", &cpu, &used) == 1 &&
		   cpu >= 0 && cpu < MAX_CPUS) {
		if (cpu >= t->cpus)
			t->cpus = cpu + 1;
		if (!strcmp(f->path + used, "stats"))
			check_stats(t, cpu, f);
		else if (!strcmp(f->path + used, "trace_pipe_raw"))
			read_pages(t, cpu, f);
		else
			die_at(EXIT_BAD_INPUT, t->path, 0, "unexpected file %s", f->path);
	} else {
		die_at(EXIT_BAD_INPUT, t->path, 0, "unexpected file %s", f->path);
	}
}

struct ftrace *ftrace_open(const char *path)
{
	struct ftrace *t = xcalloc(1, sizeof(*t));
	struct shipped f;
	char line[64];
	size_t pos = 0;
	int files = 0;

	t->path = path;
	t->data = read_file(path, &t->len);
	if (!t->data || !t->len)
		die_at(EXIT_CAPTURE_FAILED, path, 0, "the trace channel is empty");
	if (!header_line(t, &pos, line, sizeof(line)) || strcmp(line, "CAPTURE TRACE"))
		die_at(EXIT_BAD_INPUT, path, 0, "not a trace channel (no CAPTURE TRACE)");
	t->tep = tep_alloc();
	if (!t->tep)
		die(EXIT_CAPTURE_FAILED, "out of memory");
	tep_set_file_bigendian(t->tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(t->tep, 8);
	tep_set_page_size(t->tep, TRACE_PAGE);
	/* Formats come before the pages in the channel: decode as it goes. */
	while (next_file(t, &pos, &f, files)) {
		take(t, &f);
		files++;
	}
	return t;
}

void ftrace_close(struct ftrace *t)
{
	for (int c = 0; c < MAX_CPUS; c++)
		free(t->cpu[c].r);
	tep_free(t->tep);
	free(t->data);
	free(t);
}

int ftrace_cpus(const struct ftrace *t)
{
	return t->cpus;
}

const struct ftrace_record *ftrace_records(const struct ftrace *t, int cpu,
					   size_t *n)
{
	*n = t->cpu[cpu].n;
	return t->cpu[cpu].r;
}

static struct tep_event *event_of(const struct ftrace *t,
				  const struct ftrace_record *r,
				  struct tep_record *rec)
{
	*rec = (struct tep_record){ .cpu = r->cpu, .ts = r->ts, .data = r->data,
				    .size = r->size };
	return tep_find_event_by_record(t->tep, rec);
}

unsigned long long ftrace_num(const struct ftrace *t,
			      const struct ftrace_record *r, const char *field)
{
	struct tep_record rec;
	struct tep_event *ev = event_of(t, r, &rec);
	unsigned long long v;

	if (tep_get_field_val(NULL, ev, field, &rec, &v, 0))
		die_at(EXIT_BAD_INPUT, t->path, 0, "%s:%s has no field %s",
		       r->system, r->name, field);
	return v;
}

char *ftrace_str(const struct ftrace *t, const struct ftrace_record *r,
		 const char *field)
{
	struct tep_record rec;
	struct tep_event *ev = event_of(t, r, &rec);
	int len = 0;
	const char *v = tep_get_field_raw(NULL, ev, field, &rec, &len, 0);

	if (!v)
		die_at(EXIT_BAD_INPUT, t->path, 0, "%s:%s has no field %s",
		       r->system, r->name, field);
	return xasprintf("%.*s", (int)strnlen(v, len), v);
}

int ftrace_is(const char *path)
{
	static const char magic[] = "CAPTURE TRACE\n";
	char head[sizeof(magic) - 1];
	FILE *f = fopen(path, "rb");
	int is = f && fread(head, 1, sizeof(head), f) == sizeof(head) &&
		 !memcmp(head, magic, sizeof(head));

	if (f)
		fclose(f);
	return is;
}

void ftrace_cross_check(const char *trace, const char *json, const char *plain,
			size_t len)
{
	size_t n, i, line = 1;
	char *text = read_file(json, &n);

	if (!text)
		die_at(EXIT_CAPTURE_FAILED, json, 0, "cannot read the JSON channel");
	for (i = 0; i < n && i < len && text[i] == plain[i]; i++)
		line += text[i] == '\n';
	if (i < n || i < len)
		die_at(EXIT_CAPTURE_FAILED, json, (long)line,
		       "the JSON channel and the trace channel (%s) disagree", trace);
	free(text);
}

int ftrace_is_event(const struct ftrace_record *r, const char *system,
		    const char *event)
{
	return !strcmp(r->system, system) && !strcmp(r->name, event);
}

const struct ftrace_record *ftrace_only(const struct ftrace *t, const char *system,
					const char *event)
{
	const struct ftrace_record *only = NULL;

	for (int c = 0; c < t->cpus; c++)
		for (size_t i = 0; i < t->cpu[c].n; i++) {
			const struct ftrace_record *r = &t->cpu[c].r[i];

			if (!ftrace_is_event(r, system, event))
				continue;
			if (only)
				die_at(EXIT_CHECK_FAILED, t->path, 0, "two %s:%s events",
				       system, event);
			only = r;
		}
	if (!only)
		die_at(EXIT_CAPTURE_FAILED, t->path, 0,
		       "no %s:%s event in the trace: events were lost", system, event);
	return only;
}

static _Noreturn void lost_seq(const struct ftrace *t, const char *end_event,
			       size_t n, size_t lost)
{
	die_at(EXIT_CAPTURE_FAILED, t->path, 0,
	       "%s counted %zu events, %zu of them are not in the trace: "
	       "events were lost", end_event, n, lost);
}

const struct ftrace_record **ftrace_by_seq(const struct ftrace *t, const char *system,
					   const char *event, const char *end_event,
					   size_t n)
{
	const struct ftrace_record **by_seq;
	size_t found = 0, lost = 0;

	for (int c = 0; c < t->cpus; c++)
		for (size_t i = 0; i < t->cpu[c].n; i++)
			found += ftrace_is_event(&t->cpu[c].r[i], system, event);
	/* a count beyond the records there are gets no table of its size */
	if (n > found)
		lost_seq(t, end_event, n, n - found);
	by_seq = xcalloc(n ? n : 1, sizeof(*by_seq));
	for (int c = 0; c < t->cpus; c++)
		for (size_t i = 0; i < t->cpu[c].n; i++) {
			const struct ftrace_record *r = &t->cpu[c].r[i];
			unsigned long long seq;

			if (!ftrace_is_event(r, system, event))
				continue;
			seq = ftrace_num(t, r, "seq");
			if (seq >= n)
				die_at(EXIT_CHECK_FAILED, t->path, 0,
				       "%s seq %llu after %s counted %zu", event, seq,
				       end_event, n);
			if (by_seq[seq])
				die_at(EXIT_CHECK_FAILED, t->path, 0,
				       "two %s events of seq %llu", event, seq);
			by_seq[seq] = r;
		}
	for (size_t s = 0; s < n; s++)
		lost += !by_seq[s];
	if (lost)
		lost_seq(t, end_event, n, lost);
	return by_seq;
}

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
#include "../die.h"
#include "../err.h"
#include "../json.h"
#include "../proc.h"
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

static int truncated(const struct ftrace *t, size_t at, struct cap_err *err)
{
	return cap_fail_at(err, EXIT_CAPTURE_FAILED, t->path, 0,
			   "the trace channel stops at byte %zu of its framing without "
			   "CAPTURE TRACE END: events were lost", at);
}

/* The header line at *@pos (without its newline): 1, 0 at the end, -1 and @err. */
static int header_line(struct ftrace *t, size_t *pos, char *line, size_t size,
		       struct cap_err *err)
{
	const char *nl = memchr(t->data + *pos, '\n', t->len - *pos);
	size_t n;

	if (*pos == t->len)
		return 0;
	if (!nl)
		return truncated(t, *pos, err);
	n = nl - (t->data + *pos);
	if (n >= size)
		return cap_fail_at(err, EXIT_BAD_INPUT, t->path, 0,
				   "byte %zu: a framing line of %zu bytes", *pos, n);
	memcpy(line, t->data + *pos, n);
	line[n] = '\0';
	*pos += n + 1;
	return 1;
}

/* The end marker at @line, after @files files: 0, or -1 and @err. */
static int trace_end(struct ftrace *t, size_t pos, int count, int files,
		     struct cap_err *err)
{
	if (count != files)
		return cap_fail_at(err, EXIT_CAPTURE_FAILED, t->path, 0,
				   "the guest shipped %d trace files, %d arrived",
				   count, files);
	if (pos != t->len)
		return cap_fail_at(err, EXIT_BAD_INPUT, t->path, 0,
				   "%zu bytes after CAPTURE TRACE END", t->len - pos);
	return 0;
}

/* The next FILE at *@pos: 1; 0 at the end marker (its count checked); -1 and @err. */
static int next_file(struct ftrace *t, size_t *pos, struct shipped *f,
		     int files, struct cap_err *err)
{
	char line[320];
	int count, used = 0, got = header_line(t, pos, line, sizeof(line), err);

	if (got <= 0)
		return got ? -1 : truncated(t, *pos, err);
	if (sscanf(line, "CAPTURE TRACE END %d%n", &count, &used) == 1 &&
	    !line[used])
		return trace_end(t, *pos, count, files, err);
	if (sscanf(line, "FILE %255s %zu%n", f->path, &f->len, &used) != 2 ||
	    line[used])
		return cap_fail_at(err, EXIT_BAD_INPUT, t->path, 0,
				   "byte %zu: expected FILE <path> <length>, not \"%.40s\"",
				   *pos - strlen(line) - 1, line);
	if (f->len > t->len - *pos)
		return truncated(t, *pos, err);
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

/*
 * Every record of one ring-buffer page of @cpu; the page's missed events
 * into *@missed.  -1 and @err if the page is broken.
 */
static int read_page(struct ftrace *t, struct kbuffer *kb, int cpu, char *page,
		     long *missed, struct cap_err *err)
{
	unsigned long long ts;
	struct tep_record rec = { .cpu = cpu };
	struct tep_event *ev;
	void *data;

	if (page_size(page) < 0 || kbuffer_load_subbuffer(kb, page))
		return cap_fail_at(err, EXIT_BAD_INPUT, t->path, 0,
				   "cpu%d: a page kbuffer cannot load", cpu);
	*missed = kbuffer_missed_events(kb);
	for (data = kbuffer_read_event(kb, &ts); data;
	     data = kbuffer_next_event(kb, &ts)) {
		rec.ts = ts;
		rec.data = data;
		rec.size = kbuffer_event_size(kb);
		if (rec.size < 0 || (char *)data - page + rec.size > PAGE_DATA + page_size(page))
			return cap_fail_at(err, EXIT_BAD_INPUT, t->path, 0,
					   "cpu%d: a record that runs past its page's data", cpu);
		ev = tep_find_event_by_record(t->tep, &rec);
		if (!ev)
			return cap_fail_at(err, EXIT_BAD_INPUT, t->path, 0,
					   "cpu%d: a record of an event "
					   "whose format was not shipped (id %d)",
					   cpu, tep_data_type(t->tep, &rec));
		add_record(t, cpu, &(struct ftrace_record){
			.cpu = cpu, .ts = ts, .system = ev->system,
			.name = ev->name, .data = data, .size = rec.size });
	}
	return 0;
}

static int read_pages(struct ftrace *t, int cpu, const struct shipped *f,
		      struct cap_err *err)
{
	struct kbuffer *kb;
	long missed = 0, m = 0;
	int ret = 0;

	if (f->len % TRACE_PAGE)
		return cap_fail_at(err, EXIT_CAPTURE_FAILED, t->path, 0,
				   "%s: %zu bytes, not whole pages of %d: events were lost",
				   f->path, f->len, TRACE_PAGE);
	kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	if (!kb)
		die(EXIT_CAPTURE_FAILED, "out of memory");
	for (size_t off = 0; off < f->len && !ret; off += TRACE_PAGE) {
		ret = read_page(t, kb, cpu, f->bytes + off, &m, err);
		/* -1: events were missed, the kernel did not say how many. */
		if (!ret && m)
			missed += m > 0 ? m : 1;
	}
	kbuffer_free(kb);
	if (!ret && missed)
		ret = cap_fail_at(err, EXIT_CAPTURE_FAILED, t->path, 0,
				  "cpu%d: the ring buffer missed %ld events (pages marked by "
				  "the kernel): the trace buffer was too small", cpu, missed);
	return ret;
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

/* The buffer's own counts of what it lost: 0, or -1 and @err if any. */
static int check_stats(const struct ftrace *t, int cpu, const struct shipped *f,
		       struct cap_err *err)
{
	unsigned long long overrun = stat_value(f, "overrun: ");
	unsigned long long commit = stat_value(f, "commit overrun: ");
	unsigned long long dropped = stat_value(f, "dropped events: ");

	if (overrun || commit || dropped)
		return cap_fail_at(err, EXIT_CAPTURE_FAILED, t->path, 0,
				   "cpu%d: the ring buffer lost events: overrun %llu, commit "
				   "overrun %llu, dropped %llu (the trace buffer was too small)",
				   cpu, overrun, commit, dropped);
	return 0;
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

/*
 * 0, or the first line of @f (1-based) that is no format line; -1 and
 * @err if the patterns do not compile.
 */
static long bad_format_line(const struct shipped *f, struct cap_err *err)
{
	static regex_t re[sizeof(format_lines) / sizeof(*format_lines)];
	static int compiled;
	const char *p = f->bytes, *end = f->bytes + f->len;
	long line = 1;

	for (int i = 0; !compiled && format_lines[i]; i++)
		if (regcomp(&re[i], format_lines[i], REG_EXTENDED | REG_NOSUB))
			return cap_fail(err, EXIT_CAPTURE_FAILED,
					"cannot compile a format pattern");
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

/* An event's format, refused unless it is as the kernel writes it. */
static int take_format(struct ftrace *t, const struct shipped *f,
		       const char *sys, struct cap_err *err)
{
	long line = bad_format_line(f, err);
	struct strbuf format;
	int failed;

	if (line < 0)
		return -1;
	if (line)
		return cap_fail_at(err, EXIT_BAD_INPUT, t->path, 0,
				   "%s, line %ld: not a line of "
				   "an event format the kernel writes", f->path, line);
	format = fields_only(f);
	failed = tep_parse_event(t->tep, format.buf, format.len, sys);
	strbuf_release(&format);
	if (failed)
		return cap_fail_at(err, EXIT_BAD_INPUT, t->path, 0,
				   "%s does not parse", f->path);
	return 0;
}

static int take(struct ftrace *t, const struct shipped *f, struct cap_err *err)
{
	char sys[128];
	int cpu, used = 0;

	if (!strcmp(f->path, "events/header_page")) {
		if (tep_parse_header_page(t->tep, f->bytes, f->len, 8))
			return cap_fail_at(err, EXIT_BAD_INPUT, t->path, 0,
					   "events/header_page does not parse");
		return 0;
	}
	if (sscanf(f->path, "events/%127[^/]/%*[^/]/format%n", sys, &used) == 1 &&
	    !f->path[used])
		return take_format(t, f, sys, err);
	if (sscanf(f->path, "per_cpu/cpu%d/%n", &cpu, &used) == 1 &&
	    cpu >= 0 && cpu < MAX_CPUS) {
		if (cpu >= t->cpus)
			t->cpus = cpu + 1;
		if (!strcmp(f->path + used, "stats"))
			return check_stats(t, cpu, f, err);
		if (!strcmp(f->path + used, "trace_pipe_raw"))
			return read_pages(t, cpu, f, err);
	}
	return cap_fail_at(err, EXIT_BAD_INPUT, t->path, 0,
			   "unexpected file %s", f->path);
}

/* The channel's framing line, then its files, decoded as they come. */
static int decode(struct ftrace *t, struct cap_err *err)
{
	struct shipped f;
	char line[64];
	size_t pos = 0;
	int files = 0, more;

	if (!t->data || !t->len)
		return cap_fail_at(err, EXIT_CAPTURE_FAILED, t->path, 0,
				   "the trace channel is empty");
	more = header_line(t, &pos, line, sizeof(line), err);
	if (more < 0)
		return -1;
	if (!more || strcmp(line, "CAPTURE TRACE"))
		return cap_fail_at(err, EXIT_BAD_INPUT, t->path, 0,
				   "not a trace channel (no CAPTURE TRACE)");
	t->tep = tep_alloc();
	if (!t->tep)
		die(EXIT_CAPTURE_FAILED, "out of memory");
	tep_set_file_bigendian(t->tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(t->tep, 8);
	tep_set_page_size(t->tep, TRACE_PAGE);
	/* Formats come before the pages in the channel: decode as it goes. */
	while ((more = next_file(t, &pos, &f, files, err)) > 0) {
		if (take(t, &f, err))
			return -1;
		files++;
	}
	return more;
}

struct ftrace *ftrace_open(const char *path, struct cap_err *err)
{
	struct ftrace *t = xcalloc(1, sizeof(*t));

	t->path = path;
	t->data = read_file(path, &t->len);
	if (decode(t, err)) {
		ftrace_close(t);
		return NULL;
	}
	return t;
}

void ftrace_close(struct ftrace *t)
{
	for (int c = 0; c < MAX_CPUS; c++)
		free(t->cpu[c].r);
	if (t->tep)
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

int ftrace_num(const struct ftrace *t, const struct ftrace_record *r,
	       const char *field, unsigned long long *v, struct cap_err *err)
{
	struct tep_record rec;
	struct tep_event *ev = event_of(t, r, &rec);

	if (tep_get_field_val(NULL, ev, field, &rec, v, 0))
		return cap_fail_at(err, EXIT_BAD_INPUT, t->path, 0,
				   "%s:%s has no field %s",
				   r->system, r->name, field);
	return 0;
}

char *ftrace_str(const struct ftrace *t, const struct ftrace_record *r,
		 const char *field, struct cap_err *err)
{
	struct tep_record rec;
	struct tep_event *ev = event_of(t, r, &rec);
	int len = 0;
	const char *v = tep_get_field_raw(NULL, ev, field, &rec, &len, 0);

	if (!v) {
		cap_fail_at(err, EXIT_BAD_INPUT, t->path, 0,
			    "%s:%s has no field %s", r->system,
			    r->name, field);
		return NULL;
	}
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

int ftrace_cross_check(const char *trace, const char *json, const char *plain,
		       size_t len, struct cap_err *err)
{
	size_t n, i, line = 1;
	char *text = read_file(json, &n);

	if (!text)
		return cap_fail_at(err, EXIT_CAPTURE_FAILED, json, 0,
				   "cannot read the JSON channel");
	for (i = 0; i < n && i < len && text[i] == plain[i]; i++)
		line += text[i] == '\n';
	free(text);
	if (i < n || i < len)
		return cap_fail_at(err, EXIT_CAPTURE_FAILED, json, (long)line,
				   "the JSON channel and the trace channel (%s) "
				   "disagree", trace);
	return 0;
}

int ftrace_is_event(const struct ftrace_record *r, const char *system,
		    const char *event)
{
	return !strcmp(r->system, system) && !strcmp(r->name, event);
}

const struct ftrace_record *ftrace_only(const struct ftrace *t, const char *system,
					const char *event, struct cap_err *err)
{
	const struct ftrace_record *only = NULL;

	for (int c = 0; c < t->cpus; c++)
		for (size_t i = 0; i < t->cpu[c].n; i++) {
			const struct ftrace_record *r = &t->cpu[c].r[i];

			if (!ftrace_is_event(r, system, event))
				continue;
			if (only) {
				cap_fail_at(err, EXIT_CHECK_FAILED, t->path, 0,
					    "two %s:%s events",
					    system, event);
				return NULL;
			}
			only = r;
		}
	if (!only)
		cap_fail_at(err, EXIT_CAPTURE_FAILED, t->path, 0,
			    "no %s:%s event in the trace: events were lost", system, event);
	return only;
}

static int lost_seq(const struct ftrace *t, const char *end_event, size_t n,
		    size_t lost, struct cap_err *err)
{
	return cap_fail_at(err, EXIT_CAPTURE_FAILED, t->path, 0,
			   "%s counted %zu events, %zu of them are not in the trace: "
			   "events were lost", end_event, n, lost);
}

/* Record @r of seq @seq into @by_seq (of @n): 0, or -1 and @err. */
static int place(const struct ftrace *t, const struct ftrace_record **by_seq,
		 size_t n, const struct ftrace_record *r, const char *end_event,
		 struct cap_err *err)
{
	unsigned long long seq;

	if (ftrace_num(t, r, "seq", &seq, err))
		return -1;
	if (seq >= n)
		return cap_fail_at(err, EXIT_CHECK_FAILED, t->path, 0,
				   "%s seq %llu after %s counted %zu",
				   r->name, seq, end_event, n);
	if (by_seq[seq])
		return cap_fail_at(err, EXIT_CHECK_FAILED, t->path, 0,
				   "two %s events of seq %llu",
				   r->name, seq);
	by_seq[seq] = r;
	return 0;
}

const struct ftrace_record **ftrace_by_seq(const struct ftrace *t, const char *system,
					   const char *event, const char *end_event,
					   size_t n, struct cap_err *err)
{
	const struct ftrace_record **by_seq;
	size_t found = 0, lost = 0;
	int failed = 0;

	for (int c = 0; c < t->cpus; c++)
		for (size_t i = 0; i < t->cpu[c].n; i++)
			found += ftrace_is_event(&t->cpu[c].r[i], system, event);
	/* a count beyond the records there are gets no table of its size */
	if (n > found) {
		lost_seq(t, end_event, n, n - found, err);
		return NULL;
	}
	by_seq = xcalloc(n ? n : 1, sizeof(*by_seq));
	for (int c = 0; c < t->cpus && !failed; c++)
		for (size_t i = 0; i < t->cpu[c].n && !failed; i++)
			if (ftrace_is_event(&t->cpu[c].r[i], system, event))
				failed = place(t, by_seq, n, &t->cpu[c].r[i],
					       end_event, err);
	for (size_t s = 0; s < n && !failed; s++)
		lost += !by_seq[s];
	if (!failed && lost)
		failed = lost_seq(t, end_event, n, lost, err);
	if (failed) {
		free(by_seq);
		return NULL;
	}
	return by_seq;
}

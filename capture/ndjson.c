// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "die.h"
#include "err.h"
#include "json.h"
#include "ndjson.h"
#include "proc.h"

int line_reader_try_open_as(struct line_reader *r, const char *path,
			    const char *name, struct cap_err *err)
{
	memset(r, 0, sizeof(*r));
	r->path = name;
	if (strcmp(path, "-") && device_refused(path, name, err))
		return -1;
	r->f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	if (!r->f)
		return cap_fail_at(err, EXIT_BAD_INPUT, name, 0, "cannot open: %s",
				   strerror(errno));
	/*
	 * stdio's default 4 KiB means a read(2) per few lines; setvbuf()
	 * ignores a size without a buffer.  Not stdin's: it outlives us.
	 */
	if (r->f != stdin) {
		r->iobuf = xmalloc(LINE_READER_BUFFER);
		setvbuf(r->f, r->iobuf, _IOFBF, LINE_READER_BUFFER);
	}
	return 0;
}

void line_reader_open_as(struct line_reader *r, const char *path,
			 const char *name)
{
	struct cap_err err;

	if (line_reader_try_open_as(r, path, name, &err))
		die_err(&err);
}

void line_reader_open(struct line_reader *r, const char *path)
{
	line_reader_open_as(r, path, path);
}

/* The next line into *line (NULL at end of file); -1 on a read error. */
static int next_line(struct line_reader *r, const char **line)
{
	ssize_t n = getline(&r->buf, &r->alloc, r->f);

	*line = NULL;
	if (n < 0)
		return ferror(r->f) ? -1 : 0;
	r->line++;
	r->truncated = !(n > 0 && r->buf[n - 1] == '\n');
	while (n > 0 && (r->buf[n - 1] == '\n' || r->buf[n - 1] == '\r'))
		r->buf[--n] = '\0';
	r->len = n;
	*line = r->buf;
	return 0;
}

int line_reader_try_next(struct line_reader *r, const char **line,
			 struct cap_err *err)
{
	if (next_line(r, line))
		return cap_fail_at(err, EXIT_BAD_INPUT, r->path, r->line + 1,
				   "read error: %s", strerror(errno));
	return 0;
}

const char *line_reader_next(struct line_reader *r)
{
	struct cap_err err;
	const char *line;

	if (line_reader_try_next(r, &line, &err))
		die_err(&err);
	return line;
}

void line_reader_close(struct line_reader *r)
{
	if (r->f && r->f != stdin)
		fclose(r->f);
	free(r->iobuf);
	r->iobuf = NULL;
	free(r->buf);
	r->f = NULL;
	r->buf = NULL;
}

static int bad_line(struct ndjson_error *e, long line, const char *msg)
{
	e->line = line;
	snprintf(e->msg, sizeof(e->msg), "%s", msg);
	return -1;
}

/* Only spaces and tabs (strspn() costs more than a trace's lines do). */
static int blank(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] != ' ' && s[i] != '\t')
			return 0;
	return 1;
}

/*
 * The next line that is not blank into *line (NULL at end of file), -1 on
 * a read error.
 */
static int next_record_line(struct line_reader *r, const char **line,
			    struct ndjson_error *e)
{
	for (;;) {
		if (next_line(r, line)) {
			e->line = r->line + 1;
			snprintf(e->msg, sizeof(e->msg), "read error: %s",
				 strerror(errno));
			return -1;
		}
		if (!*line || !blank(*line, r->len))
			return 0;
	}
}

/*
 * A line that is not JSON (@why at byte @at, if known): it may be a last
 * line cut short.
 */
static int not_json(struct ndjson_error *e, const struct line_reader *r,
		    const char *why, size_t at)
{
	e->line = r->line;
	if (r->truncated)
		snprintf(e->msg, sizeof(e->msg),
			 "truncated JSON line (no newline at end of file)");
	else if (why)
		snprintf(e->msg, sizeof(e->msg), "%s (byte %zu)", why, at + 1);
	else
		snprintf(e->msg, sizeof(e->msg), "not a JSON value");
	return -1;
}

static int parse_next(struct line_reader *r, cJSON **out,
		      struct ndjson_error *e)
{
	const char *line, *end = NULL, *why;
	cJSON *v;

	*out = NULL;
	if (next_record_line(r, &line, e))
		return -1;
	if (!line)
		return 0;
	/* after the value, JSON's whitespace, as the tokens reader allows */
	v = cJSON_ParseWithLengthOpts(line, r->len, &end, 0);
	if (!v || strspn(end, " \t\r") != strlen(end)) {
		cJSON_Delete(v);
		return not_json(e, r, NULL, 0);
	}
	if (r->truncated) {
		cJSON_Delete(v);
		return bad_line(e, r->line,
				"truncated last line (no newline at end of file)");
	}
	if ((why = json_check_record(v))) {
		cJSON_Delete(v);
		return bad_line(e, r->line, why);
	}
	*out = v;
	return 0;
}

int ndjson_try_next(struct line_reader *r, cJSON **out, struct cap_err *err)
{
	struct ndjson_error e;

	if (parse_next(r, out, &e))
		return cap_fail_at(err, EXIT_BAD_INPUT, r->path, e.line, "%s", e.msg);
	return 0;
}

cJSON *ndjson_next(struct line_reader *r)
{
	struct cap_err err;
	cJSON *v;

	if (ndjson_try_next(r, &v, &err))
		die_err(&err);
	return v;
}

/*
 * Arenas are slabs of one reserved region, so that the free hook tells an
 * arena node from a heap one by its address alone.  What does not fit in
 * a slab (or finds no free slab) comes from the heap and is freed as usual.
 */
#define SLAB_SIZE ((size_t)1 << 16)
#define SLABS 4096
/* GCC says so with __SANITIZE_ADDRESS__, clang with __has_feature. */
#ifndef __has_feature
#define __has_feature(x) 0
#endif
#if defined(__SANITIZE_ADDRESS__) || __has_feature(address_sanitizer)
#define HEAP_ONLY 1
#else
#define HEAP_ONLY 0
#endif

struct json_arena {
	char *base;     /* NULL: no slab, everything from the heap */
	size_t used;
	int slab;
	int spilled;    /* a node of the last tree came from the heap */
};

static char *pool;
static unsigned char slab_taken[SLABS];
static _Thread_local struct json_arena *parsing;

static void *arena_malloc(size_t n)
{
	struct json_arena *a = parsing;

	n = (n + 15) & ~(size_t)15;
	if (a && a->base && SLAB_SIZE - a->used >= n) {
		void *p = a->base + a->used;

		a->used += n;
		return p;
	}
	if (a)
		a->spilled = 1;
	return malloc(n);
}

static void arena_free(void *p)
{
	if (pool && (char *)p >= pool && (char *)p < pool + SLABS * SLAB_SIZE)
		return;
	free(p);
}

static int reserve_pool(void)
{
	static cJSON_Hooks hooks = { arena_malloc, arena_free };
	void *p;

	if (HEAP_ONLY)
		return -1;
	if (pool)
		return 0;
	p = mmap(NULL, SLABS * SLAB_SIZE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	pool = p;
	cJSON_InitHooks(&hooks);
	return 0;
}

struct json_arena *json_arena_new(void)
{
	struct json_arena *a = xcalloc(1, sizeof(*a));

	a->slab = -1;
	if (reserve_pool())
		return a;
	for (int i = 0; i < SLABS; i++) {
		if (slab_taken[i])
			continue;
		slab_taken[i] = 1;
		a->slab = i;
		a->base = pool + i * SLAB_SIZE;
		break;
	}
	return a;
}

void json_arena_free(struct json_arena *a)
{
	if (a && a->slab >= 0)
		slab_taken[a->slab] = 0;
	free(a);
}

static void arena_reset(struct json_arena *a)
{
	a->used = 0;
	a->spilled = 0;
	parsing = a;
}

cJSON *ndjson_next_in(struct line_reader *r, struct json_arena *a)
{
	cJSON *v;

	arena_reset(a);
	v = ndjson_next(r);
	parsing = NULL;
	return v;
}

void json_arena_delete(struct json_arena *a, cJSON *tree)
{
	if (a->spilled || !a->base)
		cJSON_Delete(tree);
}

int ndjson_try_next_tokens(struct line_reader *r, struct strbuf *text,
			   struct json_tokens *t, struct ndjson_error *e)
{
	const char *line, *why;
	size_t at;

	if (next_record_line(r, &line, e))
		return -1;
	if (!line)
		return 0;
	/*
	 * The line becomes @text's and @text's buffer the reader's, for its
	 * next line: the tokens point into a buffer no read overwrites, and
	 * the line is not copied to get there.
	 */
	char *buf = text->buf;
	size_t alloc = text->alloc;

	*text = (struct strbuf){ .buf = r->buf, .len = r->len, .alloc = r->alloc };
	r->buf = buf;
	r->alloc = alloc;
	why = json_tokenize(t, line, r->len, &at);
	if (why)
		return not_json(e, r, why, at);
	if (r->truncated)
		return bad_line(e, r->line,
				"truncated last line (no newline at end of file)");
	return 1;
}

int ndjson_try_natural(const struct line_reader *r, const cJSON *obj,
		       const char *key, long long *v, struct cap_err *err)
{
	if (json_get_int(obj, key, v) || *v < 0)
		return cap_fail_at(err, EXIT_BAD_INPUT, r->path, r->line,
				   "event without a natural number \"%s\"", key);
	return 0;
}

long long ndjson_natural(const struct line_reader *r, const cJSON *obj,
			 const char *key)
{
	struct cap_err err;
	long long v;

	if (ndjson_try_natural(r, obj, key, &v, &err))
		die_err(&err);
	return v;
}

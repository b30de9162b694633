// SPDX-License-Identifier: MIT
/*
 * Probe specs for `capture go` (format: docs/go.md).  One line a statement,
 * so that every refusal names its exact file:line:
 *
 *   func SYMBOL            a function to probe
 *   entry EVENT            its entry becomes event EVENT
 *   return EVENT           each of its returns becomes event EVENT
 *   entry TABLE by FIELD   ... the event TABLE names FIELD's value ("-": none)
 *   FIELD TYPE EXPR        a field of the last event: EXPR read as TYPE
 *                          (bool, i8 ... i64, u8 ... u64, or a table of
 *                          names); EXPR[:N]... reads at most N elements
 *                          of a slice; "... or N": N where EXPR is nil
 *   names TABLE NAME...    value i is written as the i-th NAME ("-": none)
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../die.h"
#include "../json.h"
#include "../ndjson.h"
#include "../../bpf/goexpr.h"
#include "go-spec.h"

#define MAX_FUNCS 64
#define MAX_FIELDS GP_MAX_READS
#define MAX_PROCS 4096
#define MAX_TABLES 32
#define MAX_WORDS 66            /* names TABLE and 64 names */

/* A table of names: value i is name[i] ("-": no name). */
struct table {
	char *name;
	char **names;
	int n;
};

struct field {
	char *name;
	long line;
	enum go_kind kind;
	int size;
	int slot;               /* first read */
	int count;              /* 0: one value; N: at most N elements */
	int len_slot;           /* the slice's length, when count */
	int star;               /* *EXPR: the value EXPR points to */
	char *expr;             /* before [:N] when count */
	char *rest;             /* after [:N] */
	const struct table *table;  /* values written as its names */
	int has_default;        /* or N: a nil read is N */
	unsigned long long def;
};

struct site {
	char *event;            /* or the table naming it by a field's value */
	const struct table *by_table;
	char *by_name;
	int by_field;
	long *by_count;         /* events per table entry */
	long line;
	int at_exit;
	struct field field[MAX_FIELDS];
	int nfields;
	struct gp_site gp;
	long count;
};

struct func {
	char *name;
	long line;
	struct site *entry, *exit;
};

struct go_spec {
	const char *path;
	struct func func[MAX_FUNCS];
	int nfuncs;
	struct table table[MAX_TABLES];
	int ntables;
	struct site *by_id[GP_MAX_SITES];
	FILE *raw, *events;
	unsigned pid[MAX_PROCS];
	int nprocs;
	long records;
	char *error;
	struct strbuf line;
};

static int is_name(const char *s)
{
	if (!*s || !(isalpha((unsigned char)*s) || *s == '_'))
		return 0;
	while (*++s)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return 0;
	return 1;
}

static const struct { const char *name; enum go_kind kind; int size; } types[] = {
	{ "bool", GO_KIND_BOOL, 1 },
	{ "i8", GO_KIND_SIGNED, 1 }, { "i16", GO_KIND_SIGNED, 2 },
	{ "i32", GO_KIND_SIGNED, 4 }, { "i64", GO_KIND_SIGNED, 8 },
	{ "u8", GO_KIND_UNSIGNED, 1 }, { "u16", GO_KIND_UNSIGNED, 2 },
	{ "u32", GO_KIND_UNSIGNED, 4 }, { "u64", GO_KIND_UNSIGNED, 8 },
};
#define NTYPES (sizeof(types) / sizeof(types[0]))

static const char *type_label(enum go_kind kind, int size)
{
	for (size_t i = 0; i < NTYPES; i++)
		if (types[i].kind == kind && types[i].size == size)
			return types[i].name;
	return "?";
}

/* EXPR[:N]REST: split at the one slice range, if any. */
static void split_range(struct go_spec *s, long line, struct field *f,
			const char *expr)
{
	const char *r = strstr(expr, "[:");
	char *end;

	f->star = *expr == '*';
	f->expr = xstrdup(expr + f->star);
	if (!r)
		return;
	f->count = (int)strtol(r + 2, &end, 10);
	if (end == r + 2 || *end != ']' || f->count < 1 || f->count > MAX_FIELDS)
		die_at(EXIT_BAD_INPUT, s->path, line,
		       "%s: expected [:N] with N from 1 to %d", expr, MAX_FIELDS);
	if (strstr(end, "[:"))
		die_at(EXIT_BAD_INPUT, s->path, line, "%s: one [:N] a field", expr);
	f->expr[r - expr - f->star] = 0;
	f->rest = xstrdup(end + 1);
}

static const struct table *find_table(struct go_spec *s, const char *name)
{
	for (int i = 0; i < s->ntables; i++)
		if (!strcmp(s->table[i].name, name))
			return &s->table[i];
	return NULL;
}

/* "or N" after a field's expression: N (or true, false) where it is nil. */
static void add_default(struct go_spec *s, long line, struct field *f,
			char **tok)
{
	char *end;

	if (strcmp(tok[0], "or"))
		die_at(EXIT_BAD_INPUT, s->path, line, "'%s': expected 'or VALUE'", tok[0]);
	f->has_default = 1;
	if (f->kind == GO_KIND_BOOL && !f->table &&
	    (!strcmp(tok[1], "true") || !strcmp(tok[1], "false"))) {
		f->def = !strcmp(tok[1], "true");
		return;
	}
	f->def = strtoull(tok[1], &end, 0);
	if (*end || f->kind == GO_KIND_BOOL || *tok[1] == '-')
		die_at(EXIT_BAD_INPUT, s->path, line,
		       "or %s: a default is a number of the field's type (or true, false)",
		       tok[1]);
}

static void add_field(struct go_spec *s, struct site *site, long line,
		      char **tok, int ntok)
{
	struct field *f;
	size_t t;

	if (ntok != 3 && ntok != 5)
		die_at(EXIT_BAD_INPUT, s->path, line,
		       "a field is NAME TYPE EXPR [or VALUE] (%d words here)", ntok);
	if (!is_name(tok[0]) || !strcmp(tok[0], "event") || !strcmp(tok[0], "proc"))
		die_at(EXIT_BAD_INPUT, s->path, line,
		       "field name '%s': a Go-like identifier other than event and proc",
		       tok[0]);
	for (int i = 0; i < site->nfields; i++)
		if (!strcmp(site->field[i].name, tok[0]))
			die_at(EXIT_BAD_INPUT, s->path, line,
			       "field %s already in event %s (line %ld)", tok[0],
			       site->event, site->field[i].line);
	for (t = 0; t < NTYPES && strcmp(types[t].name, tok[1]); t++)
		;
	if (t == NTYPES && !find_table(s, tok[1]))
		die_at(EXIT_BAD_INPUT, s->path, line,
		       "type '%s': one of bool, i8, i16, i32, i64, u8, u16, u32, u64, or a names table defined above",
		       tok[1]);
	if (site->nfields == MAX_FIELDS)
		die_at(EXIT_BAD_INPUT, s->path, line, "more than %d fields", MAX_FIELDS);
	f = &site->field[site->nfields++];
	f->name = xstrdup(tok[0]);
	f->line = line;
	if (t == NTYPES) {
		f->table = find_table(s, tok[1]);
		f->kind = GO_KIND_UNSIGNED;
	} else {
		f->kind = types[t].kind;
		f->size = types[t].size;
	}
	split_range(s, line, f, tok[2]);
	if (ntok == 5)
		add_default(s, line, f, tok + 3);
}

static void add_table(struct go_spec *s, long line, char **tok, int ntok)
{
	struct table *t;

	if (ntok < 3 || ntok > MAX_WORDS || !is_name(tok[1]))
		die_at(EXIT_BAD_INPUT, s->path, line,
		       "expected 'names TABLE NAME...', TABLE an identifier, 1 to %d names",
		       MAX_WORDS - 2);
	for (size_t i = 0; i < NTYPES; i++)
		if (!strcmp(types[i].name, tok[1]))
			die_at(EXIT_BAD_INPUT, s->path, line, "table %s: the name of a type",
			       tok[1]);
	if (find_table(s, tok[1]))
		die_at(EXIT_BAD_INPUT, s->path, line, "table %s defined twice", tok[1]);
	if (s->ntables == MAX_TABLES)
		die_at(EXIT_BAD_INPUT, s->path, line, "more than %d tables", MAX_TABLES);
	for (int i = 2; i < ntok; i++)
		if (strchr(tok[i], '"') || strchr(tok[i], '\\'))
			die_at(EXIT_BAD_INPUT, s->path, line, "name %s: no quotes or backslashes",
			       tok[i]);
	t = &s->table[s->ntables++];
	t->name = xstrdup(tok[1]);
	t->n = ntok - 2;
	t->names = xcalloc((size_t)t->n, sizeof(*t->names));
	for (int i = 0; i < t->n; i++)
		t->names[i] = xstrdup(tok[i + 2]);
}

static struct site *add_site(struct go_spec *s, struct func *fn, long line,
			     char **tok, int ntok)
{
	int at_exit = !strcmp(tok[0], "return");
	struct site **slot = at_exit ? &fn->exit : &fn->entry;

	const struct table *t = NULL;

	if (!((ntok == 2 && is_name(tok[1])) ||
	      (ntok == 4 && !strcmp(tok[2], "by") && is_name(tok[3]))))
		die_at(EXIT_BAD_INPUT, s->path, line,
		       "expected '%s EVENT' or '%s TABLE by FIELD', EVENT and FIELD identifiers",
		       tok[0], tok[0]);
	if (ntok == 4 && !(t = find_table(s, tok[1])))
		die_at(EXIT_BAD_INPUT, s->path, line, "no names table %s above", tok[1]);
	if (*slot)
		die_at(EXIT_BAD_INPUT, s->path, line, "%s already has its %s event (line %ld)",
		       fn->name, tok[0], (*slot)->line);
	*slot = xcalloc(1, sizeof(**slot));
	(*slot)->event = xstrdup(tok[1]);
	(*slot)->line = line;
	(*slot)->at_exit = at_exit;
	if (t) {
		(*slot)->by_table = t;
		(*slot)->by_name = xstrdup(tok[3]);
		(*slot)->by_count = xcalloc((size_t)t->n, sizeof(long));
	}
	return *slot;
}

static int split(char *text, char **tok, int max)
{
	int n = 0;

	for (char *t = strtok(text, " \t\r"); t; t = strtok(NULL, " \t\r"))
		if (n < max)
			tok[n++] = t;
		else
			return max + 1;
	return n;
}

static void parse_line(struct go_spec *s, char *text, long line,
		       struct site **site)
{
	char *tok[MAX_WORDS + 1];
	int n;
	struct func *fn = s->nfuncs ? &s->func[s->nfuncs - 1] : NULL;

	text[strcspn(text, "#")] = 0;
	n = split(text, tok, MAX_WORDS);
	if (!n)
		return;
	if (!strcmp(tok[0], "names")) {
		add_table(s, line, tok, n);
	} else if (!strcmp(tok[0], "func")) {
		if (n != 2)
			die_at(EXIT_BAD_INPUT, s->path, line, "expected 'func SYMBOL'");
		if (s->nfuncs == MAX_FUNCS)
			die_at(EXIT_BAD_INPUT, s->path, line, "more than %d functions",
			       MAX_FUNCS);
		for (int i = 0; i < s->nfuncs; i++)
			if (!strcmp(s->func[i].name, tok[1]))
				die_at(EXIT_BAD_INPUT, s->path, line,
				       "%s already probed (line %ld)", tok[1], s->func[i].line);
		fn = &s->func[s->nfuncs++];
		fn->name = xstrdup(tok[1]);
		fn->line = line;
		*site = NULL;
	} else if (!strcmp(tok[0], "entry") || !strcmp(tok[0], "return")) {
		if (!fn)
			die_at(EXIT_BAD_INPUT, s->path, line, "%s before any 'func'", tok[0]);
		*site = add_site(s, fn, line, tok, n);
	} else if (!*site) {
		die_at(EXIT_BAD_INPUT, s->path, line,
		       "'%s': expected func, entry, return, or a field after them", tok[0]);
	} else {
		add_field(s, *site, line, tok, n);
	}
}

/* "TABLE by FIELD": FIELD, one value of the site, names its events. */
static void name_by_field(struct go_spec *s, struct site *site)
{
	if (!site || !site->by_table)
		return;
	for (int i = 0; i < site->nfields; i++)
		if (!strcmp(site->field[i].name, site->by_name) && !site->field[i].count) {
			site->by_field = i;
			return;
		}
	die_at(EXIT_BAD_INPUT, s->path, site->line,
	       "no field %s (one value, not [:N]) below to name the event by",
	       site->by_name);
}

struct go_spec *go_spec_parse(const char *path)
{
	struct go_spec *s = xcalloc(1, sizeof(*s));
	struct line_reader lr;
	struct site *site = NULL;

	s->path = path;
	line_reader_open(&lr, path);
	while (line_reader_next(&lr))
		parse_line(s, lr.buf, lr.line, &site);
	line_reader_close(&lr);
	if (!s->nfuncs)
		die_at(EXIT_BAD_INPUT, path, 0, "the probe spec names no function");
	for (int i = 0; i < s->nfuncs; i++) {
		if (!s->func[i].entry && !s->func[i].exit)
			die_at(EXIT_BAD_INPUT, path, s->func[i].line,
			       "%s has neither an entry nor a return event", s->func[i].name);
		name_by_field(s, s->func[i].entry);
		name_by_field(s, s->func[i].exit);
	}
	return s;
}

/* Resolve @expr into read @slot of @site, checking it is a @kind of @size. */
static void resolve_read(struct go_spec *s, struct go_binary *b, Dwarf_Die *fn,
			 struct site *site, struct field *f, const char *expr,
			 int is_len, int slot)
{
	struct go_value v;
	char *why = go_expr(b, fn, expr, site->at_exit, &v);

	if (why)
		die_at(EXIT_BAD_INPUT, s->path, f->line, "%s: %s", go_path(b), why);
	if (!is_len && f->table && v.kind == GO_KIND_BOOL)
		die_at(EXIT_BAD_INPUT, s->path, f->line,
		       "%s is %s: a table names integers", expr, v.type);
	if (!is_len && !f->table && (v.kind != f->kind || v.size != f->size))
		die_at(EXIT_BAD_INPUT, s->path, f->line,
		       "%s is %s (%d bytes, as %s), not %s: the sizes or kinds differ",
		       expr, v.type, v.size, type_label(v.kind, v.size),
		       type_label(f->kind, f->size));
	if (v.is_arg_reg && site->at_exit)
		v.rd.src = GP_SRC_SAVED;   /* reg becomes its saved index below */
	site->gp.reads[slot] = v.rd;
}

/* Every read of @f: one, or the length and N elements. */
static int resolve_field(struct go_spec *s, struct go_binary *b, Dwarf_Die *fn,
			 struct site *site, struct field *f, int slot)
{
	if (slot + 1 + f->count > GP_MAX_READS)
		die_at(EXIT_BAD_INPUT, s->path, f->line,
		       "event %s reads more than %d values", site->event, GP_MAX_READS);
	f->slot = slot;
	if (!f->count) {
		char *e = xasprintf("%s%s", f->star ? "*" : "", f->expr);

		resolve_read(s, b, fn, site, f, e, 0, slot);
		free(e);
		return slot + 1;
	}
	char *len = xasprintf("len(%s)", f->expr);

	f->len_slot = slot;
	resolve_read(s, b, fn, site, f, len, 1, slot);
	free(len);
	f->slot = slot + 1;
	for (int i = 0; i < f->count; i++) {
		char *e = xasprintf("%s%s[%d]%s", f->star ? "*" : "", f->expr, i,
				    f->rest);

		resolve_read(s, b, fn, site, f, e, 0, f->slot + i);
		free(e);
	}
	return f->slot + f->count;
}

/*
 * A return reads an argument register through what its entry saved: the
 * registers the return's reads start from become the entry's saved
 * arguments, in order of first use.
 */
static void save_args(struct go_spec *s, struct func *fn, struct gp_site *entry)
{
	struct gp_site *x = &fn->exit->gp;

	for (unsigned i = 0; i < x->nreads; i++) {
		struct gp_read *rd = &x->reads[i];
		unsigned k;

		if (rd->src != GP_SRC_SAVED)
			continue;
		for (k = 0; k < entry->nsaved && entry->saved[k] != rd->reg; k++)
			;
		if (k == entry->nsaved) {
			if (k == GP_SAVED_ARGS)
				die_at(EXIT_BAD_INPUT, s->path, fn->exit->line,
				       "event %s reads more than %d argument registers",
				       fn->exit->event, GP_SAVED_ARGS);
			entry->saved[entry->nsaved++] = rd->reg;
		}
		rd->reg = (unsigned char)k;
	}
	if (!entry->nsaved)      /* exits pair with their entry through a frame */
		entry->saved[entry->nsaved++] = GP_RAX;
}

static void resolve_site(struct go_spec *s, struct go_binary *b, Dwarf_Die *d,
			 struct site *site)
{
	int slot = 0;

	for (int i = 0; i < site->nfields; i++)
		slot = resolve_field(s, b, d, site, &site->field[i], slot);
	site->gp.nreads = (unsigned)slot;
}

void go_spec_probe(struct go_spec *s, struct gp_engine *e)
{
	struct go_binary *b = gp_binary(e);

	for (int i = 0; i < s->nfuncs; i++) {
		struct func *fn = &s->func[i];
		struct gp_site entry = { 0 };
		struct go_func gf;
		Dwarf_Die d;
		char *why = go_func_find(b, fn->name, &gf);
		unsigned id;

		if (!why)
			why = go_subprogram(b, fn->name, &d);
		if (why)
			die_at(EXIT_BAD_INPUT, s->path, fn->line, "%s", why);
		if (fn->entry) {
			resolve_site(s, b, &d, fn->entry);
			entry = fn->entry->gp;
		}
		if (fn->exit) {
			resolve_site(s, b, &d, fn->exit);
			save_args(s, fn, &entry);
		}
		id = gp_probe(e, fn->name, &entry, fn->exit ? &fn->exit->gp : NULL);
		s->by_id[id] = fn->entry;
		if (fn->exit)
			s->by_id[id + 1] = fn->exit;
	}
}

void go_spec_output(struct go_spec *s, FILE *raw, FILE *events)
{
	s->raw = raw;
	s->events = events;
}

/* The first record that cannot be written: the run fails with it. */
static __attribute__((format(printf, 3, 4)))
void fail(struct go_spec *s, long line, const char *fmt, ...)
{
	va_list ap;
	char *m;

	if (s->error)
		return;
	va_start(ap, fmt);
	if (vasprintf(&m, fmt, ap) < 0)
		m = xstrdup(fmt);
	va_end(ap);
	s->error = xasprintf("%s:%ld: %s", s->path, line, m);
	free(m);
}

/*
 * The process's index: the order of the programs' execs (the target's is
 * 0), which a program that starts its children one after another keeps
 * from run to run, as pids are not.
 */
static int proc_index(struct go_spec *s, unsigned pid)
{
	for (int i = s->nprocs - 1; i >= 0; i--)
		if (s->pid[i] == pid)
			return i;
	if (s->nprocs == MAX_PROCS) {
		if (!s->error)
			s->error = xasprintf("more than %d processes", MAX_PROCS);
		return -1;
	}
	s->pid[s->nprocs] = pid;
	return s->nprocs++;
}

/* Read @slot of @r into *v (a nil read: the field's default); 0 if nil. */
static int field_value(const struct field *f, const struct gp_record *r, int slot,
		       unsigned long long *v)
{
	int nil = !!(r->nil_mask & (1u << slot));

	*v = nil ? f->def : r->val[slot];
	return !nil || f->has_default;
}

/* @t's name for @v, or NULL ("-" or past its end). */
static const char *table_name(const struct table *t, unsigned long long v)
{
	return v < (unsigned long long)t->n && strcmp(t->names[v], "-") ?
	       t->names[v] : NULL;
}

static void put_value(struct go_spec *s, struct strbuf *l, const struct field *f,
		      const struct gp_record *r, int slot)
{
	unsigned long long v;
	int have = field_value(f, r, slot, &v), keep = 64 - 8 * f->size;

	if (!have)
		strbuf_addstr(l, "null");
	else if (f->table && !table_name(f->table, v))
		fail(s, f->line, "%s: %llu has no name in table %s", f->name, v,
		     f->table->name);
	else if (f->table)
		strbuf_addf(l, "\"%s\"", table_name(f->table, v));
	else if (f->kind == GO_KIND_BOOL)
		strbuf_addstr(l, v & 0xff ? "true" : "false");
	else if (f->kind == GO_KIND_SIGNED)
		strbuf_add_int(l, (long long)(v << keep) >> keep);
	else
		strbuf_addf(l, "%llu", v);
}

static void put_field(struct go_spec *s, struct strbuf *l, const struct field *f,
		      const struct gp_record *r)
{
	unsigned long long n;

	strbuf_addf(l, ",\"%s\":", f->name);
	if (!f->count) {
		put_value(s, l, f, r, f->slot);
		return;
	}
	if (r->nil_mask & (1u << f->len_slot)) {
		strbuf_addstr(l, "null");
		return;
	}
	n = r->val[f->len_slot];
	if (n > (unsigned long long)f->count) {
		fail(s, f->line, "%s: a slice of %llu elements, the spec reads at most %d",
		     f->name, n, f->count);
		return;
	}
	strbuf_addstr(l, "[");
	for (unsigned i = 0; i < n; i++) {
		if (i)
			strbuf_addstr(l, ",");
		put_value(s, l, f, r, f->slot + (int)i);
	}
	strbuf_addstr(l, "]");
}

static void write_raw(struct go_spec *s, const struct gp_record *r, int proc,
		      unsigned nvals)
{
	struct strbuf *l = &s->line;

	strbuf_reset(l);
	strbuf_addf(l, "{\"site\":%d,\"proc\":%d,\"goid\":%llu,\"nil\":%u,\"val\":[",
		    r->site == GP_SITE_EXEC ? -1 : (int)r->site, proc, r->goid,
		    r->nil_mask);
	for (unsigned i = 0; i < nvals; i++)
		strbuf_addf(l, "%s%llu", i ? "," : "", r->val[i]);
	strbuf_addstr(l, "]}\n");
	fwrite(l->buf, 1, l->len, s->raw);
}

/*
 * @r with the elements past each slice's length as 0: the probe read
 * whatever memory follows the slice there, which differs from run to run.
 */
static const struct gp_record *past_length(const struct site *site,
					   const struct gp_record *r,
					   struct gp_record *copy)
{
	*copy = *r;
	for (int i = 0; i < site->nfields; i++) {
		const struct field *f = &site->field[i];
		unsigned long long n = f->count && !(r->nil_mask & (1u << f->len_slot)) ?
				       r->val[f->len_slot] : 0;

		for (int k = (int)(n < (unsigned)f->count ? n : (unsigned)f->count);
		     k < f->count; k++) {
			copy->val[f->slot + k] = 0;
			copy->nil_mask &= ~(1u << (f->slot + k));
		}
	}
	return copy;
}

/*
 * The event @r of @site becomes, counted; NULL for none (a value its table
 * leaves unnamed, or one it cannot name: then the run fails).
 */
static const char *event_name(struct go_spec *s, struct site *site,
			      const struct gp_record *r)
{
	const struct field *f = &site->field[site->by_field];
	unsigned long long v;

	if (!site->by_table) {
		site->count++;
		return site->event;
	}
	if (!field_value(f, r, f->slot, &v)) {
		fail(s, site->line, "%s is nil: no event name (give it 'or VALUE')", f->name);
		return NULL;
	}
	if (v < (unsigned long long)site->by_table->n) {
		site->by_count[v]++;
		return table_name(site->by_table, v);
	}
	fail(s, site->line, "%s: %llu is past table %s", f->name, v, site->by_table->name);
	return NULL;
}

void go_spec_record(const struct gp_record *r, void *arg)
{
	struct go_spec *s = arg;
	struct gp_record copy;
	struct site *site;
	const char *event;
	int proc;

	if (s->error)
		return;
	s->records++;
	proc = proc_index(s, r->pid);
	if (r->site == GP_SITE_EXEC) {
		write_raw(s, r, proc, 0);
		return;
	}
	site = r->site < GP_MAX_SITES ? s->by_id[r->site] : NULL;
	if (!site) {
		write_raw(s, r, proc, 0);
		return;
	}
	write_raw(s, past_length(site, r, &copy), proc, site->gp.nreads);
	if (!(event = event_name(s, site, r)))
		return;
	strbuf_reset(&s->line);
	strbuf_addf(&s->line, "{\"event\":\"%s\",\"proc\":%d", event, proc);
	for (int i = 0; i < site->nfields; i++)
		put_field(s, &s->line, &site->field[i], r);
	strbuf_addstr(&s->line, "}\n");
	fwrite(s->line.buf, 1, s->line.len, s->events);
}

/* A site's events per name: a table's names in its order, those seen. */
static void count_events(cJSON *counts, const struct site *site)
{
	if (!site->by_table) {
		json_count(counts, site->event, site->count);
		return;
	}
	for (int i = 0; i < site->by_table->n; i++)
		if (site->by_count[i] && table_name(site->by_table, (unsigned)i))
			json_count(counts, site->by_table->names[i], site->by_count[i]);
}

void go_spec_end(struct go_spec *s, cJSON *m)
{
	cJSON *counts = json_add(m, "events", json_obj());

	if (s->error)
		die(EXIT_CAPTURE_FAILED, "%s", s->error);
	for (int i = 0; i < s->nfuncs; i++) {
		struct site *x[2] = { s->func[i].entry, s->func[i].exit };

		for (int k = 0; k < 2; k++)
			if (x[k])
				count_events(counts, x[k]);
	}
	json_add(m, "records", json_int(s->records));
	json_add(m, "processes", json_int(s->nprocs));
}

void go_spec_free(struct go_spec *s)
{
	for (int i = 0; i < s->nfuncs; i++) {
		struct site *x[2] = { s->func[i].entry, s->func[i].exit };

		for (int k = 0; k < 2; k++) {
			if (!x[k])
				continue;
			for (int j = 0; j < x[k]->nfields; j++) {
				free(x[k]->field[j].name);
				free(x[k]->field[j].expr);
				free(x[k]->field[j].rest);
			}
			free(x[k]->event);
			free(x[k]->by_name);
			free(x[k]->by_count);
			free(x[k]);
		}
		free(s->func[i].name);
	}
	for (int i = 0; i < s->ntables; i++) {
		for (int k = 0; k < s->table[i].n; k++)
			free(s->table[i].names[k]);
		free(s->table[i].names);
		free(s->table[i].name);
	}
	strbuf_release(&s->line);
	free(s);
}

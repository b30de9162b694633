// SPDX-License-Identifier: MIT
/*
 * Probe specs for `capture go` and `capture etcd` (format: docs/go.md).
 * One line a statement, so that every refusal names its exact file:line:
 *
 *   header KEY [proc]      events start with "KEY":EVENT (and "proc":P)
 *   names TABLE NAME...    value i is written as the i-th NAME ("-": none)
 *   func SYMBOL            a function to probe
 *   entry EVENT [CLAUSE]   its entry becomes event EVENT; several entry
 *   return EVENT [CLAUSE]  (return) lines in a row: several events of one
 *                          record, in order.  CLAUSE: "by FIELD" (EVENT is
 *                          a table naming FIELD's value), "while SYMBOL
 *                          [once]" (only inside a call of SYMBOL on the
 *                          goroutine), "per FIELD == VALUE" (one event per
 *                          element of slice FIELD that is VALUE)
 *   FIELD TYPE EXPR [or N] [as string] [hidden]
 *                          a field of the site: EXPR read as TYPE; a
 *                          dotted FIELD nests ("state.term")
 *   FIELD TYPE = CALC ...  a field computed from the fields above it
 *   group NAME PARAM       the field lines below, for "use NAME ARG" in a
 *                          site: PARAM in their expressions read as ARG
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../capture/die.h"
#include "../capture/err.h"
#include "../capture/json.h"
#include "../capture/ndjson.h"
#include "goeval.h"
#include "goexpr.h"
#include "gospec.h"

#define MAX_FUNCS 64
#define MAX_FIELDS 48		/* of a site (computed ones read nothing) */
#define MAX_EVENTS 8            /* events of one site */
#define MAX_ONCE 64             /* "once" events of a spec (a mask's bits) */
#define MAX_PROCS 4096
#define MAX_TABLES 32
#define MAX_GROUPS 16
#define MAX_WORDS 66            /* names TABLE and 64 names */

/* Literal text, its length known at compile time: one event line has ~30. */
#define ADD_LIT(l, text) strbuf_put(l, text, sizeof(text) - 1)

/* A table of names: value i is name[i] ("-": no name, shown[i] NULL). */
struct table {
	char *name;
	char **names;
	const char **shown;
	size_t *len;            /* of each name */
	int n;
};

struct field {
	char *name;             /* dotted: nested objects */
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
	int quoted;             /* as string: the number as a JSON string */
	int hidden;             /* read (or computed), not written */
	struct go_calc *calc;   /* computed from other fields: no read */
	char *pre;              /* written before the value: key, nesting */
	size_t pre_len;
};

struct func;

struct event {
	char *name;             /* or the table naming it by a field's value */
	long line;
	const struct table *by_table;
	char *by_name;
	int by_field;
	long *by_count;         /* events per table entry */
	char *open_name;        /* while SYMBOL */
	struct func *open;
	int once;               /* bit in the open call's mask, +1; 0: none */
	char *per_name, *per_text;  /* per FIELD == VALUE */
	int per_field;
	unsigned long long per_value;
	long count;
};

struct site {
	struct event ev[MAX_EVENTS];
	int nevents;
	long line;
	int at_exit;
	struct field field[MAX_FIELDS];
	int nfields;
	char *post;             /* closes what the last written field opened */
	size_t post_len;
	int goid_slot;          /* the goroutine's id read for "while", or -1 */
	struct gp_site gp;
	struct func *fn;
};

struct func {
	char *name;
	long line;
	int index;
	int tracked;            /* a "while" names it: its calls are followed */
	struct site *entry, *exit;
};

/* A group of fields, written once, used by several sites. */
struct group {
	char *name, *param;     /* PARAM in an EXPR is the use's ARG */
	long line;
	char *text[MAX_FIELDS];
	long at[MAX_FIELDS];    /* each field's line */
	int n;
};

struct go_spec {
	char *path;
	struct group group[MAX_GROUPS];
	int ngroups;
	struct group *open_group;   /* the group the lines below go to */
	char *key;              /* the key of the event's name */
	int with_proc;
	long header_line;
	struct func func[MAX_FUNCS];
	int nfuncs;
	struct table table[MAX_TABLES];
	int ntables;
	int nonce;
	struct site *by_id[GP_MAX_SITES];
	FILE *raw, *events;
	struct go_calls *calls;
	unsigned pid[MAX_PROCS];
	int nprocs;
	long records, events_written;
	char *error;
	struct cap_err *err;    /* where parse and probe put their refusal */
	struct strbuf line;
	struct go_val vals[MAX_FIELDS];
};

/* The spec refused at @line (0: as a whole): EXIT_BAD_INPUT; returns -1. */
static __attribute__((format(printf, 3, 4)))
int refuse(struct go_spec *s, long line, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		die(EXIT_CAPTURE_FAILED, "out of memory");
	va_end(ap);
	cap_fail_at(s->err, EXIT_BAD_INPUT, s->path, line, "%s", msg);
	free(msg);
	return -1;
}

static int is_name(const char *s)
{
	if (!*s || !(isalpha((unsigned char)*s) || *s == '_'))
		return 0;
	while (*++s)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return 0;
	return 1;
}

/* NAME or NAME.NAME...: a field's key, nested at each dot. */
static int is_path(const char *s)
{
	char *copy = xstrdup(s), *save = NULL;
	int ok = s[0] != '.' && s[strlen(s) - 1] != '.' && !strstr(s, "..");

	for (char *p = strtok_r(copy, ".", &save); ok && p; p = strtok_r(NULL, ".", &save))
		ok = is_name(p);
	free(copy);
	return ok;
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
static int split_range(struct go_spec *s, long line, struct field *f,
		       const char *expr)
{
	const char *r = strstr(expr, "[:");
	char *end;

	f->star = *expr == '*';
	f->expr = xstrdup(expr + f->star);
	if (!r)
		return 0;
	f->count = (int)strtol(r + 2, &end, 10);
	if (end == r + 2 || *end != ']' || f->count < 1 || f->count > GP_MAX_READS)
		return refuse(s, line,
			      "%s: expected [:N] with N from 1 to %d", expr, GP_MAX_READS);
	if (strstr(end, "[:"))
		return refuse(s, line, "%s: one [:N] a field", expr);
	f->expr[r - expr - f->star] = 0;
	f->rest = xstrdup(end + 1);
	return 0;
}

static const struct table *find_table(struct go_spec *s, const char *name)
{
	for (int i = 0; i < s->ntables; i++)
		if (!strcmp(s->table[i].name, name))
			return &s->table[i];
	return NULL;
}

/* @word as a number, or as a name of @t; -1 if it is neither. */
static int constant(const char *word, const struct table *t, unsigned long long *v)
{
	char *end;

	if (isdigit((unsigned char)*word)) {
		*v = strtoull(word, &end, 0);
		return *end ? -1 : 0;
	}
	for (int i = 0; t && i < t->n; i++)
		if (strcmp(t->names[i], "-") && !strcmp(t->names[i], word)) {
			*v = (unsigned long long)i;
			return 0;
		}
	return -1;
}

/* "or N" after a field's expression: N (or true, false) where it is nil. */
static int add_default(struct go_spec *s, long line, struct field *f,
		       const char *word)
{
	char *end;

	f->has_default = 1;
	if (f->kind == GO_KIND_BOOL && !f->table &&
	    (!strcmp(word, "true") || !strcmp(word, "false"))) {
		f->def = !strcmp(word, "true");
		return 0;
	}
	f->def = strtoull(word, &end, 0);
	if (*end || f->kind == GO_KIND_BOOL || *word == '-')
		return refuse(s, line,
			      "or %s: a default is a number of the field's type (or true, false)",
			      word);
	return 0;
}

static int find_field(const struct site *site, const char *name)
{
	for (int i = 0; i < site->nfields; i++)
		if (!strcmp(site->field[i].name, name))
			return i;
	return -1;
}

/* An operand of a computed field: a one-value field above, or a constant. */
static int calc_operand(struct go_spec *s, struct site *site, long line,
			const char *word, const struct table *t,
			struct go_operand *o)
{
	int i = find_field(site, word);

	o->field = i;
	if (i >= 0 && !site->field[i].count)
		return 0;
	if (i >= 0)
		return refuse(s, line,
			      "%s is a slice ([:N]): a computed field takes one-value fields",
			      word);
	if (constant(word, t, &o->k))
		return refuse(s, line,
			      "'%s': neither a field above nor a number%s", word,
			      t ? " nor a name of its table" : "");
	return 0;
}

/* OPERAND [+|- OPERAND]... over words [from, to). */
static int calc_sum(struct go_spec *s, struct site *site, long line,
		    char **tok, int from, int to, struct go_sum *sum)
{
	if (from >= to || (to - from) % 2 == 0 || (to - from + 1) / 2 > GO_CALC_TERMS)
		return refuse(s, line,
			      "expected OPERAND [+ OPERAND | - OPERAND]..., at most %d operands",
			      GO_CALC_TERMS);
	sum->n = 0;
	for (int i = from; i < to; i += 2) {
		if (i > from && strcmp(tok[i - 1], "+") && strcmp(tok[i - 1], "-"))
			return refuse(s, line, "'%s': expected + or -",
				      tok[i - 1]);
		sum->neg[sum->n] = i > from && !strcmp(tok[i - 1], "-");
		if (calc_operand(s, site, line, tok[i], NULL, &sum->op[sum->n++]))
			return -1;
	}
	return 0;
}

/* Free @c, a computation refused; returns NULL. */
static struct go_calc *calc_free(struct go_calc *c)
{
	free(c);
	return NULL;
}

/* SUM, or: if FIELD == VALUE then SUM else SUM; NULL if refused. */
static struct go_calc *parse_calc(struct go_spec *s, struct site *site, long line,
				  char **tok, int n)
{
	struct go_calc *c = xcalloc(1, sizeof(*c));
	int then = -1, other = -1;

	if (n < 1 || strcmp(tok[0], "if"))
		return calc_sum(s, site, line, tok, 0, n, &c->then) ? calc_free(c) : c;
	for (int i = 0; i < n; i++) {
		if (!strcmp(tok[i], "then") && then < 0)
			then = i;
		else if (!strcmp(tok[i], "else") && other < 0)
			other = i;
	}
	if (then != 4 || strcmp(tok[2], "==") || other < then) {
		refuse(s, line, "expected 'if FIELD == VALUE then SUM else SUM'");
		return calc_free(c);
	}
	c->cond = 1;
	if (calc_operand(s, site, line, tok[1], NULL, &c->a))
		return calc_free(c);
	if (c->a.field < 0) {
		refuse(s, line, "if %s: not a field above", tok[1]);
		return calc_free(c);
	}
	if (calc_operand(s, site, line, tok[3], site->field[c->a.field].table, &c->b) ||
	    calc_sum(s, site, line, tok, then + 1, other, &c->then) ||
	    calc_sum(s, site, line, tok, other + 1, n, &c->other))
		return calc_free(c);
	return c;
}

/* The words after a field's expression: or N, as string, hidden. */
static int field_clauses(struct go_spec *s, long line, struct field *f,
			 char **tok, int n)
{
	for (int i = 0; i < n; i++) {
		if (!strcmp(tok[i], "or") && i + 1 < n && !f->calc && !f->has_default) {
			if (add_default(s, line, f, tok[++i]))
				return -1;
		} else if (!strcmp(tok[i], "as") && i + 1 < n &&
			   !strcmp(tok[i + 1], "string") && !f->quoted) {
			if (f->table || f->kind == GO_KIND_BOOL)
				return refuse(s, line,
					      "as string: only integers are written as strings");
			f->quoted = 1;
			i++;
		} else if (!strcmp(tok[i], "hidden") && !f->hidden) {
			f->hidden = 1;
		} else {
			return refuse(s, line,
				      "'%s': expected 'or VALUE', 'as string' or 'hidden' (each once)",
				      tok[i]);
		}
	}
	return 0;
}

/* The field's key must not be the header's (or proc, when written). */
static int check_key(struct go_spec *s, long line, const char *name)
{
	size_t top = strcspn(name, ".");
	const char *taken = NULL;

	if (strlen(s->key) == top && !strncmp(name, s->key, top))
		taken = s->key;
	else if (s->with_proc && top == 4 && !strncmp(name, "proc", 4))
		taken = "proc";
	if (taken)
		return refuse(s, line,
			      "field name '%s': %s is the header's key", name, taken);
	return 0;
}

/* What a field owns: freed with its site, or when the spec refuses it. */
static void field_free(struct field *f)
{
	free(f->name);
	free(f->expr);
	free(f->rest);
	free(f->calc);
	free(f->pre);
	memset(f, 0, sizeof(*f));
}

static int add_field(struct go_spec *s, struct site *site, long line,
		     char **tok, int ntok)
{
	struct field *f;
	int calc = ntok > 2 && !strcmp(tok[2], "=");
	int end = 3;
	size_t t;

	if (ntok < 3)
		return refuse(s, line,
			      "a field is NAME TYPE EXPR [or VALUE] [as string] [hidden], or NAME TYPE = CALC");
	if (!is_path(tok[0]))
		return refuse(s, line,
			      "field name '%s': Go-like identifiers joined by dots", tok[0]);
	if (check_key(s, line, tok[0]))
		return -1;
	if (find_field(site, tok[0]) >= 0)
		return refuse(s, line, "field %s already in event %s (line %ld)",
			      tok[0], site->ev[0].name, site->field[find_field(site, tok[0])].line);
	for (t = 0; t < NTYPES && strcmp(types[t].name, tok[1]); t++)
		;
	if (t == NTYPES && !find_table(s, tok[1]))
		return refuse(s, line,
			      "type '%s': one of bool, i8, i16, i32, i64, u8, u16, u32, u64, or a names table defined above",
			      tok[1]);
	if (site->nfields == MAX_FIELDS)
		return refuse(s, line, "more than %d fields", MAX_FIELDS);
	f = &site->field[site->nfields];
	f->name = xstrdup(tok[0]);
	f->line = line;
	if (t == NTYPES) {
		f->table = find_table(s, tok[1]);
		f->kind = GO_KIND_UNSIGNED;
	} else {
		f->kind = types[t].kind;
		f->size = types[t].size;
	}
	if (calc) {
		while (end < ntok && strcmp(tok[end], "as") && strcmp(tok[end], "hidden"))
			end++;
		if (f->kind == GO_KIND_BOOL) {
			field_free(f);
			return refuse(s, line, "a computed field is an integer");
		}
		f->calc = parse_calc(s, site, line, tok + 3, end - 3);
		if (!f->calc) {
			field_free(f);
			return -1;
		}
	} else if (split_range(s, line, f, tok[2])) {
		field_free(f);
		return -1;
	}
	site->nfields++;
	return field_clauses(s, line, f, tok + end, ntok - end);
}

static int add_table(struct go_spec *s, long line, char **tok, int ntok)
{
	struct table *t;

	if (ntok < 3 || ntok > MAX_WORDS || !is_name(tok[1]))
		return refuse(s, line,
			      "expected 'names TABLE NAME...', TABLE an identifier, 1 to %d names",
			      MAX_WORDS - 2);
	for (size_t i = 0; i < NTYPES; i++)
		if (!strcmp(types[i].name, tok[1]))
			return refuse(s, line, "table %s: the name of a type",
				      tok[1]);
	if (find_table(s, tok[1]))
		return refuse(s, line, "table %s defined twice", tok[1]);
	if (s->ntables == MAX_TABLES)
		return refuse(s, line, "more than %d tables", MAX_TABLES);
	for (int i = 2; i < ntok; i++)
		if (strchr(tok[i], '"') || strchr(tok[i], '\\'))
			return refuse(s, line, "name %s: no quotes or backslashes",
				      tok[i]);
	t = &s->table[s->ntables++];
	t->name = xstrdup(tok[1]);
	t->n = ntok - 2;
	t->names = xcalloc((size_t)t->n, sizeof(*t->names));
	t->shown = xcalloc((size_t)t->n, sizeof(*t->shown));
	t->len = xcalloc((size_t)t->n, sizeof(*t->len));
	for (int i = 0; i < t->n; i++) {
		t->names[i] = xstrdup(tok[i + 2]);
		t->len[i] = strlen(t->names[i]);
		t->shown[i] = strcmp(t->names[i], "-") ? t->names[i] : NULL;
	}
	return 0;
}

/* header KEY [proc]: once, before any function. */
static int set_header(struct go_spec *s, long line, char **tok, int n)
{
	if (n < 2 || n > 3 || !is_name(tok[1]) || (n == 3 && strcmp(tok[2], "proc")) ||
	    !strcmp(tok[1], "proc"))
		return refuse(s, line,
			      "expected 'header KEY [proc]', KEY an identifier other than proc");
	if (s->header_line || s->nfuncs)
		return refuse(s, line,
			      "one header, before any 'func'");
	free(s->key);
	s->key = xstrdup(tok[1]);
	s->with_proc = n == 3;
	s->header_line = line;
	return 0;
}

/* The clauses of an event line after its name: by, while [once], per. */
static int event_clauses(struct go_spec *s, struct event *ev, char **tok, int n)
{
	for (int i = 0; i < n; i++) {
		if (!strcmp(tok[i], "by") && i + 1 < n && !ev->by_name && is_path(tok[i + 1])) {
			ev->by_name = xstrdup(tok[++i]);
		} else if (!strcmp(tok[i], "while") && i + 1 < n && !ev->open_name) {
			ev->open_name = xstrdup(tok[++i]);
			if (i + 1 < n && !strcmp(tok[i + 1], "once"))
				ev->once = ++i;   /* its bit is given below */
		} else if (!strcmp(tok[i], "per") && i + 3 < n && !ev->per_name &&
			   !strcmp(tok[i + 2], "==")) {
			ev->per_name = xstrdup(tok[i + 1]);
			ev->per_text = xstrdup(tok[i + 3]);
			i += 3;
		} else {
			return refuse(s, ev->line,
				      "'%s': expected 'by FIELD', 'while SYMBOL [once]' or 'per FIELD == VALUE' (each once)",
				      tok[i]);
		}
	}
	return 0;
}

/* The site the event line adds to, or NULL if refused. */
static struct site *add_event(struct go_spec *s, struct func *fn, long line,
			      char **tok, int ntok)
{
	int at_exit = !strcmp(tok[0], "return");
	struct site **slot = at_exit ? &fn->exit : &fn->entry;
	struct event *ev;

	if (ntok < 2 || !is_name(tok[1])) {
		refuse(s, line, "expected '%s EVENT [CLAUSE]...', EVENT an identifier",
		       tok[0]);
		return NULL;
	}
	if (*slot && (*slot)->nfields) {
		refuse(s, line,
		       "%s already has its %s event and fields (line %ld): a site's events are listed together, above its fields",
		       fn->name, tok[0], (*slot)->line);
		return NULL;
	}
	if (!*slot) {
		*slot = xcalloc(1, sizeof(**slot));
		(*slot)->line = line;
		(*slot)->at_exit = at_exit;
		(*slot)->fn = fn;
	}
	if ((*slot)->nevents == MAX_EVENTS) {
		refuse(s, line, "more than %d events a site", MAX_EVENTS);
		return NULL;
	}
	ev = &(*slot)->ev[(*slot)->nevents++];
	ev->name = xstrdup(tok[1]);
	ev->line = line;
	if (event_clauses(s, ev, tok + 2, ntok - 2))
		return NULL;
	if (ev->by_name) {
		if (!(ev->by_table = find_table(s, tok[1]))) {
			refuse(s, line, "no names table %s above", tok[1]);
			return NULL;
		}
		ev->by_count = xcalloc((size_t)ev->by_table->n, sizeof(long));
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

static int add_func(struct go_spec *s, long line, char **tok, int n)
{
	struct func *fn;

	if (n != 2)
		return refuse(s, line, "expected 'func SYMBOL'");
	if (s->nfuncs == MAX_FUNCS)
		return refuse(s, line, "more than %d functions", MAX_FUNCS);
	for (int i = 0; i < s->nfuncs; i++)
		if (!strcmp(s->func[i].name, tok[1]))
			return refuse(s, line,
				      "%s already probed (line %ld)", tok[1], s->func[i].line);
	fn = &s->func[s->nfuncs];
	fn->name = xstrdup(tok[1]);
	fn->line = line;
	fn->index = s->nfuncs++;
	return 0;
}

static const char *const statements[] = {
	"header", "names", "group", "use", "func", "entry", "return",
};

/* Does @text (a line, comment stripped) start with a statement's word? */
static int is_statement(const char *text)
{
	size_t skip = strspn(text, " \t\r"), len = strcspn(text + skip, " \t\r");

	for (size_t i = 0; i < sizeof(statements) / sizeof(statements[0]); i++)
		if (strlen(statements[i]) == len && !strncmp(text + skip, statements[i], len))
			return 1;
	return 0;
}

static struct group *find_group(struct go_spec *s, const char *name)
{
	for (int i = 0; i < s->ngroups; i++)
		if (!strcmp(s->group[i].name, name))
			return &s->group[i];
	return NULL;
}

/* group NAME PARAM: the field lines below, until the next statement. */
static int add_group(struct go_spec *s, long line, char **tok, int n)
{
	struct group *g;

	if (n != 3 || !is_name(tok[1]) || !is_name(tok[2]))
		return refuse(s, line,
			      "expected 'group NAME PARAM', NAME and PARAM identifiers");
	if (find_group(s, tok[1]))
		return refuse(s, line, "group %s defined twice (line %ld)",
			      tok[1], find_group(s, tok[1])->line);
	if (s->ngroups == MAX_GROUPS)
		return refuse(s, line, "more than %d groups", MAX_GROUPS);
	g = &s->group[s->ngroups++];
	g->name = xstrdup(tok[1]);
	g->param = xstrdup(tok[2]);
	g->line = line;
	s->open_group = g;
	return 0;
}

static int group_line(struct go_spec *s, const char *text, long line)
{
	struct group *g = s->open_group;

	if (!text[strspn(text, " \t\r")])
		return 0;
	if (g->n == MAX_FIELDS)
		return refuse(s, line, "more than %d fields in group %s",
			      MAX_FIELDS, g->name);
	g->at[g->n] = line;
	g->text[g->n++] = xstrdup(text);
	return 0;
}

/* @expr with each identifier @param (not a field after a dot) as @arg. */
static char *substitute(const char *expr, const char *param, const char *arg)
{
	struct strbuf sb = STRBUF_INIT;
	size_t len = strlen(param);

	for (const char *p = expr; *p;) {
		int word = (p == expr || (!isalnum((unsigned char)p[-1]) && p[-1] != '_' &&
					  p[-1] != '.')) &&
			   !strncmp(p, param, len) &&
			   !isalnum((unsigned char)p[len]) && p[len] != '_';

		if (word) {
			strbuf_addstr(&sb, arg);
			p += len;
		} else {
			strbuf_add(&sb, p++, 1);
		}
	}
	return sb.buf ? sb.buf : xstrdup("");
}

/* use NAME ARG: the group's fields in this site, its PARAM read as ARG. */
static int use_group(struct go_spec *s, struct site *site, long line,
		     char **tok, int n)
{
	const struct group *g = n == 3 ? find_group(s, tok[1]) : NULL;

	if (n != 3)
		return refuse(s, line, "expected 'use GROUP ARG'");
	if (!g)
		return refuse(s, line, "no group %s above", tok[1]);
	if (!g->n)
		return refuse(s, line, "group %s (line %ld) has no fields",
			      g->name, g->line);
	for (int i = 0; i < g->n; i++) {
		char *text = xstrdup(g->text[i]), *ftok[MAX_WORDS + 1], *expr = NULL;
		int k = split(text, ftok, MAX_WORDS), rc;

		if (k > 2 && strcmp(ftok[2], "=")) {
			expr = substitute(ftok[2], g->param, tok[2]);
			ftok[2] = expr;
		}
		rc = add_field(s, site, g->at[i], ftok, k);
		free(expr);
		free(text);
		if (rc)
			return -1;
	}
	return 0;
}

static int parse_line(struct go_spec *s, char *text, long line,
		      struct site **site)
{
	char *tok[MAX_WORDS + 1];
	int n;
	struct func *fn = s->nfuncs ? &s->func[s->nfuncs - 1] : NULL;

	text[strcspn(text, "#")] = 0;
	if (s->open_group && !is_statement(text))
		return group_line(s, text, line);
	s->open_group = NULL;
	n = split(text, tok, MAX_WORDS);
	if (!n)
		return 0;
	if (!strcmp(tok[0], "group")) {
		*site = NULL;
		return add_group(s, line, tok, n);
	} else if (!strcmp(tok[0], "use")) {
		if (!*site)
			return refuse(s, line, "use outside an entry or return");
		return use_group(s, *site, line, tok, n);
	} else if (!strcmp(tok[0], "names")) {
		return add_table(s, line, tok, n);
	} else if (!strcmp(tok[0], "header")) {
		return set_header(s, line, tok, n);
	} else if (!strcmp(tok[0], "func")) {
		*site = NULL;
		return add_func(s, line, tok, n);
	} else if (!strcmp(tok[0], "entry") || !strcmp(tok[0], "return")) {
		if (!fn)
			return refuse(s, line, "%s before any 'func'", tok[0]);
		*site = add_event(s, fn, line, tok, n);
		return *site ? 0 : -1;
	} else if (!*site) {
		return refuse(s, line,
			      "'%s': expected header, names, group, func, entry, return, or a field or use after them",
			      tok[0]);
	}
	return add_field(s, *site, line, tok, n);
}

/* An event's "by" or "per" field: one value (@slice 0) or a [:N] slice. */
static int clause_field(struct go_spec *s, const struct site *site,
			const struct event *ev, const char *name, int slice)
{
	int i = find_field(site, name);

	if (i < 0 || site->field[i].calc || !site->field[i].count != !slice)
		return refuse(s, ev->line,
			      "no field %s (%s) below to %s", name,
			      slice ? "a [:N] slice" : "one value, not [:N]",
			      slice ? "write an event per element of" : "name the event by");
	return i;
}

static struct func *find_func(struct go_spec *s, const char *name)
{
	for (int i = 0; i < s->nfuncs; i++)
		if (!strcmp(s->func[i].name, name))
			return &s->func[i];
	return NULL;
}

/* An empty site of a followed function: its calls' entries or returns. */
static void follow_site(struct func *fn, struct site **slot, int at_exit)
{
	if (*slot)
		return;
	*slot = xcalloc(1, sizeof(**slot));
	(*slot)->line = fn->line;
	(*slot)->at_exit = at_exit;
	(*slot)->fn = fn;
}

/* "while SYMBOL": the function is followed, at its entry and returns. */
static int resolve_while(struct go_spec *s, struct event *ev)
{
	if (!ev->open_name)
		return 0;
	if (!(ev->open = find_func(s, ev->open_name)))
		return refuse(s, ev->line,
			      "while %s: no 'func %s' in the spec", ev->open_name, ev->open_name);
	ev->open->tracked = 1;
	follow_site(ev->open, &ev->open->entry, 0);
	follow_site(ev->open, &ev->open->exit, 1);
	if (!ev->once)
		return 0;
	if (s->nonce == MAX_ONCE)
		return refuse(s, ev->line, "more than %d 'once' events",
			      MAX_ONCE);
	ev->once = ++s->nonce;
	return 0;
}

static int resolve_events(struct go_spec *s, struct site *site)
{
	for (int i = 0; site && i < site->nevents; i++) {
		struct event *ev = &site->ev[i];

		if (ev->by_name &&
		    (ev->by_field = clause_field(s, site, ev, ev->by_name, 0)) < 0)
			return -1;
		if (ev->per_name) {
			ev->per_field = clause_field(s, site, ev, ev->per_name, 1);
			if (ev->per_field < 0)
				return -1;
			if (constant(ev->per_text, site->field[ev->per_field].table,
				     &ev->per_value))
				return refuse(s, ev->line,
					      "per %s == %s: a number or a name of its table",
					      ev->per_name, ev->per_text);
		}
		if (resolve_while(s, ev))
			return -1;
	}
	return 0;
}

/* Levels of @a and @b's nesting (the dots before their last key) in common. */
static int common_groups(const char *a, const char *b)
{
	int n = 0;

	for (size_t i = 0; a[i] && a[i] == b[i]; i++)
		if (a[i] == '.')
			n++;
	return n;
}

static int groups(const char *a)
{
	int n = 0;

	while ((a = strchr(a, '.')))
		n++, a++;
	return n;
}

/* The @k-th key of dotted @name (its own text up to the next dot). */
static void add_key(struct strbuf *sb, const char *name, int k)
{
	while (k--)
		name = strchr(name, '.') + 1;
	strbuf_addstr(sb, "\"");
	strbuf_add(sb, name, strcspn(name, "."));
	strbuf_addstr(sb, "\":");
}

/*
 * What each written field is preceded by (closing the objects the field
 * before opened and it does not share, opening its own) and what ends the
 * event.  An object's fields must be consecutive, and no key both a value
 * and an object.
 */
/* Field @i's key against those above it: a value or an object, consecutive. */
static int nest_check(struct go_spec *s, const struct site *site, int i,
		      const char *prev)
{
	const struct field *f = &site->field[i];

	for (int j = 0; j < i; j++) {
		const char *o = site->field[j].name;
		size_t lo = strlen(o), lf = strlen(f->name);

		if (site->field[j].hidden)
			continue;
		if ((lo < lf && !strncmp(o, f->name, lo) && f->name[lo] == '.') ||
		    (lf < lo && !strncmp(o, f->name, lf) && o[lf] == '.'))
			return refuse(s, f->line,
				      "%s and %s (line %ld): a key is a value or an object, not both",
				      f->name, o, site->field[j].line);
		if (prev && common_groups(o, f->name) > common_groups(prev, f->name))
			return refuse(s, f->line,
				      "%s: the fields of an object are consecutive (%s is at line %ld)",
				      f->name, o, site->field[j].line);
	}
	return 0;
}

static int nest(struct go_spec *s, struct site *site)
{
	const char *prev = NULL;
	struct strbuf sb = STRBUF_INIT;

	for (int i = 0; i < site->nfields; i++) {
		struct field *f = &site->field[i];
		int c;

		if (f->hidden)
			continue;
		if (nest_check(s, site, i, prev)) {
			strbuf_release(&sb);
			return -1;
		}
		/* the header comes first: every key follows another, or a "{" */
		c = prev ? common_groups(prev, f->name) : 0;
		strbuf_reset(&sb);
		for (int k = prev ? groups(prev) : 0; k > c; k--)
			strbuf_addstr(&sb, "}");
		for (int k = c; k <= groups(f->name); k++) {
			strbuf_addstr(&sb, k == c ? "," : "{");
			add_key(&sb, f->name, k);
		}
		f->pre = xstrdup(sb.buf);
		f->pre_len = sb.len;
		prev = f->name;
	}
	strbuf_reset(&sb);
	for (int k = prev ? groups(prev) : 0; k > 0; k--)
		strbuf_addstr(&sb, "}");
	strbuf_addstr(&sb, "}\n");
	site->post = xstrdup(sb.buf);
	site->post_len = sb.len;
	strbuf_release(&sb);
	return 0;
}

/* Every line of the spec, until the end or the first refusal. */
static int parse_lines(struct go_spec *s)
{
	struct line_reader lr;
	struct site *site = NULL;
	const char *line;
	int rc;

	if (line_reader_try_open_as(&lr, s->path, s->path, s->err))
		return -1;
	while (!(rc = line_reader_try_next(&lr, &line, s->err)) && line &&
	       !(rc = parse_line(s, lr.buf, lr.line, &site)))
		;
	line_reader_close(&lr);
	return rc;
}

/* What the lines make together: clauses resolved, each site's nesting. */
static int resolve_spec(struct go_spec *s)
{
	if (!s->nfuncs)
		return refuse(s, 0, "the probe spec names no function");
	for (int i = 0; i < s->nfuncs; i++)
		if (resolve_events(s, s->func[i].entry) ||
		    resolve_events(s, s->func[i].exit))
			return -1;
	for (int i = 0; i < s->nfuncs; i++) {
		struct func *fn = &s->func[i];

		if (!fn->entry && !fn->exit)
			return refuse(s, fn->line,
				      "%s has neither an entry nor a return event, and no 'while' names it",
				      fn->name);
		if ((fn->entry && nest(s, fn->entry)) || (fn->exit && nest(s, fn->exit)))
			return -1;
	}
	return 0;
}

struct go_spec *go_spec_parse(const char *path, struct cap_err *err)
{
	struct go_spec *s = xcalloc(1, sizeof(*s));

	s->path = xstrdup(path);
	s->key = xstrdup("event");
	s->with_proc = 1;
	s->err = err;
	s->calls = go_calls_new();
	if (parse_lines(s) || resolve_spec(s)) {
		go_spec_free(s);
		return NULL;
	}
	s->err = NULL;
	return s;
}

/* Resolve @expr into read @slot of @site, checking it is a @kind of @size. */
/* The expression did not resolve: why (freed), at @line. */
static int unresolved(struct go_spec *s, long line, struct go_binary *b, char *why)
{
	refuse(s, line, "%s: %s", go_path(b), why);
	free(why);
	return -1;
}

static int resolve_read(struct go_spec *s, struct go_binary *b, Dwarf_Die *fn,
			struct site *site, struct field *f, const char *expr,
			int is_len, int slot)
{
	struct go_value v;
	char *why = go_expr(b, fn, expr, site->at_exit, &v);

	if (why)
		return unresolved(s, f->line, b, why);
	if (!is_len && f->table && v.kind == GO_KIND_BOOL)
		return refuse(s, f->line,
			      "%s is %s: a table names integers", expr, v.type);
	if (!is_len && !f->table && (v.kind != f->kind || v.size != f->size))
		return refuse(s, f->line,
			      "%s is %s (%d bytes, as %s), not %s: the sizes or kinds differ",
			      expr, v.type, v.size, type_label(v.kind, v.size),
			      type_label(f->kind, f->size));
	if (v.is_arg_reg && site->at_exit)
		v.rd.src = GP_SRC_SAVED;   /* reg becomes its saved index below */
	site->gp.reads[slot] = v.rd;
	return 0;
}

/* resolve_read() of @expr (freed here). */
static int resolve_text(struct go_spec *s, struct go_binary *b, Dwarf_Die *fn,
			struct site *site, struct field *f, char *expr,
			int is_len, int slot)
{
	int rc = resolve_read(s, b, fn, site, f, expr, is_len, slot);

	free(expr);
	return rc;
}

/*
 * Every read of @f: none (computed), one, or the length and N elements;
 * the next free slot, or -1.
 */
static int resolve_field(struct go_spec *s, struct go_binary *b, Dwarf_Die *fn,
			 struct site *site, struct field *f, int slot)
{
	if (f->calc)
		return slot;
	if (slot + 1 + f->count > GP_MAX_READS)
		return refuse(s, f->line,
			      "event %s reads more than %d values", site->ev[0].name, GP_MAX_READS);
	f->slot = slot;
	if (!f->count)
		return resolve_text(s, b, fn, site, f,
				    xasprintf("%s%s", f->star ? "*" : "", f->expr),
				    0, slot) ? -1 : slot + 1;
	f->len_slot = slot;
	if (resolve_text(s, b, fn, site, f, xasprintf("len(%s)", f->expr), 1, slot))
		return -1;
	f->slot = slot + 1;
	for (int i = 0; i < f->count; i++)
		if (resolve_text(s, b, fn, site, f,
				 xasprintf("%s%s[%d]%s", f->star ? "*" : "", f->expr,
					   i, f->rest), 0, f->slot + i))
			return -1;
	return f->slot + f->count;
}

/*
 * A return reads an argument register through what its entry saved: the
 * registers the return's reads start from become the entry's saved
 * arguments, in order of first use.
 */
static int save_args(struct go_spec *s, struct func *fn, struct gp_site *entry)
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
				return refuse(s, fn->exit->line,
					      "event %s reads more than %d argument registers",
					      fn->exit->ev[0].name, GP_SAVED_ARGS);
			entry->saved[entry->nsaved++] = rd->reg;
		}
		rd->reg = (unsigned char)k;
	}
	if (!entry->nsaved)      /* exits pair with their entry through a frame */
		entry->saved[entry->nsaved++] = GP_RAX;
	return 0;
}

static int resolve_site(struct go_spec *s, struct go_binary *b, Dwarf_Die *d,
			struct site *site)
{
	int slot = 0;

	for (int i = 0; i < site->nfields; i++)
		if ((slot = resolve_field(s, b, d, site, &site->field[i], slot)) < 0)
			return -1;
	site->gp.nreads = (unsigned)slot;
	site->goid_slot = -1;
	return 0;
}

/*
 * A "while" event needs the goroutine's id, which the BPF program reads
 * only where it pairs entries with returns: an entry that saves nothing
 * reads it as one more value (not written to raw/).
 */
static int read_goid(struct go_spec *s, struct go_binary *b, Dwarf_Die *d,
		     struct site *site, struct gp_site *gp)
{
	struct go_value v;
	char *why;
	int open = 0;

	for (int i = 0; i < site->nevents; i++)
		open |= site->ev[i].open != NULL;
	if (!open || gp->nsaved)
		return 0;
	if (gp->nreads == GP_MAX_READS)
		return refuse(s, site->line,
			      "event %s reads %d values and 'while' needs one more",
			      site->ev[0].name, GP_MAX_READS);
	if ((why = go_expr(b, d, "goid", 0, &v)))
		return unresolved(s, site->line, b, why);
	site->goid_slot = (int)gp->nreads;
	gp->reads[gp->nreads++] = v.rd;
	return 0;
}

/* The reads of @fn's entry and return, into @entry and its exit site. */
static int resolve_func(struct go_spec *s, struct go_binary *b, struct func *fn,
			struct gp_site *entry)
{
	struct go_func gf;
	struct cap_err why;
	Dwarf_Die d;

	if (go_func(b, fn->name, &gf, &why) || go_subprogram(b, fn->name, &d, &why)) {
		cap_fail_at(s->err, why.code, s->path, fn->line, "%s", cap_err_text(&why));
		cap_err_release(&why);
		return -1;
	}
	if (fn->entry) {
		if (resolve_site(s, b, &d, fn->entry))
			return -1;
		*entry = fn->entry->gp;
	}
	if (fn->exit && (resolve_site(s, b, &d, fn->exit) || save_args(s, fn, entry)))
		return -1;
	return fn->entry ? read_goid(s, b, &d, fn->entry, entry) : 0;
}

int go_spec_probe(struct go_spec *s, struct gp_engine *e, struct cap_err *err)
{
	struct go_binary *b = gp_binary(e);

	s->err = err;
	for (int i = 0; i < s->nfuncs; i++) {
		struct func *fn = &s->func[i];
		struct gp_site entry = { 0 };
		int id;

		if (resolve_func(s, b, fn, &entry))
			return -1;
		id = gp_probe(e, fn->name, &entry, fn->exit ? &fn->exit->gp : NULL, err);
		if (id < 0)
			return -1;
		s->by_id[id] = fn->entry;
		if (fn->exit)
			s->by_id[id + 1] = fn->exit;
	}
	s->err = NULL;
	return 0;
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

/* @v of a signed field of @size bytes, sign-extended to 64 bits. */
static unsigned long long extend(const struct field *f, unsigned long long v)
{
	int keep = 64 - 8 * f->size;

	if (f->kind != GO_KIND_SIGNED)
		return v;
	return (unsigned long long)((long long)(v << keep) >> keep);
}

/* @t's name for @v, or NULL ("-" or past its end). */
static const char *table_name(const struct table *t, unsigned long long v)
{
	return v < (unsigned long long)t->n ? t->shown[v] : NULL;
}

static void put_scalar(struct go_spec *s, struct strbuf *l, const struct field *f,
		       int have, unsigned long long v)
{
	const char *name = f->table && have ? table_name(f->table, v) : NULL;

	if (!have) {
		ADD_LIT(l, "null");
	} else if (f->table && !name) {
		fail(s, f->line, "%s: %llu has no name in table %s", f->name, v,
		     f->table->name);
	} else if (f->table) {
		ADD_LIT(l, "\"");
		strbuf_put(l, name, f->table->len[v]);
		ADD_LIT(l, "\"");
	} else if (f->kind == GO_KIND_BOOL) {
		if (v & 0xff)
			ADD_LIT(l, "true");
		else
			ADD_LIT(l, "false");
	} else {
		if (f->quoted)
			ADD_LIT(l, "\"");
		if (f->kind == GO_KIND_SIGNED)
			strbuf_add_int(l, (long long)extend(f, v));
		else
			strbuf_add_uint(l, v);
		if (f->quoted)
			ADD_LIT(l, "\"");
	}
}

/* A [:N] field's length, or -1 (nil, or longer than N: then the run fails). */
static long long slice_len(struct go_spec *s, const struct field *f,
			   const struct gp_record *r)
{
	unsigned long long n;

	if (r->nil_mask & (1u << f->len_slot))
		return -1;
	n = r->val[f->len_slot];
	if (n > (unsigned long long)f->count) {
		fail(s, f->line, "%s: a slice of %llu elements, the spec reads at most %d",
		     f->name, n, f->count);
		return -1;
	}
	return (long long)n;
}

static void put_field(struct go_spec *s, struct strbuf *l, const struct field *f,
		      const struct gp_record *r, const struct go_val *val)
{
	unsigned long long v;
	long long n;

	strbuf_put(l, f->pre, f->pre_len);
	if (!f->count) {
		put_scalar(s, l, f, val->have, val->v);
		return;
	}
	if ((n = slice_len(s, f, r)) < 0) {
		ADD_LIT(l, "null");
		return;
	}
	ADD_LIT(l, "[");
	for (int i = 0; i < n; i++) {
		int have = field_value(f, r, f->slot + i, &v);

		if (i)
			ADD_LIT(l, ",");
		put_scalar(s, l, f, have, v);
	}
	ADD_LIT(l, "]");
}

/* The one-value fields of @r, read and computed, into s->vals. */
static void values(struct go_spec *s, const struct site *site,
		   const struct gp_record *r)
{
	for (int i = 0; i < site->nfields; i++) {
		const struct field *f = &site->field[i];
		struct go_val *v = &s->vals[i];
		int nil;

		v->have = 0;
		if (f->count)
			continue;
		if (!f->calc) {
			v->have = field_value(f, r, f->slot, &v->v);
			v->v = extend(f, v->v);
		} else if (go_calc_eval(f->calc, s->vals, &v->v, &nil)) {
			fail(s, f->line, "%s: %s is nil", f->name, site->field[nil].name);
		} else {
			v->have = 1;
		}
	}
}

static void write_raw(struct go_spec *s, const struct gp_record *r, int proc,
		      unsigned nvals)
{
	struct strbuf *l = &s->line;

	if (!s->raw)
		return;
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
 * The name of @ev for @r, or NULL for none (a value its table leaves
 * unnamed, or one it cannot name: then the run fails); *@entry the table
 * entry it counts under.
 */
static const char *event_name(struct go_spec *s, const struct site *site,
			      const struct event *ev, int *entry)
{
	const struct go_val *v = &s->vals[ev->by_field];

	*entry = -1;
	if (!ev->by_table)
		return ev->name;
	if (!v->have) {
		fail(s, ev->line, "%s is nil: no event name (give it 'or VALUE')",
		     site->field[ev->by_field].name);
		return NULL;
	}
	if (v->v < (unsigned long long)ev->by_table->n) {
		*entry = (int)v->v;
		return table_name(ev->by_table, v->v);
	}
	fail(s, ev->line, "%s: %llu is past table %s", site->field[ev->by_field].name,
	     v->v, ev->by_table->name);
	return NULL;
}

/* How many copies of @ev @r makes: 1, or per its slice's matching elements. */
static int copies(struct go_spec *s, const struct site *site,
		  const struct event *ev, const struct gp_record *r)
{
	const struct field *f = &site->field[ev->per_field];
	unsigned long long v;
	long long n;
	int k = 0;

	if (!ev->per_name)
		return 1;
	if ((n = slice_len(s, f, r)) < 0) {
		fail(s, ev->line, "per %s: the slice is nil or too long", f->name);
		return 0;
	}
	for (int i = 0; i < n; i++) {
		if (!field_value(f, r, f->slot + i, &v)) {
			fail(s, ev->line, "per %s: element %d is nil (give it 'or VALUE')",
			     f->name, i);
			return 0;
		}
		k += extend(f, v) == ev->per_value;
	}
	return k;
}

/* "while SYMBOL [once]": inside a call of SYMBOL on this goroutine? */
static int inside(struct go_spec *s, const struct event *ev, int proc,
		  unsigned long long goid)
{
	unsigned long long *done;

	if (!ev->open)
		return 1;
	done = go_calls_open(s->calls, proc, goid, ev->open->index);
	if (!done)
		return 0;
	if (!ev->once)
		return 1;
	if (*done & (1ull << (ev->once - 1)))
		return 0;
	*done |= 1ull << (ev->once - 1);
	return 1;
}

static void write_event(struct go_spec *s, const struct site *site,
			const char *name, int proc, const struct gp_record *r)
{
	struct strbuf *l = &s->line;

	strbuf_reset(l);
	ADD_LIT(l, "{\"");
	strbuf_addstr(l, s->key);
	ADD_LIT(l, "\":\"");
	strbuf_addstr(l, name);
	ADD_LIT(l, "\"");
	if (s->with_proc) {
		ADD_LIT(l, ",\"proc\":");
		strbuf_add_int(l, proc);
	}
	for (int i = 0; i < site->nfields; i++)
		if (!site->field[i].hidden)
			put_field(s, l, &site->field[i], r, &s->vals[i]);
	strbuf_put(l, site->post, site->post_len);
	fwrite(l->buf, 1, l->len, s->events);
	s->events_written++;
}

static void site_events(struct go_spec *s, struct site *site, int proc,
			unsigned long long goid, const struct gp_record *r)
{
	int have_values = 0;

	for (int i = 0; i < site->nevents && !s->error; i++) {
		struct event *ev = &site->ev[i];
		const char *name;
		int entry, n;

		if (!inside(s, ev, proc, goid))
			continue;
		if (!have_values++)
			values(s, site, r);
		if (!(name = event_name(s, site, ev, &entry)) ||
		    !(n = copies(s, site, ev, r)))
			continue;
		if (entry >= 0)
			ev->by_count[entry] += n;
		else
			ev->count += n;
		while (n-- && !s->error)
			write_event(s, site, name, proc, r);
	}
}

/* A followed call returns: every "once" event must have been written in it. */
static void leave(struct go_spec *s, struct func *fn, int proc,
		  unsigned long long goid)
{
	unsigned long long done;

	if (go_calls_leave(s->calls, proc, goid, fn->index, &done))
		return;   /* entered before the capture: not followed */
	for (int i = 0; i < s->nfuncs; i++) {
		struct site *x[2] = { s->func[i].entry, s->func[i].exit };

		for (int k = 0; k < 2; k++)
			for (int j = 0; x[k] && j < x[k]->nevents; j++) {
				const struct event *ev = &x[k]->ev[j];

				if (ev->open == fn && ev->once &&
				    !(done & (1ull << (ev->once - 1))))
					fail(s, ev->line, "%s returned without event %s",
					     fn->name, ev->name);
			}
	}
}

void go_spec_record(const struct gp_record *r, void *arg)
{
	struct go_spec *s = arg;
	struct gp_record copy;
	struct site *site;
	unsigned long long goid;
	int proc;

	if (s->error)
		return;
	s->records++;
	proc = proc_index(s, r->pid);
	site = r->site < GP_MAX_SITES ? s->by_id[r->site] : NULL;
	if (r->site == GP_SITE_EXEC || !site) {
		write_raw(s, r, proc, 0);
		return;
	}
	if (s->raw)
		write_raw(s, past_length(site, r, &copy), proc, site->gp.nreads);
	goid = site->goid_slot >= 0 ? r->val[site->goid_slot] : r->goid;
	if (site->fn->tracked && !site->at_exit)
		go_calls_enter(s->calls, proc, goid, site->fn->index);
	site_events(s, site, proc, goid, r);
	if (site->fn->tracked && site->at_exit)
		leave(s, site->fn, proc, goid);
}

/* A site's events per name: a table's names in its order, those seen. */
static void count_events(cJSON *counts, const struct site *site)
{
	for (int k = 0; site && k < site->nevents; k++) {
		const struct event *ev = &site->ev[k];

		if (!ev->by_table) {
			json_count(counts, ev->name, ev->count);
			continue;
		}
		for (int i = 0; i < ev->by_table->n; i++)
			if (ev->by_count[i] && table_name(ev->by_table, (unsigned)i))
				json_count(counts, ev->by_table->names[i], ev->by_count[i]);
	}
}

int go_spec_end(struct go_spec *s, cJSON *m, struct cap_err *err)
{
	cJSON *counts;

	if (s->error)
		return cap_fail(err, EXIT_CAPTURE_FAILED, "%s", s->error);
	if (!m)
		return 0;
	counts = json_add(m, "events", json_obj());
	for (int i = 0; i < s->nfuncs; i++) {
		count_events(counts, s->func[i].entry);
		count_events(counts, s->func[i].exit);
	}
	json_add(m, "records", json_int(s->records));
	json_add(m, "processes", json_int(s->nprocs));
	return 0;
}

static void free_site(struct site *site)
{
	if (!site)
		return;
	for (int j = 0; j < site->nfields; j++)
		field_free(&site->field[j]);
	for (int j = 0; j < site->nevents; j++) {
		free(site->ev[j].name);
		free(site->ev[j].by_name);
		free(site->ev[j].by_count);
		free(site->ev[j].open_name);
		free(site->ev[j].per_name);
		free(site->ev[j].per_text);
	}
	free(site->post);
	free(site);
}

long go_spec_events(const struct go_spec *s)
{
	return s->events_written;
}

void go_spec_free(struct go_spec *s)
{
	for (int i = 0; i < s->nfuncs; i++) {
		free_site(s->func[i].entry);
		free_site(s->func[i].exit);
		free(s->func[i].name);
	}
	for (int i = 0; i < s->ntables; i++) {
		for (int k = 0; k < s->table[i].n; k++)
			free(s->table[i].names[k]);
		free(s->table[i].names);
		free(s->table[i].shown);
		free(s->table[i].len);
		free(s->table[i].name);
	}
	for (int i = 0; i < s->ngroups; i++) {
		for (int k = 0; k < s->group[i].n; k++)
			free(s->group[i].text[k]);
		free(s->group[i].name);
		free(s->group[i].param);
	}
	go_calls_free(s->calls);
	strbuf_release(&s->line);
	free(s->key);
	free(s->path);
	free(s);
}

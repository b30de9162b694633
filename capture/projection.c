// SPDX-License-Identifier: MIT
/*
 * A projection's lines (docs/projection.md): everything after the spec's
 * "projection NAME" line, one statement a line, '#' a comment:
 *
 *   state NAME[=PATH]...          the observable state's fields
 *   key MAP NAME[=PATH]...        the state per key: {MAP: {KEY: state}}
 *   thread [NAME=]PATH            the events' thread (calls pair in it)
 *   actor NAME                    the data key naming who acts
 *   start EVENT                   windows start at the first EVENT
 *   actions TABLE VALUE=ACTION... a value's action ("-": none; "*": others)
 *   call ENTRY RETURN [ACTION | by PATH TABLE] [serialized]
 *   event EVENT [ACTION | by PATH TABLE]
 *   observe EVENT...
 *   data NAME[=PATH]...           the last call's or event's window data
 *   row NAME [VALUE...]           an audit row axis (a state field)
 *   column NAME [VALUE...]        an audit column axis (a data key)
 *   impossible [NAME=VALUE...] ACTION [NAME=VALUE...] because WHY
 *   reaches NAME=VALUE...         the impossible cell's window
 *
 * The lines before "projection" are the probe spec's: only its "header
 * KEY" (the events' name key) matters here.  This file also keeps the
 * one projection loaded, and records it in a corpus and reads it back.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "corpus.h"
#include "die.h"
#include "json.h"
#include "ndjson.h"
#include "proc.h"
#include "projection.h"
#include "projection-rules.h"
#include "system.h"

#define MAX_WORDS 256

static char *copy_n(const char *s, size_t n)
{
	char *c = xmalloc(n + 1);

	memcpy(c, s, n);
	c[n] = 0;
	return c;
}

struct parse {
	struct projection *pj;
	const char *name;          /* the file, as messages name it */
	struct cap_err *err;
	long line;
	int in;                    /* past the "projection" line */
	struct proj_rule *last;    /* for data lines */
	struct proj_impossible *last_imp;  /* for a reaches line */
};

__attribute__((format(printf, 2, 3)))
static int refuse(struct parse *ps, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return cap_fail_at(ps->err, EXIT_BAD_INPUT, ps->name, ps->line, "%s", msg);
}

/* A system's name: lower case, digits and '-', a letter first. */
static int is_system_name(const char *s)
{
	if (!islower((unsigned char)*s) || strlen(s) > 32)
		return 0;
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) &&
		    *s != '-')
			return 0;
	return 1;
}

/* NAME[=PATH] (PATH NAME.NAME...; NAME alone: PATH's last member). */
static int parse_path(struct parse *ps, const char *word, struct proj_path *p)
{
	const char *eq = strchr(word, '='), *path = eq ? eq + 1 : word;
	char *copy = xstrdup(path), *save = NULL;
	int ok = *path && path[0] != '.' && path[strlen(path) - 1] != '.' &&
		 !strstr(path, "..");

	memset(p, 0, sizeof(*p));
	for (char *m = strtok_r(copy, ".", &save); ok && m;
	     m = strtok_r(NULL, ".", &save)) {
		ok = is_identifier(m);
		p->part = xrealloc(p->part, (p->n + 1) * sizeof(*p->part));
		p->part[p->n++] = xstrdup(m);
	}
	free(copy);
	p->name = eq ? copy_n(word, (size_t)(eq - word)) :
		  xstrdup(ok ? p->part[p->n - 1] : word);
	if (!ok || !is_identifier(p->name))
		return refuse(ps, "%s: expected NAME or NAME=PATH (PATH: an event's "
			      "field, NAME.NAME... for a nested one)", word);
	return 0;
}

static int find_path(const struct proj_path *p, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(p[i].name, name))
			return i;
	return -1;
}

static int parse_paths(struct parse *ps, char **w, int n, struct proj_path **out,
		       int *nout)
{
	for (int i = 0; i < n; i++) {
		struct proj_path p;

		if (parse_path(ps, w[i], &p))
			return -1;
		if (find_path(*out, *nout, p.name) >= 0)
			return refuse(ps, "%s: named twice", p.name);
		*out = xrealloc(*out, (*nout + 1) * sizeof(**out));
		(*out)[(*nout)++] = p;
	}
	return 0;
}

static int once(struct parse *ps, int already, const char *what)
{
	return already ? refuse(ps, "a second '%s' line: one a projection", what) : 0;
}

static const struct proj_table *find_table(const struct projection *pj,
					   const char *name)
{
	for (int i = 0; i < pj->ntables; i++)
		if (!strcmp(pj->table[i].name, name))
			return &pj->table[i];
	return NULL;
}

/* An action name of the projection's own: an identifier, not the fold's. */
static int action_name(struct parse *ps, const char *a)
{
	if (!strcmp(a, "-"))
		return 0;
	if (!is_identifier(a))
		return refuse(ps, "%s: an action is an identifier (or '-': none)", a);
	if (!strcmp(a, PROJ_UNTRACED) || !strcmp(a, PROJ_OVERLAPPED))
		return refuse(ps, "%s: the fold's own action (docs/projection.md)", a);
	return 0;
}

/* actions TABLE VALUE=ACTION... */
static int add_table(struct parse *ps, char **w, int n)
{
	struct projection *pj = ps->pj;
	struct proj_table *t;

	if (n < 3 || !is_identifier(w[1]))
		return refuse(ps, "expected 'actions TABLE VALUE=ACTION...'");
	if (find_table(pj, w[1]))
		return refuse(ps, "actions %s: defined twice", w[1]);
	pj->table = xrealloc(pj->table, (pj->ntables + 1) * sizeof(*pj->table));
	t = &pj->table[pj->ntables++];
	*t = (struct proj_table){ .name = xstrdup(w[1]), .line = ps->line };
	for (int i = 2; i < n; i++) {
		char *eq = strchr(w[i], '=');

		if (!eq || eq == w[i] || !eq[1])
			return refuse(ps, "%s: expected VALUE=ACTION", w[i]);
		*eq = 0;
		if (action_name(ps, eq + 1))
			return -1;
		if (!strcmp(w[i], "*")) {
			if (t->other)
				return refuse(ps, "*: given twice");
			t->other = 1;
			t->other_to = strcmp(eq + 1, "-") ? xstrdup(eq + 1) : NULL;
			continue;
		}
		for (int k = 0; k < t->n; k++)
			if (!strcmp(t->from[k], w[i]))
				return refuse(ps, "%s: given twice", w[i]);
		t->from = xrealloc(t->from, (t->n + 1) * sizeof(*t->from));
		t->to = xrealloc(t->to, (t->n + 1) * sizeof(*t->to));
		t->from[t->n] = xstrdup(w[i]);
		t->to[t->n++] = strcmp(eq + 1, "-") ? xstrdup(eq + 1) : NULL;
	}
	return 0;
}

/* The role of @event in rules other than @self: its first rule, or NULL. */
static const struct proj_rule *used(const struct projection *pj,
				    const char *event, const struct proj_rule *self)
{
	for (int i = 0; i < pj->nrules; i++) {
		const struct proj_rule *r = &pj->rule[i];

		if (r == self)
			continue;
		if (!strcmp(r->event, event) || (r->ret && !strcmp(r->ret, event)))
			return r;
	}
	return NULL;
}

/* An event named once: a call's return may end several calls. */
static int event_free(struct parse *ps, const char *event, int as_return)
{
	const struct proj_rule *r = used(ps->pj, event, NULL);

	if (!is_identifier(event))
		return refuse(ps, "%s: an event's name is an identifier", event);
	if (r && !(as_return && r->ret && !strcmp(r->ret, event)))
		return refuse(ps, "%s: already the %s of line %ld", event,
			      r->ret && !strcmp(r->ret, event) ? "return" :
			      r->kind == PROJ_CALL ? "entry" : "event", r->line);
	return 0;
}

static struct proj_rule *new_rule(struct projection *pj, enum proj_kind kind,
				  long line, const char *event)
{
	struct proj_rule *r;

	pj->rule = xrealloc(pj->rule, (pj->nrules + 1) * sizeof(*pj->rule));
	r = &pj->rule[pj->nrules++];
	*r = (struct proj_rule){ .kind = kind, .line = line,
				 .event = xstrdup(event), .table = -1 };
	return r;
}

/* [ACTION | by PATH TABLE] [serialized], from @w. */
static int rule_naming(struct parse *ps, struct proj_rule *r, char **w, int n)
{
	int i = 0;

	if (i < n && !strcmp(w[i], "by")) {
		if (i + 2 >= n)
			return refuse(ps, "by: expected 'by PATH TABLE'");
		if (parse_path(ps, w[i + 1], &r->by))
			return -1;
		if (!find_table(ps->pj, w[i + 2]))
			return refuse(ps, "by %s %s: no 'actions %s' above", w[i + 1],
				      w[i + 2], w[i + 2]);
		r->table = (int)(find_table(ps->pj, w[i + 2]) - ps->pj->table);
		i += 3;
	} else if (i < n && strcmp(w[i], "serialized")) {
		if (action_name(ps, w[i]))
			return -1;
		r->action = xstrdup(w[i++]);
	} else {
		r->action = xstrdup(r->event);
	}
	if (i < n && !strcmp(w[i], "serialized") && r->kind == PROJ_CALL) {
		r->serialized = 1;
		i++;
	}
	if (i < n)
		return refuse(ps, "%s: unexpected (expected ACTION, 'by PATH TABLE'%s)",
			      w[i], r->kind == PROJ_CALL ? " or 'serialized'" : "");
	return 0;
}

static int add_rule(struct parse *ps, char **w, int n)
{
	struct projection *pj = ps->pj;
	struct proj_rule *r;

	ps->last = NULL;
	if (!strcmp(w[0], "observe")) {
		if (n < 2)
			return refuse(ps, "expected 'observe EVENT...'");
		for (int i = 1; i < n; i++) {
			if (event_free(ps, w[i], 0))
				return -1;
			new_rule(pj, PROJ_OBSERVE, ps->line, w[i]);
		}
		return 0;
	}
	if (!strcmp(w[0], "call")) {
		if (n < 3)
			return refuse(ps, "expected 'call ENTRY RETURN [ACTION | by "
				      "PATH TABLE] [serialized]'");
		if (!strcmp(w[1], w[2]))
			return refuse(ps, "%s: a call's entry and return are two events",
				      w[1]);
		if (event_free(ps, w[1], 0) || event_free(ps, w[2], 1))
			return -1;
		r = new_rule(pj, PROJ_CALL, ps->line, w[1]);
		r->ret = xstrdup(w[2]);
		w += 3;
		n -= 3;
	} else {
		if (n < 2)
			return refuse(ps, "expected 'event EVENT [ACTION | by PATH TABLE]'");
		if (event_free(ps, w[1], 0))
			return -1;
		r = new_rule(pj, PROJ_EVENT, ps->line, w[1]);
		w += 2;
		n -= 2;
	}
	ps->last = r;
	return rule_naming(ps, r, w, n);
}

/* Can a window have both data @i and @j of @r (their actions meet)? */
static int data_meet(const struct proj_rule *r, int i, int j)
{
	const struct proj_only *o = &r->only[i];

	if (!o->n || !r->only[j].n)
		return 1;
	for (int k = 0; k < o->n; k++)
		if (proj_data_for(r, j, o->action[k]))
			return 1;
	return 0;
}

/* data NAME[=PATH]... [for ACTION...] */
static int add_data(struct parse *ps, char **w, int n)
{
	struct proj_rule *r = ps->last;
	int end = 1, first = r ? r->ndata : 0;

	if (!r)
		return refuse(ps, "data: after a 'call' or 'event' line");
	while (end < n && strcmp(w[end], "for"))
		end++;
	if (end == 1 || end == n - 1)
		return refuse(ps, "expected 'data NAME[=PATH]... [for ACTION...]'");
	for (int i = 1; i < end; i++) {
		struct proj_path p;
		struct proj_only *o;

		if (parse_path(ps, w[i], &p))
			return -1;
		r->data = xrealloc(r->data, (r->ndata + 1) * sizeof(*r->data));
		r->only = xrealloc(r->only, (r->ndata + 1) * sizeof(*r->only));
		r->data[r->ndata] = p;
		o = &r->only[r->ndata++];
		*o = (struct proj_only){ 0 };
		for (int k = end + 1; k < n; k++) {
			o->action = xrealloc(o->action, (o->n + 1) * sizeof(*o->action));
			o->action[o->n++] = xstrdup(w[k]);
		}
	}
	for (int i = first; i < r->ndata; i++)
		for (int j = 0; j < i; j++)
			if (!strcmp(r->data[i].name, r->data[j].name) && data_meet(r, i, j))
				return refuse(ps, "data %s: named twice for one action",
					      r->data[i].name);
	return 0;
}

/* A label's value: a number, true, false, null or a word (a string). */
static cJSON *axis_value(struct parse *ps, const char *word)
{
	char *end;

	if (!strcmp(word, "true") || !strcmp(word, "false"))
		return json_bool(!strcmp(word, "true"));
	if (!strcmp(word, "null"))
		return json_null();
	errno = 0;
	long long v = strtoll(word, &end, 10);
	if (!*end && end != word && !errno)
		return json_int(v);
	if (strpbrk(word, "=(),\"\\") || (isdigit((unsigned char)*word) || *word == '-')) {
		refuse(ps, "%s: a value is an integer, true, false, null or a word "
		       "without = ( ) , \" or \\", word);
		return NULL;
	}
	return json_str(word);
}

static int add_axis(struct parse *ps, char **w, int n)
{
	struct projection *pj = ps->pj;
	int row = !strcmp(w[0], "row");
	struct proj_axis **axes = row ? &pj->row : &pj->col;
	int *nax = row ? &pj->nrows : &pj->ncols;
	struct proj_axis *a;

	if (n < 2 || !is_identifier(w[1]))
		return refuse(ps, "expected '%s NAME [VALUE...]'", w[0]);
	if (row && find_path(pj->state, pj->nstate, w[1]) < 0)
		return refuse(ps, "row %s: no state field %s", w[1], w[1]);
	for (int i = 0; i < *nax; i++)
		if (!strcmp((*axes)[i].name, w[1]))
			return refuse(ps, "%s %s: given twice", w[0], w[1]);
	*axes = xrealloc(*axes, (*nax + 1) * sizeof(**axes));
	a = &(*axes)[(*nax)++];
	*a = (struct proj_axis){ .name = xstrdup(w[1]), .line = ps->line };
	if (n > 2)
		a->values = json_arr();
	for (int i = 2; i < n; i++) {
		cJSON *v = axis_value(ps, w[i]);

		if (!v)
			return -1;
		json_add(a->values, NULL, v);
	}
	return 0;
}

static int axis_index(const struct proj_axis *a, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(a[i].name, name))
			return i;
	return -1;
}

/* NAME=VALUE on one of @n axes @a (@what names them in a refusal). */
static int condition(struct parse *ps, const char *word, const struct proj_axis *a,
		     int n, const char *what, struct proj_cond *c)
{
	const char *eq = strchr(word, '=');
	char *name;
	cJSON *v;
	struct strbuf sb = STRBUF_INIT;

	c->value = NULL;   /* what a refusal leaves is freed */
	if (!eq || eq == word)
		return refuse(ps, "%s: expected NAME=VALUE", word);
	name = copy_n(word, (size_t)(eq - word));
	c->axis = axis_index(a, n, name);
	if (c->axis < 0) {
		refuse(ps, "%s: no %s axis %s", word, what, name);
		free(name);
		return -1;
	}
	free(name);
	if (!(v = axis_value(ps, eq + 1)))
		return -1;
	proj_value_text(v, &sb);
	c->value = sb.buf;
	cJSON_Delete(v);
	return 0;
}

static int is_action(const struct projection *pj, const char *a)
{
	for (int i = 0; i < pj->nactions; i++)
		if (!strcmp(pj->actions[i], a))
			return 1;
	return 0;
}

static void add_action(struct projection *pj, const char *a)
{
	if (!a || !strcmp(a, "-") || is_action(pj, a))
		return;
	pj->actions = xrealloc(pj->actions, (pj->nactions + 2) * sizeof(*pj->actions));
	pj->actions[pj->nactions++] = a;
	pj->actions[pj->nactions] = NULL;
}

/* impossible [ROW=V...] ACTION [COL=V...] because WHY (@raw: the line). */
static int add_impossible(struct parse *ps, char **w, int n, const char *raw)
{
	struct projection *pj = ps->pj;
	struct proj_impossible *im;
	const char *because = strstr(raw, " because ");
	int i = 1;

	pj->imp = xrealloc(pj->imp, (pj->nimp + 1) * sizeof(*pj->imp));
	im = &pj->imp[pj->nimp++];
	*im = (struct proj_impossible){ .line = ps->line };
	ps->last_imp = im;
	for (; i < n && strchr(w[i], '='); i++) {
		im->row = xrealloc(im->row, (im->nrow + 1) * sizeof(*im->row));
		if (condition(ps, w[i], pj->row, pj->nrows, "row", &im->row[im->nrow++]))
			return -1;
	}
	if (i >= n || !strcmp(w[i], "because"))
		return refuse(ps, "impossible: expected [ROW=VALUE...] ACTION "
			      "[COLUMN=VALUE...] because WHY");
	im->action = xstrdup(w[i++]);
	for (; i < n && strcmp(w[i], "because"); i++) {
		im->col = xrealloc(im->col, (im->ncol + 1) * sizeof(*im->col));
		if (condition(ps, w[i], pj->col, pj->ncols, "column", &im->col[im->ncol++]))
			return -1;
	}
	if (i >= n - 1 || !because)
		return refuse(ps, "impossible: 'because WHY' ends the line");
	while (*because == ' ')
		because++;
	im->why = xstrdup(because + strlen("because "));
	while (strlen(im->why) && isspace((unsigned char)im->why[strlen(im->why) - 1]))
		im->why[strlen(im->why) - 1] = 0;
	return 0;
}

/* reaches NAME=VALUE...: the post-state of the impossible cell's window. */
static int add_reaches(struct parse *ps, char **w, int n)
{
	struct proj_impossible *im = ps->last_imp;
	const struct projection *pj = ps->pj;

	if (!im || im->nreach)
		return refuse(ps, "reaches: once, after an 'impossible' line");
	if (!strcmp(im->action, "*"))
		return refuse(ps, "reaches: the window of one action, not of '*'");
	if (n < 2)
		return refuse(ps, "expected 'reaches NAME=VALUE...'");
	for (int i = 0; i < pj->nstate; i++)
		if (axis_index(pj->row, pj->nrows, pj->state[i].name) < 0)
			return refuse(ps, "reaches: every state field must be a row "
				      "axis to draw the cell's window (%s is none)",
				      pj->state[i].name);
	for (int i = 0; i < pj->nkey; i++)
		if (axis_index(pj->col, pj->ncols, pj->key[i].name) < 0)
			return refuse(ps, "reaches: the key %s must be a column axis "
				      "to draw the cell's window", pj->key[i].name);
	for (int i = 1; i < n; i++) {
		struct proj_cond c;
		struct proj_axis *st = xcalloc((size_t)pj->nstate, sizeof(*st));
		const char *eq = strchr(w[i], '=');

		for (int k = 0; k < pj->nstate; k++)
			st[k].name = pj->state[k].name;
		if (condition(ps, w[i], st, pj->nstate, "state", &c)) {
			free(st);
			return -1;
		}
		free(st);
		im->reach = xrealloc(im->reach, (im->nreach + 1) * sizeof(*im->reach));
		im->reach_value = xrealloc(im->reach_value,
					   (im->nreach + 1) * sizeof(*im->reach_value));
		im->reach[im->nreach] = c;
		im->reach_value[im->nreach++] = axis_value(ps, eq + 1);
	}
	return 0;
}

static int split(char *text, char **w)
{
	int n = 0;

	for (char *t = strtok(text, " \t\r"); t && n < MAX_WORDS; t = strtok(NULL, " \t\r"))
		w[n++] = t;
	return n;
}

static int statement(struct parse *ps, char **w, int n, const char *raw)
{
	struct projection *pj = ps->pj;
	const char *s = w[0];

	/* data and reaches lines go with the line above them */
	if (strcmp(s, "data"))
		ps->last = NULL;
	if (strcmp(s, "reaches"))
		ps->last_imp = NULL;
	if (!strcmp(s, "state") && !pj->nstate)
		pj->state_line = ps->line;
	if (!strcmp(s, "key") && !pj->map)
		pj->key_line = ps->line;
	if (!strcmp(s, "thread") && !pj->thread.name)
		pj->thread_line = ps->line;
	if (!strcmp(s, "state"))
		return once(ps, pj->nstate, s) ||
		       (n < 2 ? refuse(ps, "expected 'state NAME[=PATH]...'") :
			parse_paths(ps, w + 1, n - 1, &pj->state, &pj->nstate));
	if (!strcmp(s, "key")) {
		if (once(ps, pj->map != NULL, s))
			return -1;
		if (n < 3 || !is_identifier(w[1]))
			return refuse(ps, "expected 'key MAP NAME[=PATH]...'");
		pj->map = xstrdup(w[1]);
		return parse_paths(ps, w + 2, n - 2, &pj->key, &pj->nkey);
	}
	if (!strcmp(s, "thread")) {
		if (once(ps, pj->thread.name != NULL, s))
			return -1;
		if (n != 2)
			return refuse(ps, "expected 'thread [NAME=]PATH'");
		if (parse_path(ps, w[1], &pj->thread))
			return -1;
		if (!strchr(w[1], '=')) {
			free(pj->thread.name);
			pj->thread.name = xstrdup("thread");
		}
		return 0;
	}
	if (!strcmp(s, "actor") || !strcmp(s, "start")) {
		char **to = !strcmp(s, "actor") ? &pj->actor : &pj->start;

		*(*s == 'a' ? &pj->actor_line : &pj->start_line) = ps->line;
		if (once(ps, *to != NULL, s))
			return -1;
		if (n != 2 || !is_identifier(w[1]))
			return refuse(ps, "expected '%s %s'", s, *s == 'a' ? "NAME" : "EVENT");
		*to = xstrdup(w[1]);
		return 0;
	}
	if (!strcmp(s, "actions"))
		return add_table(ps, w, n);
	if (!strcmp(s, "call") || !strcmp(s, "event") || !strcmp(s, "observe"))
		return add_rule(ps, w, n);
	if (!strcmp(s, "data"))
		return add_data(ps, w, n);
	if (!strcmp(s, "row") || !strcmp(s, "column"))
		return add_axis(ps, w, n);
	if (!strcmp(s, "impossible"))
		return add_impossible(ps, w, n, raw);
	if (!strcmp(s, "reaches"))
		return add_reaches(ps, w, n);
	return refuse(ps, "'%s': expected state, key, thread, actor, start, actions, "
		      "call, event, observe, data, row, column, impossible or "
		      "reaches", s);
}

static int builtin(const char *name)
{
	for (const struct system *t = system_table(); t->folder; t++)
		if (!strcmp(t->folder->name, name))
			return 1;
	return 0;
}

/* One line: the spec's header before "projection", a statement after. */
static int parse_line(struct parse *ps, const char *line)
{
	char *raw = xstrdup(line), *text = xstrdup(line), *w[MAX_WORDS];
	int n, rc = 0;

	raw[strcspn(raw, "#")] = 0;
	text[strcspn(text, "#")] = 0;
	n = split(text, w);
	if (!n)
		goto out;
	if (!ps->in && !strcmp(w[0], "header") && n >= 2) {
		free(ps->pj->header);
		ps->pj->header = xstrdup(w[1]);
	} else if (!ps->in && !strcmp(w[0], "projection")) {
		ps->in = 1;
		if (n != 2 || !is_system_name(w[1]))
			rc = refuse(ps, "expected 'projection NAME', NAME of lower-case "
				    "letters, digits and '-' (at most 32)");
		else if (builtin(w[1]))
			rc = refuse(ps, "projection %s: a built-in system's name", w[1]);
		else
			ps->pj->name = xstrdup(w[1]);
	} else if (ps->in) {
		rc = statement(ps, w, n, raw);
	}
out:
	free(raw);
	free(text);
	return rc;
}

/* Can rule @r make @action? */
static int makes(const struct projection *pj, const struct proj_rule *r,
		 const char *action)
{
	const struct proj_table *t = r->table >= 0 ? &pj->table[r->table] : NULL;

	if (r->action)
		return !strcmp(r->action, action);
	for (int k = 0; k < t->n; k++)
		if (t->to[k] && !strcmp(t->to[k], action))
			return 1;
	return t->other_to && !strcmp(t->other_to, action);
}

/* Is @name a key of some window's data (a key, the thread, a data field)? */
static int data_key(const struct projection *pj, const char *name)
{
	if (find_path(pj->key, pj->nkey, name) >= 0 ||
	    (pj->thread.name && !strcmp(pj->thread.name, name)))
		return 1;
	for (int i = 0; i < pj->nrules; i++)
		if (find_path(pj->rule[i].data, pj->rule[i].ndata, name) >= 0)
			return 1;
	return 0;
}

/* What the lines make together: every name known where it is used. */
static int check_whole(struct parse *ps)
{
	struct projection *pj = ps->pj;

	ps->line = 0;
	if (!pj->nstate)
		return refuse(ps, "projection %s: no 'state' line", pj->name);
	if (pj->nstate > PROJ_MAX_STATE || pj->nkey > PROJ_MAX_KEY)
		return refuse(ps, "projection %s: at most %d state fields and %d key "
			      "fields", pj->name, PROJ_MAX_STATE, PROJ_MAX_KEY);
	if (!pj->nrules)
		return refuse(ps, "projection %s: no call or event", pj->name);
	for (int i = 0; i < pj->nrules; i++) {
		const struct proj_rule *r = &pj->rule[i];

		const struct proj_table *t = r->table >= 0 ? &pj->table[r->table] : NULL;

		for (int k = 0; k < r->ndata; k++) {
			const char *n = r->data[k].name;

			ps->line = r->line;
			for (int a = 0; a < r->only[k].n; a++)
				if (!makes(pj, r, r->only[k].action[a]))
					return refuse(ps, "%s: data %s for %s: the rule makes no "
						      "action %s", r->event, n,
						      r->only[k].action[a], r->only[k].action[a]);
			if (find_path(pj->key, pj->nkey, n) >= 0 ||
			    (pj->thread.name && !strcmp(n, pj->thread.name)))
				return refuse(ps, "%s: data %s: the window's data has "
					      "the %s %s already", r->event, n,
					      pj->thread.name && !strcmp(n, pj->thread.name) ?
					      "thread" : "key", n);
		}
		add_action(pj, r->action);
		for (int k = 0; t && k < t->n; k++)
			add_action(pj, t->to[k]);
		if (t)
			add_action(pj, t->other_to);
	}
	ps->line = pj->actor_line;
	if (pj->actor && find_path(pj->key, pj->nkey, pj->actor) < 0 &&
	    !(pj->thread.name && !strcmp(pj->thread.name, pj->actor)))
		return refuse(ps, "actor %s: neither a key nor the thread", pj->actor);
	for (int i = 0; i < pj->ncols; i++) {
		ps->line = pj->col[i].line;
		if (!data_key(pj, pj->col[i].name))
			return refuse(ps, "column %s: no call or event has data %s",
				      pj->col[i].name, pj->col[i].name);
	}
	ps->line = pj->start_line;
	if (pj->start && !used(pj, pj->start, NULL))
		return refuse(ps, "start %s: no call, event or observe of it",
			      pj->start);
	for (int i = 0; i < pj->nimp; i++) {
		ps->line = pj->imp[i].line;
		if (strcmp(pj->imp[i].action, "*") && !is_action(pj, pj->imp[i].action))
			return refuse(ps, "impossible ... %s: no action %s",
				      pj->imp[i].action, pj->imp[i].action);
	}
	return 0;
}

static void free_path(struct proj_path *p)
{
	for (int i = 0; i < p->n; i++)
		free(p->part[i]);
	free(p->part);
	free(p->name);
}

static void free_paths(struct proj_path *p, int n)
{
	for (int i = 0; i < n; i++)
		free_path(&p[i]);
	free(p);
}

static void free_projection(struct projection *pj)
{
	if (!pj)
		return;
	free_paths(pj->state, pj->nstate);
	free_paths(pj->key, pj->nkey);
	free_path(&pj->thread);
	for (int i = 0; i < pj->nrules; i++) {
		struct proj_rule *r = &pj->rule[i];

		free(r->event);
		free(r->ret);
		free(r->action);
		free_path(&r->by);
		for (int k = 0; k < r->ndata; k++) {
			for (int a = 0; a < r->only[k].n; a++)
				free(r->only[k].action[a]);
			free(r->only[k].action);
		}
		free(r->only);
		free_paths(r->data, r->ndata);
	}
	for (int i = 0; i < pj->ntables; i++) {
		struct proj_table *t = &pj->table[i];

		for (int k = 0; k < t->n; k++) {
			free(t->from[k]);
			free(t->to[k]);
		}
		free(t->from);
		free(t->to);
		free(t->other_to);
		free(t->name);
	}
	for (int i = 0; i < pj->nrows + pj->ncols; i++) {
		struct proj_axis *a = i < pj->nrows ? &pj->row[i] : &pj->col[i - pj->nrows];

		free(a->name);
		cJSON_Delete(a->values);
	}
	for (int i = 0; i < pj->nimp; i++) {
		struct proj_impossible *im = &pj->imp[i];

		for (int k = 0; k < im->nrow; k++)
			free(im->row[k].value);
		for (int k = 0; k < im->ncol; k++)
			free(im->col[k].value);
		for (int k = 0; k < im->nreach; k++) {
			free(im->reach[k].value);
			cJSON_Delete(im->reach_value[k]);
		}
		free(im->row);
		free(im->col);
		free(im->reach);
		free(im->reach_value);
		free(im->action);
		free(im->why);
	}
	free(pj->imp);
	free(pj->row);
	free(pj->col);
	free(pj->rule);
	free(pj->table);
	free(pj->actions);
	free(pj->map);
	free(pj->actor);
	free(pj->start);
	free(pj->header);
	free(pj->name);
	free(pj->path);
	free(pj->source);
	free(pj->describes);
	free(pj);
}

/* Make @pj a system: its folder, the data key of its actor, ITF's map. */
static void make_system(struct projection *pj)
{
	static const char *const auxiliary[] = { PROJ_UNTRACED, PROJ_OVERLAPPED, NULL };

	pj->actor_keys[0] = pj->actor ? pj->actor : pj->thread.name ? pj->thread.name :
			    pj->nkey ? pj->key[0].name : NULL;
	if (pj->map)
		pj->itf[0] = (struct itf_var){ pj->map, "map" };
	pj->folder = (struct folder){
		.name = pj->name,
		.summary = "a projection of a probe spec's events (docs/projection.md)",
		.actions = pj->actions,
		.auxiliary = auxiliary,
		.form = FORM_EVENT,
		.fold = projection_fold,
		.itf = pj->map ? pj->itf : NULL,
		.actor = pj->actor_keys[0] ? pj->actor_keys : NULL,
	};
	projection_audit_init(pj);
	if (pj->audit.axes)
		pj->folder.audit = &pj->audit;
	pj->system = (struct system){ .folder = &pj->folder };
}

void projection_forget(void)
{
	free_projection(projection_current());
	projection_set_current(NULL);
	system_set_projected(NULL);
}

int projection_folder(const struct folder *f)
{
	struct projection *current = projection_current();

	return current && f == &current->folder;
}

/* Parse @path (named @name); 0 with *@out NULL if it declares none. */
static int parse_file(const char *path, const char *name,
		      struct projection **out, struct cap_err *err)
{
	struct projection *pj = xcalloc(1, sizeof(*pj));
	struct parse ps = { .pj = pj, .name = name, .err = err };
	struct line_reader lr;
	const char *line;
	int rc;

	*out = NULL;
	pj->header = xstrdup("event");
	pj->actions = xcalloc(1, sizeof(*pj->actions));
	if (line_reader_try_open_as(&lr, path, name, err)) {
		free_projection(pj);
		return -1;
	}
	while (!(rc = line_reader_try_next(&lr, &line, err)) && line) {
		ps.line = lr.line;
		if ((rc = parse_line(&ps, lr.buf)))
			break;
	}
	line_reader_close(&lr);
	if (!rc && ps.in)
		rc = check_whole(&ps);
	if (rc || !ps.in) {
		free_projection(pj);
		return rc;
	}
	*out = pj;
	return 0;
}

int projection_load_as(const char *path, const char *name,
		       const struct system **sys, struct cap_err *err)
{
	struct projection *pj, *current = projection_current();
	char hex[65];

	*sys = NULL;
	if (parse_file(path, name, &pj, err))
		return -1;
	if (!pj)
		return 0;
	if (sha256_file(path, hex)) {
		free_projection(pj);
		return cap_fail_at(err, EXIT_BAD_INPUT, name, 0, "cannot read");
	}
	if (current && !strcmp(current->sha256, hex)) {
		free_projection(pj);   /* the same text: the same system */
		*sys = &current->system;
		return 0;
	}
	if (current) {
		cap_fail_at(err, EXIT_USAGE, name, 0, "projection %s: another "
			    "projection (%s, from %s) is loaded: one system at a "
			    "time", pj->name, current->name, current->source);
		free_projection(pj);
		return -1;
	}
	memcpy(pj->sha256, hex, sizeof(hex));
	pj->path = xstrdup(path);
	pj->source = xstrdup(name);
	make_system(pj);
	projection_set_current(pj);
	system_set_projected(&pj->system);
	*sys = &pj->system;
	return 0;
}

int projection_load(const char *path, const struct system **sys,
		    struct cap_err *err)
{
	return projection_load_as(path, path, sys, err);
}

void projection_record(struct corpus *c, const struct folder *f)
{
	const struct projection *current = projection_current();
	cJSON *p;
	size_t len;
	char *text;
	FILE *out;

	if (!projection_folder(f))
		return;
	text = read_file(current->path, &len);
	if (!text)
		die_at(EXIT_BAD_INPUT, current->source, 0, "cannot read");
	out = corpus_create(c, PROJECTION_FILE);
	fwrite(text, 1, len, out);
	corpus_close(c, out, PROJECTION_FILE);
	free(text);
	p = json_add(corpus_manifest(c), "projection", json_obj());
	json_add(p, "name", json_str(current->name));
	json_add(p, "file", json_str(PROJECTION_FILE));
	json_add(p, "source", json_str(current->source));
	json_add(p, "sha256", json_str(current->sha256));
}

const struct system *corpus_system(const char *dir, const cJSON *m,
				   const char *mpath)
{
	const cJSON *p = json_get(m, "projection");
	const char *system = json_get_str(m, "system");
	const char *file = json_get_str(p, "file"), *sha = json_get_str(p, "sha256");
	const struct system *s;
	struct cap_err err;
	char hex[65], *path;

	if (!p)
		return system ? system_find(system) : NULL;
	if (!file || !sha || strchr(file, '/') || !system)
		die_at(EXIT_BAD_INPUT, mpath, 0, "\"projection\" needs a \"file\" "
		       "in the corpus and its \"sha256\", and a \"system\"");
	path = xasprintf("%s/%s", dir, file);
	if (sha256_file(path, hex))
		die_at(EXIT_BAD_INPUT, path, 0, "cannot read the corpus's "
		       "projection");
	if (strcmp(hex, sha))
		die_at(EXIT_BAD_INPUT, path, 0, "altered: sha256 %s, %s records %s",
		       hex, mpath, sha);
	if (projection_load_as(path, path, &s, &err))
		die_err(&err);
	if (!s || strcmp(s->folder->name, system))
		die_at(EXIT_BAD_INPUT, path, 0, "declares %s, not the projection "
		       "of system %s that %s names", s ? s->folder->name : "none",
		       system, mpath);
	free(path);
	return s;
}

/* "a/b" of "a/b/c", "." of "c". */
static char *parent(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return xstrdup(".");
	return slash == path ? xstrdup("/") : copy_n(path, (size_t)(slash - path));
}

const struct system *projection_around(const char *path)
{
	char *sysdir = parent(path), *dir = parent(sysdir);
	char *mpath = xasprintf("%s/MANIFEST.json", dir), *text;
	const char *base = strrchr(sysdir, '/') ? strrchr(sysdir, '/') + 1 : sysdir;
	const struct system *s = NULL;
	cJSON *m;

	text = read_file(mpath, NULL);
	m = text ? cJSON_Parse(text) : NULL;
	free(text);
	/* a corpus's SYSTEM/FILE, of a system its projection makes */
	if (m && json_get(m, "projection") &&
	    !strcmp(base, json_get_str(m, "system") ? json_get_str(m, "system") : ""))
		s = corpus_system(dir, m, mpath);
	cJSON_Delete(m);
	free(mpath);
	free(dir);
	free(sysdir);
	return s;
}

/* Does @fields (an event's) hold @p: the field, an object above fields, or proc? */
static int holds(const cJSON *fields, const struct proj_path *p)
{
	struct strbuf sb = STRBUF_INIT;
	const cJSON *f;
	int found = 0;

	for (int i = 0; i < p->n; i++)
		strbuf_addf(&sb, "%s%s", i ? "." : "", p->part[i]);
	cJSON_ArrayForEach(f, fields)
		found |= !strcmp(f->valuestring, sb.buf) ||
			 (!strncmp(f->valuestring, sb.buf, sb.len) && f->valuestring[sb.len] == '.');
	strbuf_release(&sb);
	return found;
}

/* @p among @event's fields (or @other's, a call's other event); else why. */
static int needs(struct parse *ps, const cJSON *events, const char *event,
		 const char *other, const struct proj_path *p, const char *what)
{
	const cJSON *f = json_get(events, event), *g = other ? json_get(events, other) : NULL;
	struct strbuf sb = STRBUF_INIT, path = STRBUF_INIT;
	const cJSON *e;
	int rc;

	if (holds(f, p) || (g && holds(g, p)))
		return 0;
	for (int i = 0; i < p->n; i++)
		strbuf_addf(&path, "%s%s", i ? "." : "", p->part[i]);
	cJSON_ArrayForEach(e, f)
		strbuf_addf(&sb, "%s%s", sb.len ? ", " : "", e->valuestring);
	rc = refuse(ps, "%s %s: the spec's %s events have no field %s%s%s%s (theirs: %s)",
		    what, p->name, event, path.buf, other ? ", nor its " : "",
		    other ? other : "", other ? " events" : "", sb.buf ? sb.buf : "none");
	strbuf_release(&sb);
	strbuf_release(&path);
	return rc;
}

/* What every reading event must carry: the state, the key, the thread. */
static int reading(struct parse *ps, const cJSON *events, const char *event)
{
	const struct projection *pj = ps->pj;

	ps->line = pj->state_line;
	for (int i = 0; i < pj->nstate; i++)
		if (needs(ps, events, event, NULL, &pj->state[i], "state"))
			return -1;
	ps->line = pj->key_line;
	for (int i = 0; i < pj->nkey; i++)
		if (needs(ps, events, event, NULL, &pj->key[i], "key"))
			return -1;
	ps->line = pj->thread_line;
	return pj->thread.name ? needs(ps, events, event, NULL, &pj->thread, "thread") : 0;
}

int projection_check_events(const struct system *sys, const cJSON *events,
			    struct cap_err *err)
{
	struct projection *pj = projection_current();
	struct parse ps = { .pj = pj, .name = pj ? pj->source : "", .err = err };

	if (!pj || sys != &pj->system)
		return 0;
	for (int i = 0; i < pj->nrules; i++) {
		const struct proj_rule *r = &pj->rule[i];
		const char *ev[2] = { r->event, r->ret };

		for (int k = 0; k < 2 && ev[k]; k++) {
			struct strbuf sb = STRBUF_INIT;
			const cJSON *e;

			if (json_get(events, ev[k]))
				continue;
			cJSON_ArrayForEach(e, events)
				strbuf_addf(&sb, "%s%s", sb.len ? ", " : "", e->string);
			ps.line = r->line;
			refuse(&ps, "%s: the spec's probes write no event %s (they write: %s)",
			       ev[k], ev[k], sb.buf ? sb.buf : "none");
			strbuf_release(&sb);
			return -1;
		}
		if (reading(&ps, events, r->event) || (r->ret && reading(&ps, events, r->ret)))
			return -1;
		ps.line = r->line;
		if (r->table >= 0 && needs(&ps, events, r->event, r->ret, &r->by, "by"))
			return -1;
		for (int k = 0; k < r->ndata; k++)
			if (needs(&ps, events, r->event, r->ret, &r->data[k], "data"))
				return -1;
	}
	return 0;
}

/* @name names a spec file (a path, or a *.probes file) with a projection. */
static const struct system *spec_system(const char *name)
{
	const struct system *s;
	struct cap_err err;

	if (!strchr(name, '/') && !has_suffix(name, ".probes"))
		return NULL;
	if (!file_exists(name))
		die(EXIT_USAGE, "%s: no such spec file", name);
	if (projection_load(name, &s, &err))
		die_err(&err);
	if (!s)
		die(EXIT_USAGE, "%s declares no projection (no 'projection NAME' "
		    "line: docs/projection.md)", name);
	return s;
}

const struct system *system_lookup(const char *name)
{
	const struct system *s = system_find(name);

	if (!s)
		s = spec_system(name);
	if (!s)
		die(EXIT_USAGE, "unknown system '%s' (known: %s)", name,
		    systems_known());
	return s;
}

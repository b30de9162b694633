// SPDX-License-Identifier: MIT
/*
 * A projection's fold (docs/projection.md): a spec's events into windows.
 *
 * Each event the projection names reads a key's state (every state
 * field).  A window is made
 *  - by a call: its entry's reading is the pre-state, its return's the
 *    post-state, the action and data the entry's (or the return's);
 *  - by an event: the key's state before it is the pre-state, its
 *    reading the post-state.
 * Any other reading of a key (an observed event, a call's entry, a
 * bracket call's "-" entry or return) that differs from what the windows
 * show is an UntracedChange window, never taken into the next one; a key
 * first read after the first window enters by one.  Inside a call with an
 * action, the same thread's other readings of its key belong to the call
 * (absorbed).  Calls of different threads on one key that overlap (one's
 * entry while another's call is open, or any event of another thread on
 * the key then) are no atomic steps: their windows are not written, their
 * joint change is one Overlapped window naming each call, unless a call
 * is declared serialized, which the overlap then refutes (exit 4).
 * Threads are numbered in order of first appearance.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "die.h"
#include "fold.h"
#include "json.h"
#include "ndjson.h"
#include "projection-rules.h"

/* A string-keyed hash table of pointers, open addressing. */
struct strmap {
	char **key;
	void **val;
	size_t cap, n;
};

static size_t hash(const char *s)
{
	size_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

static size_t slot(const struct strmap *m, const char *k)
{
	size_t i = hash(k) & (m->cap - 1);

	while (m->key[i] && strcmp(m->key[i], k))
		i = (i + 1) & (m->cap - 1);
	return i;
}

static void *map_get(const struct strmap *m, const char *k)
{
	return m->cap ? m->val[slot(m, k)] : NULL;
}

static void map_put(struct strmap *m, const char *k, void *v)
{
	size_t i;

	if ((m->n + 1) * 2 > m->cap) {
		struct strmap bigger = { .cap = m->cap ? m->cap * 2 : 64 };

		bigger.key = xcalloc(bigger.cap, sizeof(*bigger.key));
		bigger.val = xcalloc(bigger.cap, sizeof(*bigger.val));
		for (size_t j = 0; j < m->cap; j++)
			if (m->key[j]) {
				i = slot(&bigger, m->key[j]);
				bigger.key[i] = m->key[j];
				bigger.val[i] = m->val[j];
			}
		bigger.n = m->n;
		free(m->key);
		free(m->val);
		*m = bigger;
	}
	i = slot(m, k);
	if (!m->key[i]) {
		m->key[i] = xstrdup(k);
		m->n++;
	}
	m->val[i] = v;
}

static void map_free(struct strmap *m, void (*free_val)(void *))
{
	for (size_t i = 0; i < m->cap; i++)
		if (m->key[i]) {
			free(m->key[i]);
			if (free_val)
				free_val(m->val[i]);
		}
	free(m->key);
	free(m->val);
}

/* Calls that overlapped on a key: one window for them all at the end. */
struct cluster {
	cJSON *calls;        /* {"line", "action", THREAD, "data"} each */
	cJSON **latest;      /* the last reading of the key */
	long line;           /* where the overlap began */
};

struct pkey {
	char *id;            /* the key as the state's map writes it */
	cJSON **kv;          /* the key fields' values */
	cJSON **shown;       /* the state as the windows show it */
	int present;         /* in the windows' state */
	int open;            /* calls with an action open on it */
	struct cluster *cl;
};

struct frame {
	const struct proj_rule *rule;
	const char *action;  /* NULL: a bracket ("-") */
	int pending;         /* named by its return (by PATH only there) */
	int absorbed;        /* inside the thread's call on the key */
	struct pkey *key;
	cJSON **pre;         /* the entry's reading */
	cJSON **vals;        /* its data values, the entry's (NULL: the return's) */
	long line;
};

struct pthread {
	int num;
	struct frame *stack;
	int depth, cap;
};

struct pfold {
	const struct projection *pj;
	struct fold_run *run;
	struct line_reader r;
	struct json_arena *arena;
	cJSON *ev;           /* the event being folded (reachable if it dies) */
	const char *name;
	struct strmap roles; /* event -> its rule (a return: the ROLE_RETURN mark) */
	struct strmap keys, threads;
	struct pkey **sorted;    /* the keys in the state's order */
	size_t nkeys;
	struct pthread **thread; /* in order of first appearance */
	int nthreads;
	int started, live;
	long ignored, before_start, overlaps;
};

static char role_return;   /* map_get() of a call's return event */

__attribute__((format(printf, 2, 3)))
static _Noreturn void bad(struct pfold *f, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	die_at(EXIT_BAD_INPUT, f->r.path, f->r.line, "%s", msg);
}

static void free_values(cJSON **v, int n)
{
	for (int i = 0; v && i < n; i++)
		cJSON_Delete(v[i]);
	free(v);
}

static cJSON **dup_values(cJSON *const *v, int n)
{
	cJSON **d = xcalloc((size_t)n, sizeof(*d));

	for (int i = 0; i < n; i++)
		d[i] = json_dup(v[i]);
	return d;
}

static int same_values(cJSON *const *a, cJSON *const *b, int n)
{
	for (int i = 0; i < n; i++)
		if (!cJSON_Compare(a[i], b[i], 1))
			return 0;
	return 1;
}

/* Integers before strings; integers by value, strings by their bytes. */
static int value_cmp(const cJSON *a, const cJSON *b)
{
	long long x, y;
	int ia = !json_int_value(a, &x), ib = !json_int_value(b, &y);

	if (ia && ib)
		return (x > y) - (x < y);
	if (ia != ib)
		return ia ? -1 : 1;
	if (cJSON_IsString(a) && cJSON_IsString(b))
		return strcmp(a->valuestring, b->valuestring);
	return cJSON_IsString(a) - cJSON_IsString(b);
}

static int key_cmp(const struct pfold *f, const struct pkey *a, const struct pkey *b)
{
	for (int i = 0; i < f->pj->nkey; i++) {
		int c = value_cmp(a->kv[i], b->kv[i]);

		if (c)
			return c;
	}
	return 0;
}

/* The key the event reads (global: the one key ""). */
static struct pkey *key_of(struct pfold *f, const cJSON *ev)
{
	const struct projection *pj = f->pj;
	struct strbuf id = STRBUF_INIT;
	const cJSON *v[PROJ_MAX_KEY];
	struct pkey *k;
	size_t at;

	for (int i = 0; i < pj->nkey; i++) {
		v[i] = proj_value(ev, &pj->key[i]);
		if (i)
			strbuf_addstr(&id, "/");
		if (!v[i] || !proj_value_text(v[i], &id))
			bad(f, "%s: its key %s is %s", f->name, pj->key[i].name,
			    v[i] ? "no number, string or boolean" : "missing");
		if (pj->nkey > 1 && cJSON_IsString(v[i]) && strchr(v[i]->valuestring, '/'))
			bad(f, "%s: key %s \"%s\" has a '/', which joins a key's "
			    "fields", f->name, pj->key[i].name, v[i]->valuestring);
	}
	if (!id.buf)
		strbuf_addstr(&id, "");
	if ((k = map_get(&f->keys, id.buf))) {
		strbuf_release(&id);
		return k;
	}
	k = xcalloc(1, sizeof(*k));
	k->id = id.buf;
	k->kv = xcalloc((size_t)pj->nkey + 1, sizeof(*k->kv));
	for (int i = 0; i < pj->nkey; i++)
		k->kv[i] = json_dup(v[i]);
	map_put(&f->keys, k->id, k);
	f->sorted = xrealloc(f->sorted, (f->nkeys + 1) * sizeof(*f->sorted));
	at = f->nkeys;
	while (at > 0 && key_cmp(f, f->sorted[at - 1], k) > 0) {
		f->sorted[at] = f->sorted[at - 1];
		at--;
	}
	f->sorted[at] = k;
	f->nkeys++;
	return k;
}

static struct pthread *thread_of(struct pfold *f, const cJSON *ev)
{
	const struct projection *pj = f->pj;
	struct strbuf id = STRBUF_INIT;
	const cJSON *proc = json_get(ev, "proc"), *v;
	struct pthread *t;

	if (proc)
		proj_value_text(proc, &id);
	strbuf_addstr(&id, "/");
	if (pj->thread.name) {
		v = proj_value(ev, &pj->thread);
		if (!v || !proj_value_text(v, &id))
			bad(f, "%s: its thread %s is %s", f->name, pj->thread.name,
			    v ? "no number, string or boolean" : "missing");
	}
	if ((t = map_get(&f->threads, id.buf))) {
		strbuf_release(&id);
		return t;
	}
	t = xcalloc(1, sizeof(*t));
	t->num = ++f->nthreads;
	f->thread = xrealloc(f->thread, (size_t)f->nthreads * sizeof(*f->thread));
	f->thread[f->nthreads - 1] = t;
	map_put(&f->threads, id.buf, t);
	strbuf_release(&id);
	return t;
}

/* The state fields of @ev, borrowed from it. */
static void reading_of(struct pfold *f, const cJSON *ev, cJSON **out)
{
	for (int i = 0; i < f->pj->nstate; i++) {
		const struct proj_path *p = &f->pj->state[i];

		out[i] = (cJSON *)proj_value(ev, p);
		if (!out[i])
			bad(f, "%s has no state field %s (%s)", f->name, p->name,
			    p->n > 1 || strcmp(p->part[0], p->name) ? "its path" :
			    "a field of that name");
	}
}

static cJSON *slice_json(const struct projection *pj, cJSON *const *v)
{
	cJSON *o = json_obj();

	for (int i = 0; i < pj->nstate; i++)
		json_add(o, pj->state[i].name, json_dup(v[i]));
	return o;
}

/* The state the windows show: every key present, in the map's order. */
static cJSON *state_json(const struct pfold *f)
{
	const struct projection *pj = f->pj;
	cJSON *st, *map;

	if (!pj->map) {
		const struct pkey *k = f->nkeys ? f->sorted[0] : NULL;

		return k && k->present ? slice_json(pj, k->shown) : json_obj();
	}
	st = json_obj();
	map = json_add(st, pj->map, json_obj());
	for (size_t i = 0; i < f->nkeys; i++)
		if (f->sorted[i]->present)
			json_add(map, f->sorted[i]->id, slice_json(pj, f->sorted[i]->shown));
	return st;
}

static void start_windows(struct pfold *f)
{
	cJSON *st;

	if (f->started)
		return;
	f->started = 1;
	st = state_json(f);
	fold_run_windows(f->run, &f->pj->folder, st);
	cJSON_Delete(st);
}

static void set_shown(struct pkey *k, int nstate, cJSON *const *v)
{
	free_values(k->shown, nstate);
	k->shown = dup_values(v, nstate);
	k->present = 1;
}

/* A window of key @k to @post (its data taken); before the start: none. */
static void window(struct pfold *f, struct pkey *k, const char *action,
		   cJSON *data, cJSON *const *post)
{
	if (!f->live) {
		set_shown(k, f->pj->nstate, post);
		cJSON_Delete(data);
		f->before_start++;
		return;
	}
	start_windows(f);
	set_shown(k, f->pj->nstate, post);
	windows_add(f->run->windows, action, data, state_json(f));
}

/* The window data's first members: the key's fields, then the thread. */
static cJSON *data_head(const struct pfold *f, const struct pkey *k,
			const struct pthread *t)
{
	cJSON *d = json_obj();

	for (int i = 0; i < f->pj->nkey; i++)
		json_add(d, f->pj->key[i].name, json_dup(k->kv[i]));
	if (t && f->pj->thread.name)
		json_add(d, f->pj->thread.name, json_int(t->num));
	return d;
}

/* A reading no action accounts for: an UntracedChange if it differs. */
static void untraced(struct pfold *f, struct pkey *k, cJSON *const *reading)
{
	cJSON *d;

	if (k->present && same_values(k->shown, reading, f->pj->nstate))
		return;
	if (!k->present && (!f->started || !f->live)) {
		set_shown(k, f->pj->nstate, reading);   /* the initial state */
		return;
	}
	d = data_head(f, k, NULL);
	json_add(d, "event", json_str(f->name));
	window(f, k, PROJ_UNTRACED, d, reading);
}

/* Is thread @t inside a call of its own with an action on @k? */
static int inside(const struct pthread *t, const struct pkey *k)
{
	for (int i = 0; i < t->depth; i++)
		if (t->stack[i].key == k && t->stack[i].action && !t->stack[i].absorbed)
			return 1;
	return 0;
}

/* The action value @v names through @r's table; NULL: none ("-"). */
static const char *table_action(struct pfold *f, const struct proj_rule *r,
				const cJSON *v)
{
	const struct proj_table *t = &f->pj->table[r->table];

	struct strbuf sb = STRBUF_INIT;
	const char *a = NULL;
	int found = 0;

	if (!proj_value_text(v, &sb))
		bad(f, "%s: %s is no number, string or boolean", f->name, r->by.name);
	for (int i = 0; i < t->n && !found; i++)
		if (!strcmp(t->from[i], sb.buf)) {
			a = t->to[i];
			found = 1;
		}
	if (!found && !t->other)
		bad(f, "%s: %s %s is not in 'actions %s' (line %ld)", f->name,
		    r->by.name, sb.buf, t->name, t->line);
	strbuf_release(&sb);
	return found ? a : t->other_to;
}

/* Record an overlapped step, entered at @line, in @k's cluster. */
static void cluster_add(struct pkey *k, long line, const char *action,
			cJSON *data)
{
	cJSON *c = json_obj();

	json_add(c, "line", json_int(line));
	json_add(c, "action", json_str(action));
	json_add(c, "data", data);
	json_add(k->cl->calls, NULL, c);
}

/* Thread @t acts on @k while another's call on it is open: an overlap. */
static void overlap(struct pfold *f, struct pkey *k, const struct proj_rule *r,
		    cJSON *const *reading)
{
	const struct proj_rule *ser = r && r->serialized ? r : NULL;
	long ser_line = f->r.line;

	for (int i = 0; i < f->nthreads; i++)
		for (int j = 0; j < f->thread[i]->depth; j++) {
			struct frame *fr = &f->thread[i]->stack[j];

			if (fr->key == k && fr->action && !fr->absorbed &&
			    fr->rule->serialized && !ser) {
				ser = fr->rule;
				ser_line = fr->line;
			}
		}
	if (ser)
		die_at(EXIT_CHECK_FAILED, f->r.path, f->r.line, "%s on %s%s while "
		       "another thread's call on it is open: the projection declares "
		       "%s (line %ld) serialized, and the call at line %ld overlaps",
		       f->name, f->pj->map ? "key " : "the state",
		       f->pj->map ? k->id : "", ser->event, ser->line, ser_line);
	if (!k->cl) {
		k->cl = xcalloc(1, sizeof(*k->cl));
		k->cl->calls = json_arr();
		k->cl->line = f->r.line;
		f->overlaps++;
	}
	free_values(k->cl->latest, f->pj->nstate);
	k->cl->latest = dup_values(reading, f->pj->nstate);
}

static int by_line(const void *a, const void *b)
{
	const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
	long long lx = 0, ly = 0;

	json_get_int(x, "line", &lx);
	json_get_int(y, "line", &ly);
	return (lx > ly) - (lx < ly);
}

/* No call is open on @k any more: its overlapped steps' one window. */
static void cluster_end(struct pfold *f, struct pkey *k)
{
	struct cluster *cl = k->cl;
	int n = cJSON_GetArraySize(cl->calls), i = 0;
	cJSON **c = xcalloc((size_t)n + 1, sizeof(*c)), *d = data_head(f, k, NULL);
	cJSON *calls = json_add(d, "calls", json_arr());

	while (cl->calls->child)
		c[i++] = cJSON_DetachItemViaPointer(cl->calls, cl->calls->child);
	qsort(c, (size_t)n, sizeof(*c), by_line);
	for (i = 0; i < n; i++) {
		cJSON_DeleteItemFromObjectCaseSensitive(c[i], "line");
		json_add(calls, NULL, c[i]);
	}
	free(c);
	k->cl = NULL;
	window(f, k, PROJ_OVERLAPPED, d, cl->latest);
	cJSON_Delete(cl->calls);
	free_values(cl->latest, f->pj->nstate);
	free(cl);
}

/*
 * The data of @r's window of @action from @ev (a call's return: @fr's
 * entry first).
 */
static cJSON *rule_data(struct pfold *f, const struct proj_rule *r,
			const char *action, const struct frame *fr,
			const cJSON *ev, const struct pkey *k,
			const struct pthread *t)
{
	cJSON *d = data_head(f, k, t);

	for (int i = 0; i < r->ndata; i++) {
		const cJSON *v;

		if (!proj_data_for(r, i, action))
			continue;
		v = fr && fr->vals[i] ? fr->vals[i] : ev ? proj_value(ev, &r->data[i]) : NULL;

		if (!v && ev)
			bad(f, "%s: no data %s in it%s", f->name, r->data[i].name,
			    fr ? " nor in its call's entry" : "");
		json_add(d, r->data[i].name, v ? json_dup(v) : json_null());
	}
	return d;
}

static void push(struct pfold *f, struct pthread *t, const struct proj_rule *r,
		 struct pkey *k, const cJSON *ev, cJSON *const *reading)
{
	struct frame *fr;
	const cJSON *by = r->action ? NULL : proj_value(ev, &r->by);

	if (t->depth == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 8;
		t->stack = xrealloc(t->stack, (size_t)t->cap * sizeof(*t->stack));
	}
	fr = &t->stack[t->depth++];
	*fr = (struct frame){ .rule = r, .key = k, .line = f->r.line };
	fr->pending = !r->action && !by;
	fr->action = r->action ? (strcmp(r->action, "-") ? r->action : NULL) :
		     by ? table_action(f, r, by) : r->event;
	fr->pre = dup_values(reading, f->pj->nstate);
	fr->vals = xcalloc((size_t)r->ndata + 1, sizeof(*fr->vals));
	for (int i = 0; i < r->ndata; i++) {
		const cJSON *v = proj_value(ev, &r->data[i]);

		fr->vals[i] = v ? json_dup(v) : NULL;
	}
}

static void call_entry(struct pfold *f, const struct proj_rule *r,
		       struct pthread *t, struct pkey *k, const cJSON *ev,
		       cJSON *const *reading)
{
	int absorbed = inside(t, k);
	struct frame *fr;

	if (!absorbed && (k->open || k->cl))
		overlap(f, k, r, reading);
	else if (!absorbed)
		untraced(f, k, reading);
	push(f, t, r, k, ev, reading);
	fr = &t->stack[t->depth - 1];
	fr->absorbed = absorbed;
	if (fr->action && !absorbed)
		k->open++;
}

static void pop(struct pfold *f, struct pthread *t)
{
	struct frame *fr = &t->stack[--t->depth];

	free_values(fr->pre, f->pj->nstate);
	free_values(fr->vals, fr->rule->ndata);
}

static void call_return(struct pfold *f, struct pthread *t, struct pkey *k,
			const cJSON *ev, cJSON *const *reading)
{
	struct frame *fr = t->depth ? &t->stack[t->depth - 1] : NULL;
	const struct proj_rule *r = fr ? fr->rule : NULL;
	const char *action;

	if (!fr || !r->ret || strcmp(r->ret, f->name))
		bad(f, "%s returns from no call open in its thread%s%s%s", f->name,
		    fr ? " (the last one open: " : "", fr ? r->event : "", fr ? ")" : "");
	if (fr->key != k)
		bad(f, "%s reads key %s, its entry (line %ld) key %s", f->name,
		    k->id, fr->line, fr->key->id);
	action = fr->action;
	if (fr->pending && !proj_value(ev, &r->by))
		bad(f, "%s: no %s in it nor in its entry (line %ld)", f->name,
		    r->by.name, fr->line);
	if (fr->pending)
		action = table_action(f, r, proj_value(ev, &r->by));
	if (fr->absorbed) {
		pop(f, t);
		return;
	}
	if (fr->action)
		k->open--;
	if (k->cl) {
		free_values(k->cl->latest, f->pj->nstate);
		k->cl->latest = dup_values(reading, f->pj->nstate);
		if (action)
			cluster_add(k, fr->line, action,
				    rule_data(f, r, action, fr, ev, k, t));
		pop(f, t);
		if (!k->open)
			cluster_end(f, k);
		return;
	}
	if (!action) {
		pop(f, t);
		untraced(f, k, reading);
		return;
	}
	/* only another thread's step moves the key during the call: an overlap */
	if (!k->present || !same_values(k->shown, fr->pre, f->pj->nstate))
		die(EXIT_CAPTURE_FAILED, "%s:%ld: projection fold: key %s changed "
		    "inside a call with no overlap seen (a fold's bug)", f->r.path,
		    f->r.line, k->id);
	window(f, k, action, rule_data(f, r, action, fr, ev, k, t), reading);
	pop(f, t);
}

static void event_action(struct pfold *f, const struct proj_rule *r,
			 struct pthread *t, struct pkey *k, const cJSON *ev,
			 cJSON *const *reading)
{
	const cJSON *by = r->action ? NULL : proj_value(ev, &r->by);
	const char *action;

	if (!r->action && !by)
		bad(f, "%s: no %s in it", f->name, r->by.name);
	action = r->action ? (strcmp(r->action, "-") ? r->action : NULL) :
		 table_action(f, r, by);
	if (inside(t, k))
		return;   /* the call's window takes it in */
	if (k->open || k->cl) {
		overlap(f, k, r, reading);
		if (action)
			cluster_add(k, f->r.line, action,
				    rule_data(f, r, action, NULL, ev, k, t));
		return;
	}
	if (!action) {
		untraced(f, k, reading);
		return;
	}
	if (!k->present && f->live)
		bad(f, "%s is an action on key %s, never read before: its pre-state "
		    "is unknown (read the key first: a call's entry or an observed "
		    "event)", f->name, k->id);
	window(f, k, action, rule_data(f, r, action, NULL, ev, k, t), reading);
}

static void observed(struct pfold *f, const struct proj_rule *r,
		     struct pthread *t, struct pkey *k, cJSON *const *reading)
{
	if (inside(t, k))
		return;
	if (k->open || k->cl)
		overlap(f, k, r, reading);
	else
		untraced(f, k, reading);
}

static void fold_event(struct pfold *f, const cJSON *ev)
{
	const struct projection *pj = f->pj;
	const struct proj_rule *r;
	cJSON *reading[PROJ_MAX_STATE];
	struct pthread *t;
	struct pkey *k;
	void *role;

	if (!(f->name = json_get_str(ev, pj->header)))
		bad(f, "no \"%s\": not an event of a probe spec whose header is "
		    "\"%s\" (docs/projection.md)", pj->header, pj->header);
	events_add(f->run->events, ev);
	if (!(role = map_get(&f->roles, f->name))) {
		f->ignored++;
		return;
	}
	if (!f->live && !strcmp(f->name, pj->start))
		f->live = 1;
	k = key_of(f, ev);
	t = thread_of(f, ev);
	reading_of(f, ev, reading);
	if (role == &role_return) {
		call_return(f, t, k, ev, reading);
		return;
	}
	r = role;
	if (r->kind == PROJ_CALL)
		call_entry(f, r, t, k, ev, reading);
	else if (r->kind == PROJ_EVENT)
		event_action(f, r, t, k, ev, reading);
	else
		observed(f, r, t, k, reading);
}

/* The input ends: calls still open never completed; overlaps end. */
static void finish(struct pfold *f)
{
	f->live = 1;
	start_windows(f);
	for (int i = 0; i < f->nthreads; i++) {
		struct pthread *t = f->thread[i];

		while (t->depth) {
			struct frame *fr = &t->stack[t->depth - 1];

			if (fr->action && !fr->absorbed && !fr->pending) {
				cJSON *d = rule_data(f, fr->rule, fr->action, fr, NULL,
						     fr->key, t);

				if (fr->key->cl)
					cluster_add(fr->key, fr->line, fr->action, d);
				else
					fold_run_never_completing(f->run, fr->action, d);
			}
			pop(f, t);
		}
	}
	for (size_t i = 0; i < f->nkeys; i++)
		if (f->sorted[i]->cl)
			cluster_end(f, f->sorted[i]);
}

static void free_key(void *p)
{
	struct pkey *k = p;
	const struct projection *pj = projection_current();

	free_values(k->kv, pj->nkey);
	free_values(k->shown, pj->nstate);
	free(k->id);
	free(k);
}

static void free_thread(void *p)
{
	struct pthread *t = p;

	free(t->stack);
	free(t);
}

void projection_fold(struct fold_run *run)
{
	const struct projection *pj = projection_current();
	struct pfold f = { .pj = pj, .run = run, .live = !pj->start };

	for (int i = 0; i < pj->nrules; i++) {
		const struct proj_rule *r = &pj->rule[i];

		map_put(&f.roles, r->event, (void *)r);
		if (r->ret)
			map_put(&f.roles, r->ret, &role_return);
	}
	f.arena = json_arena_new();
	line_reader_open_as(&f.r, run->path, run->input);
	while ((f.ev = ndjson_next_in(&f.r, f.arena))) {
		fold_event(&f, f.ev);
		json_arena_delete(f.arena, f.ev);
	}
	line_reader_close(&f.r);
	f.ev = NULL;
	finish(&f);
	json_add(run->info, "threads", json_int(f.nthreads));
	json_add(run->info, "keys", json_int((long long)f.nkeys));
	json_add(run->info, "events_of_no_rule", json_int(f.ignored));
	if (pj->start)
		json_add(run->info, "steps_before_start", json_int(f.before_start));
	json_add(run->info, "overlaps", json_int(f.overlaps));
	json_arena_free(f.arena);
	map_free(&f.roles, NULL);
	map_free(&f.keys, free_key);
	map_free(&f.threads, free_thread);
	free(f.sorted);
	free(f.thread);
}

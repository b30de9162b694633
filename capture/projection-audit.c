// SPDX-License-Identifier: MIT
/*
 * A projection's audit domain (docs/projection.md, "The audit"): rows are the
 * acting key's pre-state by the "row" fields, columns each action by the
 * "column" data keys it has; an axis without values takes those the
 * windows show.  Labels: "f=v g=w" ("any" without rows), "Action" or
 * "Action(c=v,d=w)".  "impossible" lines declare cells no window may lie
 * in, and with "reaches" the window a spec allowing one would make.
 */
#include <stdlib.h>
#include <string.h>
#include "audit-domain.h"
#include "die.h"
#include "json.h"
#include "projection-rules.h"

#define ANY_ROW "any"

/* Does some rule making @action give its windows data @name? */
static int has_data(const struct projection *pj, const char *action,
		    const char *name)
{
	for (int i = 0; i < pj->nkey; i++)
		if (!strcmp(pj->key[i].name, name))
			return 1;
	if (pj->thread.name && !strcmp(pj->thread.name, name))
		return 1;
	for (int i = 0; i < pj->nrules; i++) {
		const struct proj_rule *r = &pj->rule[i];

		for (int k = 0; k < r->ndata; k++)
			if (!strcmp(r->data[k].name, name) && proj_data_for(r, k, action))
				return 1;
	}
	return 0;
}

/* A value's label text, if it can be one (no blank, = ( ) or ,). */
static int label_text(const cJSON *v, struct strbuf *sb)
{
	size_t at = sb->len;

	if (!proj_value_text(v, sb))
		return 0;
	return !strpbrk(sb->buf + at, " \t=(),") && sb->len > at;
}

static const char *learned_key(int row, const char *name, char buf[96])
{
	snprintf(buf, 96, "%s %s", row ? "row" : "column", name);
	return buf;
}

/* The values of axis @a: declared, or learned (sorted by their text). */
static const cJSON *axis_values(const struct proj_axis *a, int row,
				const cJSON *learned)
{
	char buf[96];

	return a->values ? a->values : json_get(learned, learned_key(row, a->name, buf));
}

static void learn_value(cJSON *learned, int row, const char *name, const cJSON *v)
{
	char buf[96];
	const char *key = learned_key(row, name, buf);
	cJSON *arr = (cJSON *)json_get(learned, key), *e;
	struct strbuf sb = STRBUF_INIT;

	if (!v || !label_text(v, &sb)) {
		strbuf_release(&sb);
		return;
	}
	if (!arr)
		arr = json_add(learned, key, json_arr());
	cJSON_ArrayForEach(e, arr) {
		struct strbuf t = STRBUF_INIT;
		int same;

		label_text(e, &t);
		same = !strcmp(t.buf, sb.buf);
		strbuf_release(&t);
		if (same) {
			strbuf_release(&sb);
			return;
		}
	}
	strbuf_release(&sb);
	json_add(arr, NULL, json_dup(v));
}

/* The acting key's slice of @state, from the window's data. */
static const cJSON *slice_of(const struct projection *pj, const cJSON *state,
			     const cJSON *data)
{
	struct strbuf id = STRBUF_INIT;
	const cJSON *s;

	if (!pj->map)
		return state;
	for (int i = 0; i < pj->nkey; i++) {
		const cJSON *v = json_get(data, pj->key[i].name);

		if (i)
			strbuf_addstr(&id, "/");
		if (!v || !proj_value_text(v, &id)) {
			strbuf_release(&id);
			return NULL;
		}
	}
	s = json_get(json_get(state, pj->map), id.buf ? id.buf : "");
	strbuf_release(&id);
	return s;
}

static int is_action(const struct projection *pj, const char *a)
{
	for (int i = 0; i < pj->nactions; i++)
		if (!strcmp(pj->actions[i], a))
			return 1;
	return 0;
}

static void proj_learn(cJSON *learned, const struct window *w)
{
	const struct projection *pj = projection_current();
	const cJSON *slice = slice_of(pj, w->pre, w->data);

	if (!is_action(pj, w->action))
		return;
	for (int i = 0; i < pj->nrows; i++)
		if (!pj->row[i].values)
			learn_value(learned, 1, pj->row[i].name, json_get(slice, pj->row[i].name));
	for (int i = 0; i < pj->ncols; i++)
		if (!pj->col[i].values)
			learn_value(learned, 0, pj->col[i].name, json_get(w->data, pj->col[i].name));
}

/* Every label of the product of @n axes @a from index @i on. */
static void product(const struct proj_axis *a, int n, int row, const cJSON *learned,
		    int i, struct strbuf *prefix, const char *sep,
		    void (*emit)(void *ctx, const char *label), void *ctx,
		    const int *use)
{
	const cJSON *vals, *v;

	while (i < n && use && !use[i])
		i++;
	if (i == n) {
		emit(ctx, prefix->buf ? prefix->buf : "");
		return;
	}
	vals = axis_values(&a[i], row, learned);
	cJSON_ArrayForEach(v, vals) {
		size_t at = prefix->len;

		if (at && prefix->buf[at - 1] != '(')
			strbuf_addstr(prefix, sep);
		strbuf_addf(prefix, "%s=", a[i].name);
		if (label_text(v, prefix))
			product(a, n, row, learned, i + 1, prefix, sep, emit, ctx, use);
		prefix->len = at;
		prefix->buf[at] = 0;
	}
}

struct emit_ctx {
	struct audit_axes *ax;
	int row;
	int close;   /* a column label's ")" */
};

static void emit_label(void *p, const char *label)
{
	struct emit_ctx *e = p;

	if (e->row)
		audit_add_row(e->ax, "%s", *label ? label : ANY_ROW);
	else
		audit_add_col(e->ax, "%s%s", label, e->close ? ")" : "");
}

static int value_order(const void *a, const void *b)
{
	const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
	long long i, j;

	if (!json_int_value(x, &i) && !json_int_value(y, &j))
		return (i > j) - (i < j);
	if (cJSON_IsString(x) && cJSON_IsString(y))
		return strcmp(x->valuestring, y->valuestring);
	return cJSON_IsString(x) - cJSON_IsString(y);
}

/* The learned values in order, whatever order the windows showed them. */
static void sort_learned(cJSON *learned)
{
	cJSON *arr;

	cJSON_ArrayForEach(arr, learned) {
		int n = cJSON_GetArraySize(arr), i = 0;
		cJSON **v = xcalloc((size_t)n + 1, sizeof(*v));

		while (arr->child)
			v[i++] = cJSON_DetachItemViaPointer(arr, arr->child);
		qsort(v, (size_t)n, sizeof(*v), value_order);
		for (i = 0; i < n; i++)
			json_add(arr, NULL, v[i]);
		free(v);
	}
}

static void proj_axes(struct audit_axes *ax, const cJSON *learned)
{
	const struct projection *pj = projection_current();
	struct strbuf sb = STRBUF_INIT;
	struct emit_ctx e = { .ax = ax, .row = 1 };
	int *use = xcalloc((size_t)pj->ncols + 1, sizeof(*use));

	sort_learned((cJSON *)learned);
	strbuf_addstr(&sb, "");
	product(pj->row, pj->nrows, 1, learned, 0, &sb, " ", emit_label, &e, NULL);
	e.row = 0;
	for (int a = 0; a < pj->nactions; a++) {
		int any = 0;

		for (int i = 0; i < pj->ncols; i++)
			any |= use[i] = has_data(pj, pj->actions[a], pj->col[i].name);
		strbuf_reset(&sb);
		strbuf_addf(&sb, "%s%s", pj->actions[a], any ? "(" : "");
		e.close = any;
		product(pj->col, pj->ncols, 0, learned, 0, &sb, ",", emit_label, &e, use);
	}
	free(use);
	strbuf_release(&sb);
}

/* Is @v one of axis @a's declared values (learned ones: any is)? */
static int declared(const struct proj_axis *a, const cJSON *v)
{
	const cJSON *d;

	if (!a->values)
		return 1;
	cJSON_ArrayForEach(d, a->values)
		if (cJSON_Compare(d, v, 1))
			return 1;
	return 0;
}

static int proj_classify(const struct window *w, struct strbuf *row,
			 struct strbuf *col)
{
	const struct projection *pj = projection_current();
	const cJSON *slice = slice_of(pj, w->pre, w->data);
	int any = 0;

	if (!is_action(pj, w->action) || !slice)
		return 0;
	for (int i = 0; i < pj->nrows; i++) {
		const cJSON *v = json_get(slice, pj->row[i].name);

		if (i)
			strbuf_addstr(row, " ");
		strbuf_addf(row, "%s=", pj->row[i].name);
		if (!v || !declared(&pj->row[i], v) || !label_text(v, row))
			return 0;
	}
	if (!pj->nrows)
		strbuf_addstr(row, ANY_ROW);
	strbuf_addstr(col, w->action);
	for (int i = 0; i < pj->ncols; i++) {
		const cJSON *v;

		if (!has_data(pj, w->action, pj->col[i].name))
			continue;
		v = json_get(w->data, pj->col[i].name);
		strbuf_addf(col, "%s%s=", any++ ? "," : "(", pj->col[i].name);
		if (!v || !declared(&pj->col[i], v) || !label_text(v, col))
			return 0;
	}
	if (any)
		strbuf_addstr(col, ")");
	return 1;
}

/* The value of @name in label @label ("f=v g=w" or "A(f=v,g=w)"), or NULL. */
static char *label_value(const char *label, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = label; (p = strstr(p, name)); p += n) {
		const char *end;

		if ((p != label && !strchr(" (,", p[-1])) || p[n] != '=')
			continue;
		end = p + n + 1 + strcspn(p + n + 1, " ,)");
		return xasprintf("%.*s", (int)(end - p - n - 1), p + n + 1);
	}
	return NULL;
}

static int conds_hold(const struct proj_cond *c, int nc, const struct proj_axis *a,
		      const char *label)
{
	for (int i = 0; i < nc; i++) {
		char *v = label_value(label, a[c[i].axis].name);
		int ok = v && !strcmp(v, c[i].value);

		free(v);
		if (!ok)
			return 0;
	}
	return 1;
}

static const struct proj_impossible *matching(const char *row, const char *col)
{
	const struct projection *pj = projection_current();
	size_t alen = strcspn(col, "(");

	for (int i = 0; i < pj->nimp; i++) {
		const struct proj_impossible *im = &pj->imp[i];

		if ((!strcmp(im->action, "*") ||
		     (strlen(im->action) == alen && !strncmp(im->action, col, alen))) &&
		    conds_hold(im->row, im->nrow, pj->row, row) &&
		    conds_hold(im->col, im->ncol, pj->col, col))
			return im;
	}
	return NULL;
}

static const char *proj_impossible(const char *row, const char *col)
{
	const struct proj_impossible *im = matching(row, col);

	return im ? im->why : NULL;
}

/* A label's value text as the JSON value it was written from. */
static cJSON *text_value(const char *t)
{
	char *end;
	long long v = strtoll(t, &end, 10);

	if (!*end && end != t)
		return json_int(v);
	if (!strcmp(t, "true") || !strcmp(t, "false"))
		return json_bool(!strcmp(t, "true"));
	return strcmp(t, "null") ? json_str(t) : json_null();
}

/* The state of the window: @slice under the key @col names. */
static cJSON *cell_state(const struct projection *pj, cJSON *slice, const char *col)
{
	struct strbuf id = STRBUF_INIT;
	cJSON *st;

	if (!pj->map)
		return slice;
	for (int i = 0; i < pj->nkey; i++) {
		char *v = label_value(col, pj->key[i].name);

		strbuf_addf(&id, "%s%s", i ? "/" : "", v ? v : "");
		free(v);
	}
	st = json_obj();
	json_add(json_add(st, pj->map, json_obj()), id.buf, slice);
	strbuf_release(&id);
	return st;
}

static cJSON *proj_impossible_windows(const char *row, const char *col)
{
	const struct projection *pj = projection_current();
	const struct proj_impossible *im = matching(row, col);
	cJSON *all, *w, *pre = json_obj(), *post, *input;

	if (!im || !im->nreach) {
		cJSON_Delete(pre);
		return NULL;
	}
	for (int i = 0; i < pj->nstate; i++) {
		char *v = label_value(row, pj->state[i].name);

		json_add(pre, pj->state[i].name, v ? text_value(v) : json_null());
		free(v);
	}
	post = json_dup(pre);
	for (int i = 0; i < im->nreach; i++)
		cJSON_ReplaceItemInObjectCaseSensitive(post, pj->state[im->reach[i].axis].name,
						       json_dup(im->reach_value[i]));
	all = json_arr();
	w = json_add(all, NULL, json_obj());
	json_add(w, "action", json_str(im->action));
	input = json_add(w, "input", json_obj());
	for (int i = 0; i < pj->ncols; i++) {
		char *v = label_value(col, pj->col[i].name);

		if (v)
			json_add(input, pj->col[i].name, text_value(v));
		free(v);
	}
	json_add(w, "pre_state", cell_state(pj, pre, col));
	json_add(w, "post_state", cell_state(pj, post, col));
	return all;
}

void projection_audit_init(struct projection *pj)
{
	struct strbuf sb = STRBUF_INIT;

	if (!pj->nrows && !pj->ncols && !pj->nimp)
		return;
	strbuf_addf(&sb, "declared by projection %s: the acting %s's pre-state ",
		    pj->name, pj->map ? "key" : "state");
	for (int i = 0; i < pj->nrows; i++)
		strbuf_addf(&sb, "%s%s", i ? ", " : "by {", pj->row[i].name);
	strbuf_addstr(&sb, pj->nrows ? "}" : "as one row");
	strbuf_addstr(&sb, " x each action");
	for (int i = 0; i < pj->ncols; i++)
		strbuf_addf(&sb, "%s%s", i ? ", " : " by its data {", pj->col[i].name);
	strbuf_addstr(&sb, pj->ncols ? "}" : "");
	pj->describes = sb.buf;
	pj->audit = (struct audit_domain){
		.describes = pj->describes,
		.learn = proj_learn,
		.axes = proj_axes,
		.classify = proj_classify,
		.impossible = pj->nimp ? proj_impossible : NULL,
		.impossible_windows = pj->nimp ? proj_impossible_windows : NULL,
	};
}

// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "../folders/folder.h"
#include "audit.h"
#include "corpus.h"
#include "die.h"

static char *vformat(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		die(EXIT_CAPTURE_FAILED, "out of memory");
	return s;
}

static void add_label(char ***labels, size_t *n, char *s)
{
	*labels = xrealloc(*labels, (*n + 1) * sizeof(**labels));
	(*labels)[(*n)++] = s;
}

void audit_add_row(struct audit_axes *ax, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_label(&ax->rows, &ax->nrows, vformat(fmt, ap));
	va_end(ap);
}

void audit_add_col(struct audit_axes *ax, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_label(&ax->cols, &ax->ncols, vformat(fmt, ap));
	va_end(ap);
}

static void axes_free(struct audit_axes *ax)
{
	for (size_t i = 0; i < ax->nrows; i++)
		free(ax->rows[i]);
	for (size_t i = 0; i < ax->ncols; i++)
		free(ax->cols[i]);
	free(ax->rows);
	free(ax->cols);
}

static long find_label(char *const *labels, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(labels[i], s))
			return (long)i;
	return -1;
}

struct cell {
	long windows, identity;
	long runs;          /* distinct runs with a window here */
	long last_run;      /* index of the last such run */
};

/* Windows per cell of the domain, and per action outside it. */
static cJSON *coverage(const struct window_set *ws,
		       const struct audit_domain *d)
{
	struct audit_axes ax = { 0 };
	struct strbuf row = STRBUF_INIT, col = STRBUF_INIT;
	cJSON *cov = json_obj(), *covered, *uncovered, *single, *outside;
	struct cell *cells;
	long ncovered = 0;

	d->axes(&ax, ws);
	cells = xcalloc(ax.nrows * ax.ncols + 1, sizeof(*cells));
	outside = json_obj();
	for (size_t f = 0; f < ws->n; f++) {
		for (size_t i = 0; i < ws->files[f].n; i++) {
			const struct window *w = &ws->files[f].w[i];
			long r, c;
			struct cell *cl;

			strbuf_reset(&row);
			strbuf_reset(&col);
			r = c = -1;
			if (d->classify(w, &row, &col)) {
				r = find_label(ax.rows, ax.nrows, row.buf);
				c = find_label(ax.cols, ax.ncols, col.buf);
			}
			if (r < 0 || c < 0) {
				json_count(outside, w->action, 1);
				continue;
			}
			cl = &cells[r * ax.ncols + c];
			cl->windows++;
			cl->identity += window_is_identity(w);
			if (!cl->runs || cl->last_run != (long)f)
				cl->runs++;
			cl->last_run = (long)f;
		}
	}
	json_add(cov, "describes", json_str(d->describes));
	cJSON *rows = json_add(cov, "rows", json_arr());
	cJSON *cols = json_add(cov, "columns", json_arr());
	for (size_t r = 0; r < ax.nrows; r++)
		json_add(rows, NULL, json_str(ax.rows[r]));
	for (size_t c = 0; c < ax.ncols; c++)
		json_add(cols, NULL, json_str(ax.cols[c]));
	json_add(cov, "total", json_int((long long)(ax.nrows * ax.ncols)));
	cJSON *ncov = json_add(cov, "covered", json_int(0));
	covered = json_add(cov, "cells", json_arr());
	uncovered = json_add(cov, "uncovered", json_arr());
	single = json_add(cov, "single_run", json_arr());
	for (size_t r = 0; r < ax.nrows; r++) {
		for (size_t c = 0; c < ax.ncols; c++) {
			struct cell *cl = &cells[r * ax.ncols + c];
			cJSON *o = json_obj();

			json_add(o, "pre", json_str(ax.rows[r]));
			json_add(o, "action", json_str(ax.cols[c]));
			if (!cl->windows) {
				json_add(uncovered, NULL, o);
				continue;
			}
			ncovered++;
			json_add(o, "windows", json_int(cl->windows));
			json_add(o, "identity", json_int(cl->identity));
			json_add(o, "runs", json_int(cl->runs));
			json_add(covered, NULL, o);
			if (cl->runs == 1 && ws->n > 1) {
				cJSON *s = json_obj();

				json_add(s, "pre", json_str(ax.rows[r]));
				json_add(s, "action", json_str(ax.cols[c]));
				json_add(s, "run",
					 json_str(ws->files[cl->last_run].label));
				json_add(single, NULL, s);
			}
		}
	}
	cJSON_SetNumberValue(ncov, ncovered);
	json_add(cov, "outside", outside);
	free(cells);
	strbuf_release(&row);
	strbuf_release(&col);
	axes_free(&ax);
	return cov;
}

long long report_n(const cJSON *o, const char *key)
{
	long long n = 0;

	json_get_int(o, key, &n);
	return n;
}

const char *report_rate(char buf[64], long long k, long long n)
{
	snprintf(buf, 64, "%lld/%lld = %.1f%%", k, n, n ? 100.0 * k / n : 0.0);
	return buf;
}

cJSON *report_values(cJSON *obj)
{
	cJSON *out = json_arr(), *a;

	while ((a = cJSON_DetachItemFromArray(obj, 0))) {
		free(a->string);
		a->string = NULL;
		json_add(out, NULL, a);
	}
	cJSON_Delete(obj);
	return out;
}

/* Per action: windows and identity windows, in order of first appearance. */
static cJSON *per_action(const struct window_set *ws)
{
	cJSON *by = json_obj();

	for (size_t f = 0; f < ws->n; f++) {
		for (size_t i = 0; i < ws->files[f].n; i++) {
			const struct window *w = &ws->files[f].w[i];
			cJSON *o = (cJSON *)json_get(by, w->action);

			if (!o) {
				o = json_add(by, w->action, json_obj());
				json_add(o, "action", json_str(w->action));
			}
			json_count(o, "windows", 1);
			json_count(o, "identity", window_is_identity(w));
		}
	}
	return report_values(by);
}

/* Distinct action sequences across runs, without and with their data. */
static cJSON *schedules(const struct window_set *ws)
{
	cJSON *seen_actions = json_obj(), *seen_data = json_obj();
	cJSON *s = json_obj();
	struct strbuf a = STRBUF_INIT, d = STRBUF_INIT;

	for (size_t f = 0; f < ws->n; f++) {
		strbuf_reset(&a);
		strbuf_reset(&d);
		for (size_t i = 0; i < ws->files[f].n; i++) {
			const struct window *w = &ws->files[f].w[i];

			strbuf_addf(&a, "%s\n", w->action);
			strbuf_addf(&d, "%s ", w->action);
			json_write(&d, w->data, JSON_CANONICAL);
			strbuf_addstr(&d, "\n");
		}
		json_count(seen_actions, a.buf ? a.buf : "", 1);
		json_count(seen_data, d.buf ? d.buf : "", 1);
	}
	json_add(s, "runs", json_int((long long)ws->n));
	json_add(s, "distinct_actions",
		 json_int(cJSON_GetArraySize(seen_actions)));
	json_add(s, "distinct_with_data",
		 json_int(cJSON_GetArraySize(seen_data)));
	cJSON_Delete(seen_actions);
	cJSON_Delete(seen_data);
	strbuf_release(&a);
	strbuf_release(&d);
	return s;
}

cJSON *audit_report(const struct window_set *ws)
{
	cJSON *rep = json_obj(), *runs, *actions, *a;
	long long windows = 0, identity = 0, n;

	json_add(rep, "system", json_str(ws->system->name));
	runs = json_add(rep, "runs", json_arr());
	for (size_t f = 0; f < ws->n; f++)
		json_add(runs, NULL, json_str(ws->files[f].label));
	actions = per_action(ws);
	cJSON_ArrayForEach(a, actions) {
		json_get_int(a, "windows", &n);
		windows += n;
		json_get_int(a, "identity", &n);
		identity += n;
	}
	json_add(rep, "windows", json_int(windows));
	json_add(rep, "identity", json_int(identity));
	json_add(rep, "state_changing", json_int(windows - identity));
	json_add(rep, "actions", actions);
	json_add(rep, "schedules", schedules(ws));
	json_add(rep, "coverage", ws->system->audit ?
		 coverage(ws, ws->system->audit) : json_null());
	return rep;
}

static int widest(const cJSON *arr, const char *key, int least)
{
	const cJSON *v;
	int w = least;

	cJSON_ArrayForEach(v, arr) {
		const char *s = key ? json_get_str(v, key) : v->valuestring;
		int n = s ? (int)strlen(s) : 0;

		if (n > w)
			w = n;
	}
	return w;
}

static void print_action(FILE *f, int w, const char *name, long long n,
			 long long identity)
{
	char buf[64];

	fprintf(f, "  %-*s %8lld  %-22s  %lld\n", w, name, n,
		report_rate(buf, identity, n), n - identity);
}

static void print_actions(FILE *f, const cJSON *rep)
{
	const cJSON *actions = json_get(rep, "actions"), *a;
	int w = widest(actions, "action", 6);

	fprintf(f, "windows per action:\n  %-*s %8s  %-22s  %s\n", w, "action",
		"windows", "identity (post == pre)", "state-changing");
	cJSON_ArrayForEach(a, actions)
		print_action(f, w, json_get_str(a, "action"),
			     report_n(a, "windows"), report_n(a, "identity"));
	print_action(f, w, "all", report_n(rep, "windows"),
		     report_n(rep, "identity"));
}

static void print_cells(FILE *f, const cJSON *cells, const char *extra,
			int wr, int wc)
{
	const cJSON *c;

	cJSON_ArrayForEach(c, cells) {
		fprintf(f, "  %-*s  %-*s", wr, json_get_str(c, "pre"),
			*extra ? wc : 0, json_get_str(c, "action"));
		if (!strcmp(extra, "counts"))
			fprintf(f, " %7lld %8lld %5lld", report_n(c, "windows"),
				report_n(c, "identity"), report_n(c, "runs"));
		else if (!strcmp(extra, "run"))
			fprintf(f, "  %s", json_get_str(c, "run"));
		fputc('\n', f);
	}
}

static void print_coverage(FILE *f, const cJSON *cov)
{
	const cJSON *cells = json_get(cov, "cells"), *o;
	const cJSON *uncovered = json_get(cov, "uncovered");
	const cJSON *single = json_get(cov, "single_run");
	int wr = widest(json_get(cov, "rows"), NULL, 9);
	int wc = widest(json_get(cov, "columns"), NULL, 6);

	fprintf(f, "coverage: %lld/%lld covered\n  (%s)\n", report_n(cov, "covered"),
		report_n(cov, "total"), json_get_str(cov, "describes"));
	fprintf(f, "  %-*s  %-*s %7s %8s %5s\n", wr, "pre-state", wc, "action",
		"windows", "identity", "runs");
	print_cells(f, cells, "counts", wr, wc);
	fprintf(f, "uncovered: %d\n", cJSON_GetArraySize(uncovered));
	print_cells(f, uncovered, "", wr, wc);
	fprintf(f, "covered by one run only: %d\n", cJSON_GetArraySize(single));
	print_cells(f, single, "run", wr, wc);
	cJSON_ArrayForEach(o, json_get(cov, "outside"))
		fprintf(f, "outside the domain: %lld %s windows\n",
			(long long)o->valuedouble, o->string);
}

void audit_print_text(FILE *f, const cJSON *rep)
{
	const cJSON *cov = json_get(rep, "coverage"), *r;
	const cJSON *s = json_get(rep, "schedules");
	int runs = cJSON_GetArraySize(json_get(rep, "runs"));

	fprintf(f, "audit of %s: %d run%s, %lld windows\n",
		json_get_str(rep, "system"), runs, runs == 1 ? "" : "s",
		report_n(rep, "windows"));
	cJSON_ArrayForEach(r, json_get(rep, "runs"))
		fprintf(f, "  %s\n", r->valuestring);
	if (cJSON_IsObject(cov))
		print_coverage(f, cov);
	else
		fprintf(f, "coverage: %s declares no audit domain\n",
			json_get_str(rep, "system"));
	print_actions(f, rep);
	fprintf(f, "state-changing windows: %lld of %lld\n",
		report_n(rep, "state_changing"), report_n(rep, "windows"));
	fprintf(f, "schedules: %lld runs, %lld distinct action sequences, "
		"%lld distinct with data\n", report_n(s, "runs"),
		report_n(s, "distinct_actions"), report_n(s, "distinct_with_data"));
}

void audit_corpus(struct corpus *c)
{
	const cJSON *m = corpus_manifest(c), *run;
	const char *system = json_get_str(m, "system");
	struct window_set ws = { 0 };
	struct strbuf text = STRBUF_INIT;
	cJSON *rep;
	FILE *f;

	ws.system = system ? folder_find(system) : NULL;
	if (!ws.system)
		die(EXIT_CAPTURE_FAILED, "audit.json: the manifest names no "
		    "known system");
	cJSON_ArrayForEach(run, json_get(m, "runs")) {
		char *rel = xasprintf("%s/%s.ndjson", system,
				      json_get_str(run, "name"));
		char *path = corpus_path(c, rel);

		window_set_add_file(&ws, path, rel);
		free(path);
		free(rel);
	}
	rep = audit_report(&ws);
	json_write_indented(&text, rep, 0);
	strbuf_addstr(&text, "\n");
	f = corpus_create(c, "audit.json");
	fwrite(text.buf, 1, text.len, f);
	corpus_close(c, f, "audit.json");
	strbuf_release(&text);
	cJSON_Delete(rep);
	ws.system = NULL;
	window_set_free(&ws);
}

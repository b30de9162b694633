// SPDX-License-Identifier: MIT
#include <stdlib.h>
#include <string.h>
#include <openssl/evp.h>
#include "audit.h"
#include "corpus.h"
#include "die.h"
#include "impossible.h"
#include "proc.h"
#include "system.h"

static long find_label(char *const *labels, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(labels[i], s))
			return (long)i;
	return -1;
}

struct cell {
	long windows, identity;
	long never;         /* calls observed that never returned */
	long runs;          /* distinct runs with a window here */
	long last_run;      /* index of the last such run */
};

/*
 * A cell as classify() named it, counted before the axes are known: the
 * domain may learn them in the same pass (audit_domain.learn).  Rows and
 * columns are indices into the labels seen so far.
 */
struct seen_cell {
	size_t row, col;
	struct cell cell;
};

/*
 * Windows of one action in one seen cell (row NONE: classify() put them
 * outside the domain), with the first one's place in the pass: the ones
 * whose cell the axes lack go outside too, in order of first window.
 */
#define NONE ((size_t)-1)
struct seen_use {
	size_t row, col, action;
	long first, windows;
};

/*
 * A run's action sequence as a running sha256.  Windows are short: the
 * text is gathered and hashed a block at a time, since an EVP call per
 * window cost more than the hashing.
 */
struct sequence {
	EVP_MD_CTX *md;
	struct strbuf text;
};
#define SEQUENCE_BLOCK (1 << 16)

/*
 * One pass over the windows: counts per cell of the domain and per action,
 * and each run's action sequence as a running sha256 (the sequences are
 * compared, never kept), so that memory does not grow with the corpus.
 */
struct audit_pass {
	const struct folder *folder;
	const struct audit_domain *d;
	struct audit_axes ax;
	struct cell *cells;
	struct audit_axes seen;   /* distinct row and column labels seen */
	char **actions_seen;
	size_t nactions_seen;
	struct seen_cell *seen_cells;
	size_t nseen_cells;
	struct seen_use *uses;
	size_t nuses;
	long windows;
	long never;          /* calls that never returned, in or outside */
	cJSON *learned;
	cJSON *outside;      /* action -> windows outside the domain */
	cJSON *by_action;    /* action -> {action, windows, identity} */
	struct strbuf row, col;
	struct sequence actions, with_data;   /* the current run's */
	cJSON *seen_actions, *seen_data;   /* digest -> runs */
	char **runs;         /* labels of the runs fed, in order */
	size_t nruns;
	const char *system;
};

/* Index of @s in @labels, added if new. */
static size_t label_index(char ***labels, size_t *n, const char *s)
{
	long i = find_label(*labels, *n, s);

	if (i >= 0)
		return (size_t)i;
	audit_add_label(labels, n, xstrdup(s));
	return *n - 1;
}

static void count_use(struct audit_pass *p, size_t row, size_t col,
		      const char *action)
{
	size_t a = label_index(&p->actions_seen, &p->nactions_seen, action);
	struct seen_use *u;

	for (size_t i = 0; i < p->nuses; i++) {
		u = &p->uses[i];
		if (u->row == row && u->col == col && u->action == a) {
			u->windows++;
			return;
		}
	}
	p->uses = xrealloc(p->uses, (p->nuses + 1) * sizeof(*p->uses));
	p->uses[p->nuses++] = (struct seen_use){
		.row = row, .col = col, .action = a,
		.first = p->windows, .windows = 1,
	};
}

static struct cell *seen_cell(struct audit_pass *p, size_t row, size_t col)
{
	struct seen_cell *sc;

	for (size_t i = 0; i < p->nseen_cells; i++)
		if (p->seen_cells[i].row == row && p->seen_cells[i].col == col)
			return &p->seen_cells[i].cell;
	p->seen_cells = xrealloc(p->seen_cells, (p->nseen_cells + 1) *
				 sizeof(*p->seen_cells));
	sc = &p->seen_cells[p->nseen_cells++];
	*sc = (struct seen_cell){ .row = row, .col = col };
	return &sc->cell;
}

/* The domain's reason why cell (@row, @col) holds no window, or NULL. */
static const char *impossible(const struct audit_domain *d, const char *row,
			      const char *col)
{
	return d->impossible ? d->impossible(row, col) : NULL;
}

static void count_cell(struct audit_pass *p, size_t run,
		       const struct window *w, int identity)
{
	size_t r = NONE, c = NONE;
	const char *why;
	struct cell *cl;

	if (p->d->learn)
		p->d->learn(p->learned, w);
	strbuf_reset(&p->row);
	strbuf_reset(&p->col);
	if (p->d->classify(w, &p->row, &p->col)) {
		why = impossible(p->d, p->row.buf, p->col.buf);
		if (why && w->post)
			die_at(EXIT_CHECK_FAILED, w->file, w->line,
			       "%s window in cell (%s, %s), which %s declares "
			       "impossible (%s): the fold or the declaration is "
			       "wrong", w->action, p->row.buf, p->col.buf,
			       p->system, why);
		r = label_index(&p->seen.rows, &p->seen.nrows, p->row.buf);
		c = label_index(&p->seen.cols, &p->seen.ncols, p->col.buf);
	}
	if (!w->post) {
		/* a call that never returned is no window: only its cell */
		if (r != NONE)
			seen_cell(p, r, c)->never++;
		return;
	}
	count_use(p, r, c, w->action);
	if (r == NONE)
		return;
	cl = seen_cell(p, r, c);
	cl->windows++;
	cl->identity += identity;
	if (!cl->runs || cl->last_run != (long)run)
		cl->runs++;
	cl->last_run = (long)run;
}

/* Hash the text gathered, once there is at least @least of it. */
static void sequence_hash(struct sequence *s, size_t least)
{
	if (s->text.len < least || !s->text.len)
		return;
	if (!EVP_DigestUpdate(s->md, s->text.buf, s->text.len))
		die(EXIT_CAPTURE_FAILED, "sha256 failed");
	strbuf_reset(&s->text);
}

void audit_pass_window(void *ctx, const struct window *w)
{
	struct audit_pass *p = ctx;
	int identity;
	cJSON *o = (cJSON *)json_get(p->by_action, w->action);

	if (!p->nruns)
		die(EXIT_CAPTURE_FAILED, "audit: a window before its run");
	if (!w->post) {
		p->never++;
		if (p->d)
			count_cell(p, p->nruns - 1, w, 0);
		return;
	}
	identity = window_is_identity(w);
	if (!o) {
		o = json_add(p->by_action, w->action, json_obj());
		json_add(o, "action", json_str(w->action));
	}
	json_count(o, "windows", 1);
	json_count(o, "identity", identity);
	if (p->d)
		count_cell(p, p->nruns - 1, w, identity);
	p->windows++;
	strbuf_addstr(&p->actions.text, w->action);
	strbuf_add(&p->actions.text, "\n", 1);
	strbuf_addstr(&p->with_data.text, w->action);
	strbuf_add(&p->with_data.text, " ", 1);
	json_write(&p->with_data.text, w->data, JSON_CANONICAL);
	strbuf_add(&p->with_data.text, "\n", 1);
	sequence_hash(&p->actions, SEQUENCE_BLOCK);
	sequence_hash(&p->with_data, SEQUENCE_BLOCK);
}

/* Is seen row @r, column @c a cell of the axes?  Its index, or -1. */
static long axes_cell(const struct audit_pass *p, size_t r, size_t c)
{
	long ar, ac;

	if (r == NONE)
		return -1;
	ar = find_label(p->ax.rows, p->ax.nrows, p->seen.rows[r]);
	ac = find_label(p->ax.cols, p->ax.ncols, p->seen.cols[c]);
	return ar < 0 || ac < 0 ? -1 : ar * (long)p->ax.ncols + ac;
}

static int by_first(const void *a, const void *b)
{
	const struct seen_use *x = a, *y = b;

	return (x->first > y->first) - (x->first < y->first);
}

/* The axes, now that every window was seen: place the cells counted. */
static void place_cells(struct audit_pass *p)
{
	p->d->axes(&p->ax, p->learned);
	p->cells = xcalloc(p->ax.nrows * p->ax.ncols + 1, sizeof(*p->cells));
	for (size_t i = 0; i < p->nseen_cells; i++) {
		const struct seen_cell *sc = &p->seen_cells[i];
		long k = axes_cell(p, sc->row, sc->col);

		if (k >= 0)
			p->cells[k] = sc->cell;
	}
	if (p->nuses)   /* p->uses is NULL then, which qsort may not take */
		qsort(p->uses, p->nuses, sizeof(*p->uses), by_first);
	for (size_t i = 0; i < p->nuses; i++) {
		const struct seen_use *u = &p->uses[i];

		if (axes_cell(p, u->row, u->col) < 0)
			json_count(p->outside, p->actions_seen[u->action],
				   u->windows);
	}
}

static void sequence_start(struct sequence *s)
{
	if (!s->md)
		s->md = EVP_MD_CTX_new();
	if (!s->md || !EVP_DigestInit_ex(s->md, EVP_sha256(), NULL))
		die(EXIT_CAPTURE_FAILED, "sha256 failed");
	strbuf_reset(&s->text);
}

/* Count the finished run's sequence in @seen. */
static void sequence_seen(struct sequence *s, cJSON *seen)
{
	unsigned char d[EVP_MAX_MD_SIZE];
	unsigned n = 0;
	char hex[65];

	sequence_hash(s, 0);
	EVP_DigestFinal_ex(s->md, d, &n);
	hex_digest(d, n, hex);
	json_count(seen, hex, 1);
}

struct audit_pass *audit_pass_begin(const struct folder *system)
{
	struct audit_pass *p = xcalloc(1, sizeof(*p));

	p->folder = system;
	p->system = system->name;
	p->d = system->audit;
	p->learned = json_obj();
	p->outside = json_obj();
	p->by_action = json_obj();
	p->seen_actions = json_obj();
	p->seen_data = json_obj();
	return p;
}

/* The run fed last is over: count its sequences. */
static void end_run(struct audit_pass *p)
{
	if (!p->nruns)
		return;
	sequence_seen(&p->actions, p->seen_actions);
	sequence_seen(&p->with_data, p->seen_data);
}

void audit_pass_run(struct audit_pass *p, const char *label)
{
	end_run(p);
	audit_add_label(&p->runs, &p->nruns, xstrdup(label));
	sequence_start(&p->actions);
	sequence_start(&p->with_data);
}

static void audit_pass_free(struct audit_pass *p)
{
	EVP_MD_CTX_free(p->actions.md);
	EVP_MD_CTX_free(p->with_data.md);
	strbuf_release(&p->actions.text);
	strbuf_release(&p->with_data.text);
	cJSON_Delete(p->learned);
	cJSON_Delete(p->outside);
	cJSON_Delete(p->by_action);
	cJSON_Delete(p->seen_actions);
	cJSON_Delete(p->seen_data);
	free(p->cells);
	free(p->seen_cells);
	free(p->uses);
	for (size_t i = 0; i < p->nactions_seen; i++)
		free(p->actions_seen[i]);
	free(p->actions_seen);
	for (size_t i = 0; i < p->nruns; i++)
		free(p->runs[i]);
	free(p->runs);
	strbuf_release(&p->row);
	strbuf_release(&p->col);
	audit_axes_free(&p->ax);
	audit_axes_free(&p->seen);
	free(p);
}

static cJSON *cell_obj(const struct audit_axes *ax, size_t r, size_t c)
{
	cJSON *o = json_obj();

	json_add(o, "pre", json_str(ax->rows[r]));
	json_add(o, "action", json_str(ax->cols[c]));
	return o;
}

/* The coverage report's lists of cells, by status. */
struct cell_lists {
	cJSON *covered, *uncovered, *impossible, *never, *single;
};

/*
 * Cell (@r, @c) into the list of its status: covered (with its counts),
 * impossible (with the reason) or uncovered; and into never_completing
 * too when calls were seen there that never returned.
 */
static void report_cell(struct audit_pass *p, const struct cell_lists *l,
			size_t r, size_t c)
{
	const struct audit_axes *ax = &p->ax;
	const struct cell *cl = &p->cells[r * ax->ncols + c];
	const char *why = impossible(p->d, ax->rows[r], ax->cols[c]);
	cJSON *o = cell_obj(ax, r, c);

	if (cl->never) {
		cJSON *n = cell_obj(ax, r, c);

		json_add(n, "calls", json_int(cl->never));
		json_add(l->never, NULL, n);
	}
	if (!cl->windows) {
		if (why)
			json_add(o, "why", json_str(why));
		/* a reachable cell with a call never completing is observed */
		if (why || !cl->never)
			json_add(why ? l->impossible : l->uncovered, NULL, o);
		else
			cJSON_Delete(o);
		return;
	}
	json_add(o, "windows", json_int(cl->windows));
	json_add(o, "identity", json_int(cl->identity));
	json_add(o, "runs", json_int(cl->runs));
	json_add(l->covered, NULL, o);
	if (cl->runs == 1 && p->nruns > 1) {
		o = cell_obj(ax, r, c);
		json_add(o, "run", json_str(p->runs[cl->last_run]));
		json_add(l->single, NULL, o);
	}
}

/* Windows per cell of the domain, and per action outside it. */
static cJSON *coverage(struct audit_pass *p)
{
	const struct audit_axes *ax = &p->ax;
	cJSON *cov = json_obj();
	long long total = (long long)(ax->nrows * ax->ncols);
	struct cell_lists l;

	json_add(cov, "describes", json_str(p->d->describes));
	cJSON *rows = json_add(cov, "rows", json_arr());
	cJSON *cols = json_add(cov, "columns", json_arr());
	for (size_t r = 0; r < ax->nrows; r++)
		json_add(rows, NULL, json_str(ax->rows[r]));
	for (size_t c = 0; c < ax->ncols; c++)
		json_add(cols, NULL, json_str(ax->cols[c]));
	json_add(cov, "total", json_int(total));
	cJSON *reachable = json_add(cov, "reachable", json_int(total));
	cJSON *observed = json_add(cov, "observed", json_int(0));
	cJSON *ncovered = json_add(cov, "covered", json_int(0));
	l.covered = json_add(cov, "cells", json_arr());
	l.uncovered = json_add(cov, "uncovered", json_arr());
	l.impossible = json_add(cov, "impossible", json_arr());
	l.never = json_add(cov, "never_completing", json_arr());
	l.single = json_add(cov, "single_run", json_arr());
	for (size_t r = 0; r < ax->nrows; r++)
		for (size_t c = 0; c < ax->ncols; c++)
			report_cell(p, &l, r, c);
	/* an impossible cell with a window was refused when counted */
	cJSON_SetNumberValue(reachable,
			     (double)(total - cJSON_GetArraySize(l.impossible)));
	cJSON_SetNumberValue(ncovered, cJSON_GetArraySize(l.covered));
	/* reachable cells are covered, uncovered, or observed never completing */
	cJSON_SetNumberValue(observed, reachable->valuedouble -
			     cJSON_GetArraySize(l.uncovered));
	json_add(cov, "outside", p->outside);
	p->outside = NULL;
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

/* Distinct action sequences across runs, without and with their data. */
static cJSON *schedules(const struct audit_pass *p)
{
	cJSON *s = json_obj();

	json_add(s, "runs", json_int((long long)p->nruns));
	json_add(s, "distinct_actions",
		 json_int(cJSON_GetArraySize(p->seen_actions)));
	json_add(s, "distinct_with_data",
		 json_int(cJSON_GetArraySize(p->seen_data)));
	return s;
}

cJSON *audit_pass_report(struct audit_pass *p)
{
	cJSON *rep = json_obj(), *runs, *actions, *a;
	long long windows = 0, identity = 0, n;

	end_run(p);
	if (p->d)
		place_cells(p);
	json_add(rep, "system", json_str(p->system));
	runs = json_add(rep, "runs", json_arr());
	for (size_t f = 0; f < p->nruns; f++)
		json_add(runs, NULL, json_str(p->runs[f]));
	/* per action, in order of first appearance */
	actions = report_values(p->by_action);
	p->by_action = NULL;
	cJSON_ArrayForEach(a, actions) {
		json_get_int(a, "windows", &n);
		windows += n;
		json_get_int(a, "identity", &n);
		identity += n;
	}
	json_add(rep, "windows", json_int(windows));
	json_add(rep, "identity", json_int(identity));
	json_add(rep, "state_changing", json_int(windows - identity));
	json_add(rep, "never_completing", json_int(p->never));
	json_add(rep, "actions", actions);
	json_add(rep, "schedules", schedules(p));
	json_add(rep, "coverage", p->d ? coverage(p) : json_null());
	audit_pass_free(p);
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
		else if (!strcmp(extra, "run") || !strcmp(extra, "why"))
			fprintf(f, "  %s", json_get_str(c, extra));
		else if (!strcmp(extra, "calls"))
			fprintf(f, " %7lld", report_n(c, "calls"));
		fputc('\n', f);
	}
}

static void print_coverage(FILE *f, const cJSON *cov)
{
	const cJSON *cells = json_get(cov, "cells"), *o;
	const cJSON *uncovered = json_get(cov, "uncovered");
	const cJSON *impossible = json_get(cov, "impossible");
	const cJSON *never = json_get(cov, "never_completing");
	const cJSON *single = json_get(cov, "single_run");
	int wr = widest(json_get(cov, "rows"), NULL, 9);
	int wc = widest(json_get(cov, "columns"), NULL, 6);

	fprintf(f, "coverage: %lld/%lld reachable observed (%lld covered by "
		"windows, %lld only never completing; %lld cells, %d "
		"impossible)\n  (%s)\n", report_n(cov, "observed"),
		report_n(cov, "reachable"), report_n(cov, "covered"),
		report_n(cov, "observed") - report_n(cov, "covered"),
		report_n(cov, "total"), cJSON_GetArraySize(impossible),
		json_get_str(cov, "describes"));
	fprintf(f, "  %-*s  %-*s %7s %8s %5s\n", wr, "pre-state", wc, "action",
		"windows", "identity", "runs");
	print_cells(f, cells, "counts", wr, wc);
	fprintf(f, "uncovered (reachable): %d\n", cJSON_GetArraySize(uncovered));
	print_cells(f, uncovered, "", wr, wc);
	fprintf(f, "impossible: %d\n", cJSON_GetArraySize(impossible));
	print_cells(f, impossible, "why", wr, wc);
	fprintf(f, "observed, never completing: %d\n", cJSON_GetArraySize(never));
	if (cJSON_GetArraySize(never))
		fprintf(f, "  %-*s  %-*s %7s\n", wr, "pre-state", wc, "action",
			"calls");
	print_cells(f, never, "calls", wr, wc);
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
	fprintf(f, "calls that never returned (no window): %lld\n",
		report_n(rep, "never_completing"));
	fprintf(f, "schedules: %lld runs, %lld distinct action sequences, "
		"%lld distinct with data\n", report_n(s, "runs"),
		report_n(s, "distinct_actions"), report_n(s, "distinct_with_data"));
}

void audit_corpus(struct corpus *c)
{
	enum json_style st;
	struct strbuf text = STRBUF_INIT;
	cJSON *rep;
	FILE *f;

	if (!corpus_audit(c))
		die(EXIT_CAPTURE_FAILED, "audit.json: no audit was fed");
	if (windows_canonical_style(c, &st))
		impossible_windows_write(c, corpus_audit(c)->folder, st);
	rep = audit_pass_report(corpus_audit(c));
	corpus_set_audit(c, NULL);
	json_write_indented(&text, rep, 0);
	strbuf_addstr(&text, "\n");
	f = corpus_create(c, "audit.json");
	fwrite(text.buf, 1, text.len, f);
	corpus_close(c, f, "audit.json");
	strbuf_release(&text);
	cJSON_Delete(rep);
}

// SPDX-License-Identifier: MIT
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "corpus.h"
#include "die.h"
#include "itf.h"
#include "json.h"
#include "ndjson.h"
#include "proc.h"
#include "projection.h"
#include "system.h"
#include "window-read.h"

static const cJSON *member(struct line_reader *r, const cJSON *v,
			   const char *key, int object)
{
	const cJSON *m = json_get(v, key);

	if (!m || (object && !cJSON_IsObject(m)))
		die_at(EXIT_BAD_INPUT, r->path, r->line,
		       "window lacks %s \"%s\"", object ? "an object" : "a",
		       key);
	return m;
}

/*
 * Reads one window file a window at a time.  A stream-form window's
 * pre-state is the line before's state, so two lines are alive at once:
 * when streaming, each is parsed into its own arena, in turn; when loading
 * (@keep), every line is kept in wf->owned.
 */
struct window_reader {
	struct window_file *wf;
	struct line_reader r;
	int keep;
	struct json_arena *arena[2];
	cJSON *line[2];
	int turn;
	int started;        /* the first line (form, seed) was read */
	const cJSON *pre;   /* stream form: the next window's pre-state */
};

static void reader_open(struct window_reader *wr, struct window_file *wf,
			int keep)
{
	memset(wr, 0, sizeof(*wr));
	wr->wf = wf;
	wr->keep = keep;
	line_reader_open(&wr->r, wf->path);
	if (!keep) {
		wr->arena[0] = json_arena_new();
		wr->arena[1] = json_arena_new();
	}
}

static void reader_close(struct window_reader *wr)
{
	for (int i = 0; i < 2 && !wr->keep; i++) {
		if (wr->line[i])
			json_arena_delete(wr->arena[i], wr->line[i]);
		json_arena_free(wr->arena[i]);
	}
	line_reader_close(&wr->r);
}

static cJSON *read_line(struct window_reader *wr)
{
	cJSON *v;

	if (wr->keep) {
		v = ndjson_next(&wr->r);
		if (v)
			cJSON_AddItemToArray(wr->wf->owned, v);
		return v;
	}
	wr->turn ^= 1;
	if (wr->line[wr->turn])
		json_arena_delete(wr->arena[wr->turn], wr->line[wr->turn]);
	wr->line[wr->turn] = ndjson_next_in(&wr->r, wr->arena[wr->turn]);
	return wr->line[wr->turn];
}

/* The form, from the first line; the seed state if it is stream form. */
static const cJSON *detect_form(struct window_file *wf, struct line_reader *r,
				const cJSON *first)
{
	if (json_get(first, "window_id")) {
		wf->form = FORM_CANONICAL;
		return NULL;
	}
	if (json_get(first, "pre_state")) {
		wf->form = FORM_EVENT;
		return NULL;
	}
	if (json_get(first, "state") && !json_get(first, "action")) {
		wf->form = FORM_STREAM;
		return member(r, first, "state", 1);
	}
	die_at(EXIT_BAD_INPUT, r->path, r->line,
	       "neither an event-form window (pre_state) nor a stream-form "
	       "seed ({\"state\": ...})");
}

/*
 * A canonical record (windows.h): its input is the window's data, its
 * trace_id and seq say where in which run it was.
 */
static void canonical_window(struct line_reader *r, const cJSON *v,
			     struct window *w)
{
	long long seq;

	w->data = member(r, v, "input", 1);
	w->pre = member(r, v, "pre_state", 1);
	w->post = member(r, v, "post_state", 1);
	w->trace = json_get_str(v, "trace_id");
	if (!w->trace)
		die_at(EXIT_BAD_INPUT, r->path, r->line,
		       "window lacks a string \"trace_id\"");
	if (json_int_value(json_get(v, "seq"), &seq) || seq < 1)
		die_at(EXIT_BAD_INPUT, r->path, r->line,
		       "window lacks a positive integer \"seq\"");
	w->seq = (long)seq;
	w->impossible = json_get_str(v, "impossible");
}

/* The next window into @w (valid until the next call); 0 at the end. */
static int next_window(struct window_reader *wr, struct window *w)
{
	struct line_reader *r = &wr->r;
	const char *key;
	const cJSON *v;

	while ((v = read_line(wr))) {
		if (!cJSON_IsObject(v))
			die_at(EXIT_BAD_INPUT, r->path, r->line,
			       "not a JSON object");
		/* a window is ours: which of two values a state holds is unknowable */
		if ((key = json_repeated_key(v)))
			die_at(EXIT_BAD_INPUT, r->path, r->line,
			       "the key \"%s\" appears twice in one object", key);
		if (!wr->started) {
			wr->started = 1;
			wr->pre = detect_form(wr->wf, r, v);
			if (wr->wf->form == FORM_STREAM) {
				if (wr->keep)
					wr->wf->initial = (cJSON *)wr->pre;
				continue;
			}
		}
		w->action = json_get_str(v, "action");
		if (!w->action)
			die_at(EXIT_BAD_INPUT, r->path, r->line,
			       "window lacks a string \"action\"");
		w->file = wr->wf->path;
		w->line = r->line;
		if (wr->wf->form == FORM_CANONICAL) {
			canonical_window(r, v, w);
			return 1;
		}
		w->data = member(r, v, "data", 1);
		w->trace = NULL;
		w->seq = 0;
		w->impossible = NULL;
		if (wr->wf->form == FORM_EVENT) {
			w->pre = member(r, v, "pre_state", 1);
			w->post = member(r, v, "post_state", 1);
		} else {
			w->pre = wr->pre;
			w->post = member(r, v, "state", 1);
		}
		wr->pre = w->post;
		return 1;
	}
	/* not even an initial state: no run (docs/input-checks.md) */
	if (!wr->started)
		die_at(EXIT_BAD_INPUT, r->path, 0, "no windows (an empty file)");
	return 0;
}

static int is_itf(const char *path)
{
	return has_suffix(path, window_file_ext(FORM_ITF));
}

/* The 1-based line of @at in @text. */
static long line_of(const char *text, const char *at)
{
	long line = 1;

	for (; text < at && *text; text++)
		line += *text == '\n';
	return line;
}

cJSON *json_file_read(const char *path, const char *what)
{
	size_t len;
	const char *end = NULL, *why;
	char *text;
	cJSON *trace;
	long line = 0;

	refuse_device(path, path);
	text = read_file(path, &len);
	if (!text)
		die_at(EXIT_BAD_INPUT, path, 0, "cannot read");
	trace = cJSON_ParseWithLengthOpts(text, len, &end, 0);
	/* what is refused is freed first: a failing run leaks nothing */
	if (!trace)
		why = "not JSON", line = line_of(text, cJSON_GetErrorPtr());
	else if (strspn(end, " \t\r\n") != strlen(end))
		why = "more after the JSON value", line = line_of(text, end);
	else if (!(why = json_check_record(trace)) && json_repeated_key(trace))
		why = "a key appears twice in one object";
	free(text);
	if (why) {
		cJSON_Delete(trace);
		die_at(EXIT_BAD_INPUT, path, line, "%s (%s)", why, what);
	}
	return trace;
}

/* Every window of the ITF trace @wf->path, as window_file_load() does. */
static void itf_load(struct window_file *wf)
{
	cJSON *trace = json_file_read(wf->path, "an ITF trace"), *recs, *r;
	const cJSON *pre;
	struct itf_error e;
	long at;

	recs = itf_read_trace(trace, &at, &e);
	if (!recs)
		cJSON_Delete(trace);
	if (!recs && at < 0)
		die_at(EXIT_BAD_INPUT, wf->path, 0, "%s", e.msg);
	if (!recs)
		die_at(EXIT_BAD_INPUT, wf->path, 0, "state %ld: %s", at, e.msg);
	wf->form = FORM_ITF;
	if (json_get(trace, "#meta")) {
		wf->meta = cJSON_DetachItemFromObject(trace, "#meta");
		json_add(wf->owned, NULL, (cJSON *)wf->meta);
	}
	cJSON_Delete(trace);
	json_add(wf->owned, NULL, recs);
	wf->initial = (cJSON *)json_get(recs->child, "state");
	pre = wf->initial;
	for (r = recs->child->next; r; r = r->next) {
		struct window *w;

		wf->w = xrealloc(wf->w, (wf->n + 1) * sizeof(*wf->w));
		w = &wf->w[wf->n++];
		*w = (struct window){
			.file = wf->path, .line = (long)wf->n,
			.action = json_get_str(r, "action"),
			.data = json_get(r, "data"), .pre = pre,
			.post = json_get(r, "state"),
		};
		pre = w->post;
	}
}

void window_file_load(struct window_file *wf, const char *path,
		      const char *label)
{
	struct window_reader wr;
	struct window w;

	memset(wf, 0, sizeof(*wf));
	wf->path = xstrdup(path);
	wf->label = xstrdup(label);
	wf->owned = json_arr();
	if (is_itf(path)) {
		itf_load(wf);
		return;
	}
	reader_open(&wr, wf, 1);
	while (next_window(&wr, &w)) {
		wf->w = xrealloc(wf->w, (wf->n + 1) * sizeof(*wf->w));
		wf->w[wf->n++] = w;
	}
	if (!wf->initial && wf->n)
		wf->initial = (cJSON *)wf->w[0].pre;
	reader_close(&wr);
}

void window_set_walk(const struct window_set *ws, size_t file,
		     window_fn *fn, void *ctx)
{
	struct window_file *wf = &ws->files[file], whole;
	struct window_reader wr;
	struct window w;

	if (!ws->lazy) {
		for (size_t i = 0; i < wf->n; i++)
			fn(ctx, file, &wf->w[i]);
		return;
	}
	/* a trace is one JSON value: it is read whole, then walked */
	if (is_itf(wf->path)) {
		window_file_load(&whole, wf->path, wf->label);
		for (size_t i = 0; i < whole.n; i++)
			fn(ctx, file, &whole.w[i]);
		window_file_free(&whole);
		return;
	}
	reader_open(&wr, wf, 0);
	while (next_window(&wr, &w))
		fn(ctx, file, &w);
	reader_close(&wr);
}

void window_file_free(struct window_file *wf)
{
	cJSON_Delete(wf->never_completing);
	cJSON_Delete(wf->owned);
	free(wf->w);
	free(wf->path);
	free(wf->label);
}

void window_set_add_file(struct window_set *ws, const char *path,
			 const char *label)
{
	struct window_file *wf;

	ws->files = xrealloc(ws->files, (ws->n + 1) * sizeof(*ws->files));
	wf = &ws->files[ws->n++];
	if (!ws->lazy) {
		window_file_load(wf, path, label);
		return;
	}
	memset(wf, 0, sizeof(*wf));
	wf->path = xstrdup(path);
	wf->label = xstrdup(label);
}

static void set_system(struct window_set *ws, const struct folder *f,
		       const char *from)
{
	if (ws->system && ws->system != f)
		die(EXIT_USAGE, "%s says system %s but %s says %s: audit one "
		    "system at a time", from, f->name, ws->system_from,
		    ws->system->name);
	if (!ws->system) {
		ws->system = f;
		ws->system_from = xstrdup(from);
	}
}

/* A copy of manifest run @run's calls that never returned, checked. */
static cJSON *never_completing(const char *mpath, const cJSON *run)
{
	const cJSON *calls = json_get(json_get(run, "info"), "never_completing");
	const cJSON *c;

	if (!calls)
		return NULL;
	if (!cJSON_IsArray(calls))
		die_at(EXIT_BAD_INPUT, mpath, 0, "run %s: info.never_completing "
		       "is not an array", json_get_str(run, "name"));
	cJSON_ArrayForEach(c, calls)
		if (!json_get_str(c, "action") ||
		    !cJSON_IsObject(json_get(c, "data")) ||
		    !cJSON_IsObject(json_get(c, "pre_state")))
			die_at(EXIT_BAD_INPUT, mpath, 0, "run %s: a never-"
			       "completing call needs a string \"action\" and "
			       "objects \"data\" and \"pre_state\"",
			       json_get_str(run, "name"));
	return cJSON_Duplicate(calls, 1);
}

/*
 * A corpus in the canonical form: its files SYSTEM/ACTION.ndjson (not
 * those below, SYSTEM/impossible/) hold every run's windows; the calls
 * that never returned, of all runs, go with the first.  0: not canonical
 * (its first run has a file of its own).
 */
static int add_canonical(struct window_set *ws, const char *dir,
			 const char *mpath, const cJSON *m)
{
	const cJSON *files = json_get(m, "files"), *file, *run;
	const char *system = json_get_str(m, "system");
	const char *first = json_get_str(manifest_runs(m, mpath)->child, "name");
	size_t len = strlen(system), start = ws->n;
	cJSON *calls = json_arr();

	for (int form = FORM_EVENT; first && form <= FORM_ITF; form++) {
		char *rel = xasprintf("%s/%s%s", system, first,
				      window_file_ext(form));
		int own = json_get(files, rel) != NULL;

		free(rel);
		if (own) {
			cJSON_Delete(calls);
			return 0;
		}
	}
	cJSON_ArrayForEach(file, files) {
		const char *rel = file->string, *rest = rel + len + 1;
		char *path;

		if (strncmp(rel, system, len) || rel[len] != '/' ||
		    strchr(rest, '/') || !has_suffix(rest, ".ndjson"))
			continue;
		path = xasprintf("%s/%s", dir, rel);
		window_set_add_file(ws, path, path);
		free(path);
	}
	cJSON_ArrayForEach(run, manifest_runs(m, mpath)) {
		cJSON *some = never_completing(mpath, run), *c;

		while (some && (c = some->child))
			json_add(calls, NULL, cJSON_DetachItemViaPointer(some, c));
		cJSON_Delete(some);
	}
	if (ws->n > start && calls->child)
		ws->files[start].never_completing = calls;
	else
		cJSON_Delete(calls);
	return 1;
}

/*
 * A run's name becomes the path of its window file, SYSTEM/NAME.ndjson:
 * one holding a '/' could name a file outside the corpus.  What the dying
 * run read is freed first (@mpath, @m, @text).
 */
static void refuse_run_paths(char *mpath, cJSON *m, char *text)
{
	static char msg[512];
	const cJSON *run;

	cJSON_ArrayForEach(run, json_get(m, "runs")) {
		const char *name = json_get_str(run, "name");

		if (!name || !strchr(name, '/'))
			continue;
		snprintf(msg, sizeof(msg), "%s: run '%.200s' names no file "
			 "inside the corpus: it holds a /", mpath, name);
		cJSON_Delete(m);
		free(text);
		free(mpath);
		die(EXIT_BAD_INPUT, "%s", msg);
	}
}

static void add_corpus(struct window_set *ws, const char *dir)
{
	char *mpath = xasprintf("%s/MANIFEST.json", dir);
	char *text = read_file(mpath, NULL);
	cJSON *m = text ? cJSON_Parse(text) : NULL;
	const char *system = json_get_str(m, "system");
	const struct system *s = m ? corpus_system(dir, m, mpath) : NULL;
	const struct folder *f = s ? s->folder : NULL;
	const cJSON *run;

	if (!text)
		die_at(EXIT_BAD_INPUT, mpath, 0, "cannot read: %s", strerror(errno));
	if (!f)
		die_at(EXIT_BAD_INPUT, mpath, 0, "%s", !m ? "not JSON" :
		       !system ? "no \"system\"" : "unknown system");
	set_system(ws, f, mpath);
	refuse_run_paths(mpath, m, text);
	if (add_canonical(ws, dir, mpath, m))
		goto done;
	cJSON_ArrayForEach(run, manifest_runs(m, mpath)) {
		const char *name = json_get_str(run, "name");
		char *rel, *path;

		if (!name)
			die_at(EXIT_BAD_INPUT, mpath, 0, "a run without a name");
		/* the files the manifest lists tell the form */
		rel = xasprintf("%s/%s%s", system, name,
				window_file_ext(FORM_EVENT));
		if (!json_get(json_get(m, "files"), rel)) {
			free(rel);
			rel = xasprintf("%s/%s%s", system, name,
					window_file_ext(FORM_ITF));
		}
		path = xasprintf("%s/%s", dir, rel);
		window_set_add_file(ws, path, path);
		ws->files[ws->n - 1].never_completing =
			never_completing(mpath, run);
		free(path);
		free(rel);
	}
done:
	cJSON_Delete(m);
	free(text);
	free(mpath);
}

static int is_window_file(const char *name)
{
	return has_suffix(name, window_file_ext(FORM_EVENT)) || is_itf(name);
}

static void add_dir(struct window_set *ws, const char *dir)
{
	size_t n;
	char **names = list_dir(dir, is_window_file, &n);

	if (!names)
		die_at(EXIT_BAD_INPUT, dir, 0, "cannot open directory");
	if (!n) {
		free_names(names, n);
		die_at(EXIT_BAD_INPUT, dir, 0, "no MANIFEST.json and no *.ndjson "
		       "or *.itf.json window files");
	}
	for (size_t i = 0; i < n; i++) {
		char *path = xasprintf("%s/%s", dir, names[i]);

		window_set_add_file(ws, path, path);
		free(path);
	}
	free_names(names, n);
}

void window_set_add(struct window_set *ws, const char *arg)
{
	/* on the stack: the readers below die holding nothing of ours */
	char input[PATH_MAX], *manifest;
	size_t n = strlen(arg);
	struct stat st;
	int corpus;

	if (n >= sizeof(input))
		die(EXIT_BAD_INPUT, "%.64s...: a path of %zu bytes, longer than "
		    "PATH_MAX", arg, n);
	memcpy(input, arg, n + 1);
	while (n > 1 && input[n - 1] == '/')
		input[--n] = '\0';
	if (stat(input, &st))
		die_at(EXIT_BAD_INPUT, input, 0, "%s", errno == ENOENT ?
		       "no such file or directory" : strerror(errno));
	if (!S_ISDIR(st.st_mode)) {
		window_set_add_file(ws, input, input);
		return;
	}
	manifest = xasprintf("%s/MANIFEST.json", input);
	/* one that cannot be read (EACCES) is a corpus's: add_corpus says so */
	corpus = file_exists(manifest) || errno != ENOENT;
	free(manifest);
	if (corpus)
		add_corpus(ws, input);
	else
		add_dir(ws, input);
}

/* How many of the distinct actions of @n files @f declares. */
static int actions_known(const struct window_file *files, size_t n,
			 const struct folder *f)
{
	int known = 0;

	for (int a = 0; f->actions[a]; a++) {
		int seen = 0;

		for (size_t i = 0; i < n && !seen; i++)
			for (size_t j = 0; j < files[i].n && !seen; j++)
				seen = !strcmp(files[i].w[j].action,
					       f->actions[a]);
		known += seen;
	}
	return known;
}

static int listed(const char *const *list, const char *action)
{
	for (int a = 0; list && list[a]; a++)
		if (!strcmp(action, list[a]))
			return 1;
	return 0;
}

/* Whether @f's windows, target or auxiliary, carry every action of @n files. */
static int carries_all(const struct window_file *files, size_t n,
		       const struct folder *f)
{
	const char *const *aux = f->auxiliary ? f->auxiliary :
				 f->refines ? f->refines->auxiliary : NULL;

	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < files[i].n; j++)
			if (!listed(f->actions, files[i].w[j].action) &&
			    !listed(aux, files[i].w[j].action))
				return 0;
	return 1;
}

static int actions_declared(const struct folder *f)
{
	int n = 0;

	while (f->actions[n])
		n++;
	return n;
}

/*
 * The system whose actions the windows use most; NULL if none or a tie.
 * Systems of one projection share action names (etcd and raftkvs): on
 * windows that use only shared ones, the system that declares fewer
 * actions the windows lack is the closer match, and a system is closer
 * than the systems refining it, whose actions are its own (spin and
 * spin-spinning); a refining system's own actions (spin-task's) tell it.
 * A system whose windows carry all the windows' actions, its auxiliary
 * ones included (etcd's BecomeLeader), comes before any that does not
 * (zookeeper, which targets BecomeLeader but writes no ElectionTimeout).
 */
static const struct folder *infer_system(const struct window_file *files,
					 size_t n)
{
	const struct folder *best = NULL;
	int best_n = 0, best_lacking = 0, tie = 0, all = 0;

	for (const struct system *s = system_table(); s->folder && !all; s++)
		all = actions_known(files, n, s->folder) &&
		      carries_all(files, n, s->folder);
	for (const struct system *s = system_table(); s->folder; s++) {
		int k = actions_known(files, n, s->folder);
		int lacking = actions_declared(s->folder) - k, order;

		if (!k || (all && !carries_all(files, n, s->folder)))
			continue;
		/* > 0: closer than best; 0: as close */
		order = !best ? 1 : k != best_n ? k - best_n :
			lacking != best_lacking ? best_lacking - lacking :
			!!best->refines - !!s->folder->refines;
		if (order > 0) {
			best = s->folder;
			best_n = k;
			best_lacking = lacking;
			tie = 0;
		} else if (!order) {
			tie = 1;
		}
	}
	return tie ? NULL : best;
}

/*
 * A system that declares more of @w's actions than @sys does (the one
 * they tell, else the first), refining systems included; NULL if none or
 * if @sys's windows carry all of them: a tie-break alone does not make a
 * file another system's, nor a target of another system that is one of
 * @sys's auxiliary windows.
 */
static const struct folder *knows_more(const struct window_file *w,
				       const struct folder *sys)
{
	const struct folder *f = infer_system(w, 1);
	int known = actions_known(w, 1, sys);

	if (carries_all(w, 1, sys))
		return NULL;
	if (f && actions_known(w, 1, f) > known)
		return f;
	for (const struct system *s = system_table(); s->folder; s++)
		if (actions_known(w, 1, s->folder) > known)
			return s->folder;
	return NULL;
}

void window_set_system(struct window_set *ws, const char *name)
{
	const struct folder *f;

	if (name) {
		f = system_lookup(name)->folder;
		if (ws->system && ws->system != f)
			die(EXIT_USAGE, "--system %s, but %s says %s", name,
			    ws->system_from, ws->system->name);
		set_system(ws, f, "--system");
	}
	if (!ws->system) {
		/* a spec's projection names no table's system: its corpus says it */
		const struct system *around = ws->n ?
			projection_around(ws->files[0].path) : NULL;

		f = around ? around->folder : infer_system(ws->files, ws->n);
		if (!f)
			die(EXIT_USAGE, "cannot tell the system from the action "
			    "names: give --system NAME");
		set_system(ws, f, around ? "its corpus's manifest" : "the action names");
	}
	for (size_t i = 0; i < ws->n; i++) {
		const struct window_file *w = &ws->files[i];

		if ((f = knows_more(w, ws->system)))
			die(EXIT_USAGE, "%s holds %s windows, not %s (%s)%s",
			    w->path, f->name, ws->system->name, ws->system_from,
			    ws->n > 1 ? ": one system at a time" : "");
	}
}

void window_set_free(struct window_set *ws)
{
	for (size_t i = 0; i < ws->n; i++)
		window_file_free(&ws->files[i]);
	free(ws->files);
	free(ws->system_from);
	memset(ws, 0, sizeof(*ws));
}

int window_trace_order(const void *a, const void *b)
{
	const struct window *x = *(const struct window *const *)a;
	const struct window *y = *(const struct window *const *)b;
	int c = strcmp(x->trace, y->trace);

	return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

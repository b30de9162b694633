// SPDX-License-Identifier: MIT
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "die.h"
#include "itf.h"

#define ACTION_TAKEN "mbt::actionTaken"
#define NONDET_PICKS "mbt::nondetPicks"

enum itf_kind { ITF_ANY, ITF_SET, ITF_LIST, ITF_TUPLE, ITF_MAP, ITF_OPTION };

/* A parsed type: @of is the elements' (values', the option's) type. */
struct itf_type {
	enum itf_kind kind;
	struct itf_type *of;
};

static const struct itf_type itf_any = { ITF_ANY, NULL };

static int fail(struct itf_error *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int fail(struct itf_error *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return -1;
}

/* Parse the type at *@s (itf.h's grammar), advancing *@s past it. */
static struct itf_type *parse_type(const char **s)
{
	static const struct { const char *name; enum itf_kind kind; } kinds[] = {
		{ "any", ITF_ANY }, { "set", ITF_SET }, { "list", ITF_LIST },
		{ "tuple", ITF_TUPLE }, { "map", ITF_MAP },
		{ "option", ITF_OPTION },
	};
	struct itf_type *t = xcalloc(1, sizeof(*t));
	size_t i, len = strcspn(*s, "()");

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strlen(kinds[i].name) == len &&
		    !strncmp(*s, kinds[i].name, len))
			break;
	if (i == sizeof(kinds) / sizeof(kinds[0]))
		die(EXIT_CAPTURE_FAILED, "a system declares the unknown ITF "
		    "type '%s'", *s);
	t->kind = kinds[i].kind;
	*s += len;
	if (**s != '(')
		return t;
	(*s)++;
	t->of = parse_type(s);
	if (*(*s)++ != ')')
		die(EXIT_CAPTURE_FAILED, "an ITF type declaration lacks a ')'");
	return t;
}

static void free_type(struct itf_type *t)
{
	if (t)
		free_type(t->of);
	free(t);
}

static const struct itf_type *of(const struct itf_type *t)
{
	return t->of ? t->of : &itf_any;
}

static cJSON *tagged(const char *tag, cJSON *v)
{
	cJSON *o = json_obj();

	json_add(o, tag, v);
	return o;
}

/* Quint's Option variant: Some(@v), or None with the unit value. */
static cJSON *variant(const char *tag, cJSON *v)
{
	cJSON *o = json_obj();

	json_add(o, "tag", json_str(tag));
	json_add(o, "value", v ? v : tagged("#tup", json_arr()));
	return o;
}

/* An integer as {"#bigint": "N"}: exactly the double's value. */
static cJSON *bigint(double d, const char *where, struct itf_error *e)
{
	char digits[400];

	if (d != floor(d) || !isfinite(d)) {
		fail(e, "%s: %.17g is not an integer: ITF has no other number",
		     where, d);
		return NULL;
	}
	snprintf(digits, sizeof(digits), "%.0f", d == 0 ? 0.0 : d);
	return tagged("#bigint", json_str(digits));
}

static cJSON *encode(const cJSON *v, const struct itf_type *t,
		     const char *where, struct itf_error *e);

/* The elements of the array @v, each of type @t, into a new array. */
static cJSON *encode_elements(const cJSON *v, const struct itf_type *t,
			      const char *where, struct itf_error *e)
{
	cJSON *a = json_arr(), *x;
	const cJSON *m;

	cJSON_ArrayForEach(m, v) {
		if (!(x = encode(m, t, where, e))) {
			cJSON_Delete(a);
			return NULL;
		}
		json_add(a, NULL, x);
	}
	return a;
}

/* A JSON object as a record (plain) or a #map of string keys. */
static cJSON *encode_object(const cJSON *v, int map, const struct itf_type *t,
			    const char *where, struct itf_error *e)
{
	cJSON *o = map ? json_arr() : json_obj(), *x;
	const cJSON *m;

	/* a record of just these would read back as a variant */
	if (!map && cJSON_GetArraySize(v) == 2 && json_get(v, "tag") &&
	    json_get(v, "value")) {
		fail(e, "%s: a record of \"tag\" and \"value\" reads as a "
		     "variant in ITF", where);
		goto out;
	}
	cJSON_ArrayForEach(m, v) {
		if (!map && m->string[0] == '#') {
			fail(e, "%s: record field \"%s\": ITF reserves names "
			     "starting with #", where, m->string);
			goto out;
		}
		if (!(x = encode(m, t, where, e)))
			goto out;
		if (map) {
			cJSON *pair = json_add(o, NULL, json_arr());

			json_add(pair, NULL, json_str(m->string));
			json_add(pair, NULL, x);
		} else {
			json_add(o, m->string, x);
		}
	}
	return map ? tagged("#map", o) : o;
out:
	cJSON_Delete(o);
	return NULL;
}

static cJSON *encode(const cJSON *v, const struct itf_type *t,
		     const char *where, struct itf_error *e)
{
	cJSON *x;

	if (t->kind == ITF_OPTION) {
		if (cJSON_IsNull(v))
			return variant("None", NULL);
		x = encode(v, of(t), where, e);
		return x ? variant("Some", x) : NULL;
	}
	if (t->kind != ITF_ANY && t->kind != ITF_MAP && !cJSON_IsArray(v)) {
		fail(e, "%s: declared a set, list or tuple, but not an array",
		     where);
		return NULL;
	}
	if (t->kind == ITF_MAP && !cJSON_IsObject(v)) {
		fail(e, "%s: declared a map, but not an object", where);
		return NULL;
	}
	switch (t->kind) {
	case ITF_SET:
		x = encode_elements(v, of(t), where, e);
		return x ? tagged("#set", x) : NULL;
	case ITF_TUPLE:
		x = encode_elements(v, &itf_any, where, e);
		return x ? tagged("#tup", x) : NULL;
	case ITF_LIST:
		return encode_elements(v, of(t), where, e);
	case ITF_MAP:
		return encode_object(v, 1, of(t), where, e);
	default:
		break;
	}
	switch (v->type & 0xff) {
	case cJSON_True:
	case cJSON_False:
	case cJSON_String:
		return json_dup(v);
	case cJSON_Number:
		return bigint(v->valuedouble, where, e);
	case cJSON_Array:
		return encode_elements(v, &itf_any, where, e);
	case cJSON_Object:
		return encode_object(v, 0, &itf_any, where, e);
	}
	fail(e, "%s: null has no ITF form (the system does not declare it "
	     "an option)", where);
	return NULL;
}

struct itf_writer {
	struct itf_head head;
	cJSON *vars;                /* the state's keys, then Quint's two */
	cJSON *initial;             /* state 0: the variables' order */
	struct itf_type **types;    /* per state key, NULL: any */
	int nkeys;
	long index;                 /* of the next state */
};

static struct itf_type *declared(const struct itf_var *vars, const char *key)
{
	for (int i = 0; vars && vars[i].name; i++)
		if (!strcmp(vars[i].name, key)) {
			const char *s = vars[i].type;
			struct itf_type *t = parse_type(&s);

			if (*s)
				die(EXIT_CAPTURE_FAILED, "ITF type of %s: "
				    "trailing '%s'", key, s);
			return t;
		}
	return NULL;
}

struct itf_writer *itf_writer_new(const struct itf_head *h,
				  const cJSON *initial)
{
	struct itf_writer *w = xcalloc(1, sizeof(*w));
	const cJSON *m;
	int i = 0;

	w->head = *h;
	w->initial = json_dup(initial);
	w->vars = json_arr();
	w->nkeys = cJSON_GetArraySize(initial);
	w->types = xcalloc(w->nkeys + 1, sizeof(*w->types));
	cJSON_ArrayForEach(m, initial) {
		json_add(w->vars, NULL, json_str(m->string));
		w->types[i++] = declared(h->types, m->string);
	}
	json_add(w->vars, NULL, json_str(ACTION_TAKEN));
	json_add(w->vars, NULL, json_str(NONDET_PICKS));
	return w;
}

void itf_writer_free(struct itf_writer *w)
{
	for (int i = 0; i < w->nkeys; i++)
		free_type(w->types[i]);
	free(w->types);
	cJSON_Delete(w->initial);
	cJSON_Delete(w->vars);
	free(w);
}

static cJSON *trace_meta(const struct itf_head *h)
{
	cJSON *m = json_obj();

	json_add(m, "format", json_str("ITF"));
	json_add(m, "format-description",
		 json_str("https://apalache-mc.org/docs/adr/015adr-trace.html"));
	json_add(m, "system", json_str(h->system));
	json_add(m, "source", json_str(h->source));
	json_add(m, "run", json_str(h->run));
	return m;
}

/* Each of @post's variables, as state 0 has them, into the state @st. */
static int add_vars(struct itf_writer *w, cJSON *st, const cJSON *post,
		    struct itf_error *e)
{
	const cJSON *m = post->child, *k = w->initial->child;
	cJSON *x;

	for (int i = 0; i < w->nkeys; i++, m = m->next, k = k->next) {
		if (!m || strcmp(m->string, k->string))
			return fail(e, "its variables are not state 0's (%s "
				    "where %s was)", m ? m->string : "none",
				    k->string);
		x = encode(m, w->types[i] ? w->types[i] : &itf_any,
			   m->string, e);
		if (!x)
			return -1;
		json_add(st, m->string, x);
	}
	if (m)
		return fail(e, "its variable %s is not one of state 0's",
			    m->string);
	return 0;
}

/* Quint's picks: each data member @key as Some(value). */
static int add_picks(cJSON *st, const cJSON *data, struct itf_error *e)
{
	cJSON *picks = json_add(st, NONDET_PICKS, json_obj()), *x;
	const cJSON *m;

	cJSON_ArrayForEach(m, data) {
		if (!(x = encode(m, &itf_any, m->string, e)))
			return -1;
		json_add(picks, m->string, variant("Some", x));
	}
	return 0;
}

int itf_writer_state(struct itf_writer *w, struct strbuf *sb,
		     const char *action, const cJSON *data, const cJSON *post,
		     enum json_style style, struct itf_error *e)
{
	cJSON *st = json_obj(), *meta = json_add(st, "#meta", json_obj());
	int rc;

	json_add(meta, "index", json_int(w->index));
	rc = add_vars(w, st, post, e);
	if (!rc) {
		json_add(st, ACTION_TAKEN, json_str(action));
		rc = add_picks(st, data, e);
	}
	if (!rc) {
		if (w->index)
			strbuf_addstr(sb, style == JSON_PYTHON ? ", " : ",");
		json_write(sb, st, style);
		w->index++;
	}
	cJSON_Delete(st);
	return rc;
}

/*
 * {"#meta", "vars", "states": [...]}, streamed: RFC 8785 orders the
 * members "#meta", "states", "vars", so canonical JSON ends with "vars".
 */
int itf_writer_open(struct itf_writer *w, struct strbuf *sb,
		    enum json_style style, struct itf_error *e)
{
	cJSON *meta = trace_meta(&w->head), *none = json_obj();
	const char *sep = style == JSON_PYTHON ? ": " : ":";
	int rc;

	strbuf_addstr(sb, "{");
	json_write_member(sb, "#meta", meta, 1, style);
	if (style != JSON_CANONICAL)
		json_write_member(sb, "vars", w->vars, 0, style);
	strbuf_addstr(sb, style == JSON_PYTHON ? ", " : ",");
	json_write_string(sb, "states", 6, style);
	strbuf_addf(sb, "%s[", sep);
	rc = itf_writer_state(w, sb, "init", none, w->initial, style, e);
	cJSON_Delete(none);
	cJSON_Delete(meta);
	return rc;
}

void itf_writer_close(struct itf_writer *w, struct strbuf *sb,
		      enum json_style style)
{
	strbuf_addstr(sb, "]");
	if (style == JSON_CANONICAL)
		json_write_member(sb, "vars", w->vars, 0, style);
	strbuf_addstr(sb, "}\n");
}

/* "N" (-?[0-9]+) as a number, if a double holds it exactly. */
static cJSON *read_bigint(const cJSON *s, struct itf_error *e)
{
	const char *p = cJSON_IsString(s) ? s->valuestring : "";
	char exact[400];
	double d;

	p += *p == '-';
	if (!*p || strspn(p, "0123456789") != strlen(p)) {
		fail(e, "#bigint \"%s\" is not -?[0-9]+",
		     cJSON_IsString(s) ? s->valuestring : "(not a string)");
		return NULL;
	}
	d = strtod(s->valuestring, NULL);
	snprintf(exact, sizeof(exact), "%.0f", d);
	while (*p == '0' && p[1])
		p++;
	if (strcmp(exact + (exact[0] == '-'), p)) {
		fail(e, "#bigint %s: a window's numbers are doubles, and no "
		     "double is this integer", s->valuestring);
		return NULL;
	}
	return cJSON_CreateNumber(d);
}

static cJSON *decode(const cJSON *v, struct itf_error *e);

/* The elements of the array @a decoded, into a new array. */
static cJSON *decode_elements(const cJSON *a, struct itf_error *e)
{
	cJSON *out = json_arr(), *x;
	const cJSON *m;

	if (!cJSON_IsArray(a)) {
		cJSON_Delete(out);
		fail(e, "#set, #tup or #map without an array");
		return NULL;
	}
	cJSON_ArrayForEach(m, a) {
		if (!(x = decode(m, e))) {
			cJSON_Delete(out);
			return NULL;
		}
		json_add(out, NULL, x);
	}
	return out;
}

/* {"#map": [[key, value], ...]} with string keys, as an object. */
static cJSON *decode_map(const cJSON *pairs, struct itf_error *e)
{
	cJSON *kv = decode_elements(pairs, e), *o = json_obj();
	cJSON *p;

	cJSON_ArrayForEach(p, kv) {
		cJSON *k = cJSON_GetArrayItem(p, 0);

		if (cJSON_GetArraySize(p) != 2 || !cJSON_IsString(k)) {
			fail(e, "a #map entry is not a [string key, value] "
			     "pair: a window's objects have string keys");
			goto out;
		}
		if (json_get(o, k->valuestring)) {
			fail(e, "#map key \"%s\" twice", k->valuestring);
			goto out;
		}
		json_add(o, k->valuestring, cJSON_DetachItemFromArray(p, 1));
	}
	if (kv) {
		cJSON_Delete(kv);
		return o;
	}
out:
	cJSON_Delete(kv);
	cJSON_Delete(o);
	return NULL;
}

/* Quint's Option: Some(V) is V, None is null; no other variant. */
static cJSON *decode_variant(const cJSON *v, struct itf_error *e)
{
	const char *tag = json_get_str(v, "tag");

	if (tag && !strcmp(tag, "Some"))
		return decode(json_get(v, "value"), e);
	if (tag && !strcmp(tag, "None"))
		return json_null();
	fail(e, "variant \"%s\": only Quint's Option (Some, None) has a "
	     "window form", tag ? tag : "(tag not a string)");
	return NULL;
}

static int decode_members(cJSON *into, const cJSON *v, const cJSON *vars,
			  struct itf_error *e);

static cJSON *decode_object(const cJSON *v, struct itf_error *e)
{
	const cJSON *m = v->child;
	cJSON *o;

	if (m && !m->next && m->string[0] == '#') {
		if (!strcmp(m->string, "#bigint"))
			return read_bigint(m, e);
		if (!strcmp(m->string, "#set") || !strcmp(m->string, "#tup"))
			return decode_elements(m, e);
		if (!strcmp(m->string, "#map"))
			return decode_map(m, e);
	}
	if (cJSON_GetArraySize(v) == 2 && json_get(v, "tag") &&
	    json_get(v, "value"))
		return decode_variant(v, e);
	o = json_obj();
	if (!decode_members(o, v, NULL, e))
		return o;
	cJSON_Delete(o);
	return NULL;
}

static cJSON *decode(const cJSON *v, struct itf_error *e)
{
	switch (v->type & 0xff) {
	case cJSON_True:
	case cJSON_False:
	case cJSON_String:
		return json_dup(v);
	case cJSON_Number:
		/* ADR-015 before 2023-09 (and Quint's reader) allow these */
		if (v->valuedouble == floor(v->valuedouble))
			return json_dup(v);
		fail(e, "%.17g is not an integer", v->valuedouble);
		return NULL;
	case cJSON_Array:
		return decode_elements(v, e);
	case cJSON_Object:
		return decode_object(v, e);
	}
	fail(e, "null is not an ITF value");
	return NULL;
}

/* Is @key one of the trace's "vars"? */
static int is_var(const cJSON *vars, const char *key)
{
	const cJSON *v;

	cJSON_ArrayForEach(v, vars)
		if (cJSON_IsString(v) && !strcmp(v->valuestring, key))
			return 1;
	return 0;
}

/* What a state holds beside its variables: its #meta, Quint's metadata. */
static int is_state_meta(const char *key)
{
	return !strcmp(key, "#meta") || !strcmp(key, ACTION_TAKEN) ||
	       !strcmp(key, NONDET_PICKS);
}

/*
 * The members of the record @v decoded into @into.  A state's (@vars: the
 * trace's) are its variables, beside its metadata; a value record's may
 * not use the names ITF keeps for its forms.
 */
static int decode_members(cJSON *into, const cJSON *v, const cJSON *vars,
			  struct itf_error *e)
{
	const cJSON *m;
	cJSON *x;

	cJSON_ArrayForEach(m, v) {
		if (vars && is_state_meta(m->string))
			continue;
		if (vars && !is_var(vars, m->string))
			return fail(e, "%s is not one of the trace's vars",
				    m->string);
		if (!vars && m->string[0] == '#')
			return fail(e, "%s has no window form", m->string);
		if (!(x = decode(m, e)))
			return -1;
		json_add(into, m->string, x);
	}
	return 0;
}

/* The data of a step from its picks: Some(V) is V, None no member. */
static cJSON *read_picks(const cJSON *picks, struct itf_error *e)
{
	cJSON *data = json_obj(), *x;
	const cJSON *p;

	if (!cJSON_IsObject(picks)) {
		fail(e, NONDET_PICKS " is not a record");
		goto out;
	}
	cJSON_ArrayForEach(p, picks) {
		const char *tag = json_get_str(p, "tag");

		if (!tag || !json_get(p, "value") || p->child->next->next) {
			fail(e, "pick %s is not an Option (Some or None)",
			     p->string);
			goto out;
		}
		if (!strcmp(tag, "None"))
			continue;
		if (!(x = decode_variant(p, e)))
			goto out;
		json_add(data, p->string, x);
	}
	return data;
out:
	cJSON_Delete(data);
	return NULL;
}

/*
 * State @k of a trace whose variables are @vars as a stream-form record:
 * {"state"} for state 0, {"action", "data", "state"} after.
 */
static cJSON *read_state(const cJSON *st, long k, const cJSON *vars,
			 struct itf_error *e)
{
	cJSON *rec = json_obj(), *state, *x;
	const cJSON *v;
	const char *action;

	if (!cJSON_IsObject(st)) {
		fail(e, "not an object");
		goto out;
	}
	cJSON_ArrayForEach(v, vars)
		if (!json_get(st, v->valuestring)) {
			fail(e, "lacks the variable %s", v->valuestring);
			goto out;
		}
	if (k) {
		action = json_get_str(st, ACTION_TAKEN);
		if (!action) {
			fail(e, "no string " ACTION_TAKEN " (Quint's --mbt "
			     "metadata): no action to make a window of");
			goto out;
		}
		json_add(rec, "action", json_str(action));
		v = json_get(st, NONDET_PICKS);
		if (!(x = v ? read_picks(v, e) : json_obj()))
			goto out;
		json_add(rec, "data", x);
	}
	state = json_add(rec, "state", json_obj());
	if (!decode_members(state, st, vars, e))
		return rec;
out:
	cJSON_Delete(rec);
	return NULL;
}

cJSON *itf_read_trace(const cJSON *trace, long *at, struct itf_error *e)
{
	const cJSON *vars = json_get(trace, "vars"), *states, *st, *v;
	cJSON *recs, *r;

	*at = -1;
	states = json_get(trace, "states");
	if (!cJSON_IsObject(trace) || !cJSON_IsArray(vars) ||
	    !cJSON_IsArray(states) || !states->child) {
		fail(e, "not an ITF trace: no \"vars\" array and non-empty "
		     "\"states\" array");
		return NULL;
	}
	cJSON_ArrayForEach(v, vars)
		if (!cJSON_IsString(v)) {
			fail(e, "\"vars\" holds a non-string");
			return NULL;
		}
	recs = json_arr();
	*at = 0;
	cJSON_ArrayForEach(st, states) {
		if (!(r = read_state(st, *at, vars, e))) {
			cJSON_Delete(recs);
			return NULL;
		}
		json_add(recs, NULL, r);
		++*at;
	}
	return recs;
}

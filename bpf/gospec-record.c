// SPDX-License-Identifier: MIT
/*
 * A probe spec's records made events (gospec.h): a raw line per record,
 * an event line per event, the counts at the end.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../capture/die.h"
#include "../capture/err.h"
#include "../capture/json.h"
#include "../capture/ndjson.h"
#include "goeval.h"
#include "gospec-spec.h"
#include "gospec.h"

/* Literal text, its length known at compile time: one event line has ~30. */
#define ADD_LIT(l, text) strbuf_put(l, text, sizeof(text) - 1)

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

	if (f->kind != PROBE_KIND_SIGNED)
		return v;
	return (unsigned long long)((long long)(v << keep) >> keep);
}

/*
 * A computed @v as field @f's type holds it: its low bytes,
 * sign-extended for a signed type (as Go converts an integer); a table's
 * field (no size: it names any integer) keeps every bit.
 */
static unsigned long long fit(const struct field *f, unsigned long long v)
{
	if (f->size <= 0 || f->size >= 8)
		return v;
	return extend(f, v & ~0ull >> (64 - 8 * f->size));
}

/* Why computed field @f has no value (go_calc_eval()'s @rc, @at). */
static void calc_failed(struct go_spec *s, const struct site *site,
			const struct field *f, int rc, int at)
{
	const char *what = rc == GO_CALC_ZERO ? "divided by zero" :
			   "shifted by a negative count";

	if (rc == GO_CALC_NIL)
		fail(s, f->line, "%s: %s is nil", f->name, site->field[at].name);
	else if (at >= 0)
		fail(s, f->line, "%s: %s (%s is %lld)", f->name, what,
		     site->field[at].name, (long long)s->vals[at].v);
	else
		fail(s, f->line, "%s: %s", f->name, what);
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
	} else if (f->kind == PROBE_KIND_BOOL) {
		if (v & 0xff)
			ADD_LIT(l, "true");
		else
			ADD_LIT(l, "false");
	} else {
		if (f->quoted)
			ADD_LIT(l, "\"");
		if (f->kind == PROBE_KIND_SIGNED)
			strbuf_add_int(l, (long long)extend(f, v));
		else
			strbuf_add_uint(l, v);
		if (f->quoted)
			ADD_LIT(l, "\"");
	}
}

/* A [:N] field's length, or -1 (nil). */
static long long slice_len(const struct field *f, const struct gp_record *r)
{
	if (r->nil_mask & (1u << f->len_slot))
		return -1;
	return (long long)(r->val[f->len_slot] & ~0ull >> 1);
}

/*
 * Where a string of str field @f is in a record: its length's slot and its
 * bytes' first.  A str [:N] slice holds element @i's length and bytes
 * after those of the elements before it (gospec-resolve.c).
 */
struct str_at {
	int len_slot, slot, bytes;
};

static struct str_at str_at(const struct field *f, int i)
{
	int base = f->slot + i * (1 + (f->bytes + 7) / 8);

	if (!f->count)
		return (struct str_at){ f->len_slot, f->slot, f->bytes };
	return (struct str_at){ base, base + 1, f->bytes };
}

/* The bytes of a string the record holds: its length, at most its bytes. */
static size_t str_bytes(struct str_at at, const struct gp_record *r)
{
	unsigned long long n = r->val[at.len_slot];

	return n < (unsigned long long)at.bytes ? (size_t)n : (size_t)at.bytes;
}

/* @k less a last character the cut at @k bytes left incomplete. */
static size_t whole_chars(const unsigned char *b, size_t k)
{
	size_t j = k;

	while (j > 0 && k - j < 3 && (b[j - 1] & 0xc0) == 0x80)
		j--;
	if (j > 0 && b[j - 1] >= 0xc0 &&
	    j - 1 + (b[j - 1] >= 0xf0 ? 4 : b[j - 1] >= 0xe0 ? 3 : 2) > k)
		return j - 1;
	return k;
}

/* @k bytes at @b as a JSON string, what is not UTF-8 as U+FFFD (Go's encoding/json). */
static void put_utf8(struct strbuf *l, const unsigned char *b, size_t k)
{
	char text[3 * STR_MAX_BYTES];
	size_t n = 0;

	for (size_t i = 0; i < k;) {
		uint32_t cp;
		int len = utf8_decode(b + i, &cp);

		if (len <= 0 || i + (size_t)len > k) {
			memcpy(text + n, "\xef\xbf\xbd", 3);
			n += 3;
			i++;
		} else {
			memcpy(text + n, b + i, (size_t)len);
			n += (size_t)len;
			i += (size_t)len;
		}
	}
	json_write_string(l, text, n, JSON_COMPACT);
}

/* A string's value in @r: its length and the bytes read, or nil. */
static void str_value(struct str_at at, const struct gp_record *r, struct go_val *v)
{
	size_t k = str_bytes(at, r);

	if (r->nil_mask & (1u << at.len_slot))
		return;
	for (size_t i = 0; i < (k + 7) / 8; i++)
		if (r->nil_mask & (1u << (at.slot + i)))
			return;
	*v = (struct go_val){ .v = r->val[at.len_slot], .have = 1,
			      .bytes = (const char *)&r->val[at.slot], .nbytes = k };
}

/*
 * A str field's value: the string, or {"first":FIRST,"len":LEN} when it
 * is longer than the field's bytes (FIRST up to its last whole
 * character); null when it is nil or its bytes could not be read.
 */
static void put_string(struct strbuf *l, const struct go_val *v)
{
	unsigned char b[STR_MAX_BYTES + 8];
	size_t k = v->nbytes, cut;

	if (!v->have) {
		ADD_LIT(l, "null");
		return;
	}
	memcpy(b, v->bytes, k);
	b[k] = 0;
	if (k == v->v) {
		put_utf8(l, b, k);
		return;
	}
	cut = whole_chars(b, k);
	ADD_LIT(l, "{\"first\":");
	put_utf8(l, b, cut);
	ADD_LIT(l, ",\"len\":");
	strbuf_add_uint(l, v->v);
	ADD_LIT(l, "}");
}

static void put_field(struct go_spec *s, struct strbuf *l, const struct field *f,
		      const struct gp_record *r, const struct go_val *val)
{
	unsigned long long v;
	long long n;

	strbuf_put(l, f->pre, f->pre_len);
	if (f->bytes && !f->count) {
		put_string(l, val);
		return;
	}
	if (!f->count) {
		put_scalar(s, l, f, val->have, val->v);
		return;
	}
	if ((n = slice_len(f, r)) < 0) {
		ADD_LIT(l, "null");
		return;
	}
	/* Longer than N: {"first":[N values],"len":LEN}. */
	if (n > f->count)
		ADD_LIT(l, "{\"first\":");
	ADD_LIT(l, "[");
	for (int i = 0; i < n && i < f->count; i++) {
		struct go_val str = { 0 };
		int have;

		if (i)
			ADD_LIT(l, ",");
		if (f->bytes) {
			str_value(str_at(f, i), r, &str);
			put_string(l, &str);
			continue;
		}
		have = field_value(f, r, f->slot + i, &v);
		put_scalar(s, l, f, have, v);
	}
	ADD_LIT(l, "]");
	if (n > f->count) {
		ADD_LIT(l, ",\"len\":");
		strbuf_add_int(l, n);
		ADD_LIT(l, "}");
	}
}

/* @key's values in s->keybuf (the state's key) and, if @text, described. */
static void make_key(struct go_spec *s, const struct site *site,
		     const struct key *key, int proc, struct strbuf *text)
{
	strbuf_reset(&s->keybuf);
	for (int i = 0; i < key->n; i++) {
		int f = key->field[i];
		struct go_val v = f == KEY_PROC ?
			(struct go_val){ .v = (unsigned long long)proc, .have = 1 } : s->vals[f];

		go_key_add(&s->keybuf, &v);
		if (!text)
			continue;
		strbuf_addf(text, "%s%s ", i ? ", " : "",
			    f == KEY_PROC ? "proc" : site->field[f].name);
		if (!v.have)
			strbuf_addstr(text, "nil");
		else if (v.bytes)
			strbuf_addf(text, "\"%.*s\"", (int)v.nbytes, v.bytes);
		else if (f != KEY_PROC && site->field[f].kind == PROBE_KIND_SIGNED)
			strbuf_add_int(text, (long long)v.v);
		else
			strbuf_add_uint(text, v.v);
	}
}

/* keep NAME KEY... = FIELD, where it stands among the site's fields. */
static void keep(struct go_spec *s, const struct site *site,
		 const struct keep *k, int proc)
{
	make_key(s, site, &k->key, proc, NULL);
	go_state_put(s->kept, k->state, &s->keybuf, s->vals[k->value]);
}

/* Kept field @f's value: the last kept for its key, else its default. */
static void kept(struct go_spec *s, const struct site *site,
		 const struct field *f, int proc, struct go_val *v)
{
	const struct go_val *k;
	struct strbuf text = STRBUF_INIT;
	char *copy = s->strs[v - s->vals];

	make_key(s, site, &f->kept_key, proc, NULL);
	if (!(k = go_state_get(s->kept, f->state, &s->keybuf)) && !f->has_default) {
		make_key(s, site, &f->kept_key, proc, &text);
		fail(s, f->line, "%s: nothing kept in %s for %s (give it 'or VALUE')",
		     f->name, f->kept_name, text.buf);
		strbuf_release(&text);
		return;
	}
	if ((!k || !k->have) && f->def_str) {
		size_t n = strlen(f->def_str);

		*v = (struct go_val){ .v = n, .have = 1, .bytes = f->def_str, .nbytes = n };
		return;
	}
	if (!k || !k->have) {
		*v = (struct go_val){ .v = f->def, .have = f->has_default };
		return;
	}
	*v = *k;
	/* A keep below this field may replace the state's copy. */
	if (v->bytes)
		v->bytes = memcpy(copy, v->bytes, v->nbytes);
}

/*
 * The one-value fields of @r, read, computed and kept, into s->vals; the
 * site's keeps, each after the fields above it.
 */
static void values(struct go_spec *s, const struct site *site,
		   const struct gp_record *r, int proc)
{
	int k = 0;

	for (int i = 0; i < site->nfields; i++) {
		const struct field *f = &site->field[i];
		struct go_val *v = &s->vals[i];
		int rc, at;

		for (; k < site->nkeeps && site->keep[k].after == i; k++)
			keep(s, site, &site->keep[k], proc);
		*v = (struct go_val){ 0 };
		if (f->count)
			continue;
		if (f->kept_name) {
			kept(s, site, f, proc, v);
		} else if (f->bytes) {
			str_value(str_at(f, 0), r, v);
		} else if (!f->calc) {
			v->have = field_value(f, r, f->slot, &v->v);
			v->v = extend(f, v->v);
			if (f->nil_test && !(r->nil_mask & (1u << f->slot)))
				v->v = (v->v == 0) == (f->nil_test == 1);
		} else if ((rc = go_calc_eval(f->calc, s->vals, &v->v, &at))) {
			calc_failed(s, site, f, rc, at);
		} else {
			v->have = 1;
			v->v = fit(f, v->v);
		}
	}
	for (; k < site->nkeeps; k++)
		keep(s, site, &site->keep[k], proc);
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
 * A string's bytes past its length as 0, and their words not nil; with
 * @gone (an element past its slice's length) its length too.
 */
static void mask_string(struct str_at at, struct gp_record *r, int gone)
{
	size_t k = gone || r->nil_mask & (1u << at.len_slot) ? 0 : str_bytes(at, r);

	if (gone) {
		r->val[at.len_slot] = 0;
		r->nil_mask &= ~(1u << at.len_slot);
	}
	for (int w = (int)(k / 8); w < (at.bytes + 7) / 8; w++) {
		unsigned keep = w == (int)(k / 8) ? (unsigned)(k % 8) : 0;

		r->val[at.slot + w] &= keep ? ~0ull >> (64 - 8 * keep) : 0;
		if (!keep)
			r->nil_mask &= ~(1u << (at.slot + w));
	}
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

		if (f->bytes) {
			/* a kept string reads nothing */
			for (int k = 0; !f->kept_name && k < (f->count ? f->count : 1); k++)
				mask_string(str_at(f, k), copy,
					    f->count && (unsigned long long)k >= n);
			continue;
		}
		if (f->nil_test)	/* the word is an address: only its nil-ness */
			copy->val[f->slot] = copy->val[f->slot] != 0;
		for (int k = (int)(n < (unsigned)f->count ? n : (unsigned)f->count);
		     k < f->count; k++) {
			copy->val[f->slot + k] = 0;
			copy->nil_mask &= ~(1u << (f->slot + k));
		}
	}
	return copy;
}

/* Is @v, as the process has it, one of @g's addresses in the file (expr.h)? */
static int one_of(const struct guard *g, const struct gp_record *r, unsigned long long v)
{
	unsigned long long bias = (r->val[g->ip_slot] - g->one_of.pc) & ~0xfffull;

	for (int i = 0; i < g->one_of.n; i++)
		if (v - bias == g->one_of.a[i])
			return 1;
	return 0;
}

/*
 * @r with each read whose guard fails (expr.h) nil and 0: an index past
 * a slice's length, an interface of another dynamic type.  Guards are
 * judged on @r as read, before any of them applies.
 */
static const struct gp_record *guarded(const struct site *site,
				       const struct gp_record *r,
				       struct gp_record *copy)
{
	*copy = *r;
	for (int i = 0; i < site->nguards; i++) {
		const struct guard *g = &site->guard[i];
		unsigned long long v = r->val[g->slot];
		int pass = !(r->nil_mask & (1u << g->slot)) &&
			   (g->op == PROBE_GUARD_ABOVE ? v > g->k :
			    g->op == PROBE_GUARD_EQUAL ? v == g->k :
			    g->op == PROBE_GUARD_ONE_OF ? one_of(g, r, v) : v != g->k);

		if (!pass) {
			copy->nil_mask |= 1u << g->target;
			copy->val[g->target] = 0;
		}
	}
	return copy;
}

/* @v, a Rust enum's discriminant, as its variant's index in @m's table, or -1. */
static int variant_index(const struct variant_map *m, unsigned long long v)
{
	int other = -1;

	for (int i = 0; i < m->n; i++) {
		if (m->has_value[i] && m->value[i] == v)
			return m->index[i];
		if (!m->has_value[i])
			other = m->index[i];
	}
	return other;
}

/*
 * @r with each Rust enum's discriminant as its variant's table index
 * (nil if it selects none), after the guards judged the discriminants.
 */
static const struct gp_record *as_variants(const struct site *site,
					   const struct gp_record *r,
					   struct gp_record *copy)
{
	int copied = 0;

	for (int i = 0; i < site->nfields; i++) {
		const struct field *f = &site->field[i];

		for (int k = 0; f->variants && k < (f->count ? f->count : 1); k++) {
			int slot = f->slot + k, at;

			if (r->nil_mask & (1u << slot))
				continue;
			if (!copied++)
				*copy = *r;
			if ((at = variant_index(f->variants, r->val[slot])) < 0)
				copy->nil_mask |= 1u << slot;
			copy->val[slot] = at < 0 ? 0 : (unsigned long long)at;
		}
	}
	return copied ? copy : r;
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
	if ((n = slice_len(f, r)) < 0 || n > f->count) {
		fail(s, ev->line, "per %s: the slice is nil or longer than [:%d] (%lld elements)",
		     f->name, f->count, n);
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

	/* A keep keeps from every record of its site, written or not. */
	if (site->nkeeps && !have_values++)
		values(s, site, r, proc);
	for (int i = 0; i < site->nevents && !s->error; i++) {
		struct event *ev = &site->ev[i];
		const char *name;
		int entry, n;

		if (!inside(s, ev, proc, goid))
			continue;
		if (!have_values++)
			values(s, site, r, proc);
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

static size_t addr_slot(const struct go_spec *s, int proc, unsigned long long a)
{
	size_t i = (size_t)((a * 0x9e3779b97f4a7c15ull) ^ (unsigned long long)proc) &
		   (s->addr_cap - 1);

	while (s->addrs[i].proc >= 0 && (s->addrs[i].proc != proc || s->addrs[i].addr != a))
		i = (i + 1) & (s->addr_cap - 1);
	return i;
}

/* Address @a's number in process @proc: 1, 2, ... in order of first appearance. */
static unsigned long long addr_number(struct go_spec *s, int proc, unsigned long long a)
{
	struct addr_num *old = s->addrs;
	size_t cap = s->addr_cap, i;

	if (!a)
		return 0;   /* nil */
	if ((s->naddrs + 1) * 2 > s->addr_cap) {
		s->addr_cap = cap ? cap * 2 : 64;
		s->addrs = xmalloc(s->addr_cap * sizeof(*s->addrs));
		for (i = 0; i < s->addr_cap; i++)
			s->addrs[i].proc = -1;
		for (i = 0; i < cap; i++)
			if (old[i].proc >= 0)
				s->addrs[addr_slot(s, old[i].proc, old[i].addr)] = old[i];
		free(old);
	}
	i = addr_slot(s, proc, a);
	if (s->addrs[i].proc < 0) {
		s->addrs[i] = (struct addr_num){ proc, a, ++s->addr_next[proc] };
		s->naddrs++;
	}
	return s->addrs[i].num;
}

/*
 * @r with each addr field's address as its object's number (into @copy):
 * an address differs from run to run, and is never written.
 */
static const struct gp_record *numbered(struct go_spec *s, const struct site *site,
					const struct gp_record *r, int proc,
					struct gp_record *copy)
{
	int any = 0;

	for (int i = 0; proc >= 0 && i < site->nfields; i++) {
		const struct field *f = &site->field[i];

		if (!f->addr || (r->nil_mask & (1u << f->slot)))
			continue;
		if (!any++)
			*copy = *r;
		copy->val[f->slot] = addr_number(s, proc, r->val[f->slot]);
	}
	return any ? copy : r;
}

void go_spec_record(const struct gp_record *r, void *arg)
{
	struct go_spec *s = arg;
	struct gp_record copy, checked, variant, numbers;
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
	if (site->nguards)
		r = guarded(site, r, &checked);
	r = as_variants(site, r, &variant);
	r = numbered(s, site, r, proc, &numbers);
	if (s->raw)
		write_raw(s, past_length(site, r, &copy), proc, (unsigned)site->nwritten);
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

// SPDX-License-Identifier: MIT
/*
 * A parsed probe spec's functions and expressions resolved in the Go
 * binary's DWARF, and its probes registered with the engine (gospec.h).
 */
#include <stdlib.h>
#include <string.h>
#include "../capture/die.h"
#include "../capture/err.h"
#include "engine.h"
#include "expr.h"
#include "gospec-spec.h"
#include "gospec.h"
#include "libraries.h"

/*
 * Where a site's reads are resolved: in the binary's DWARF (@b, @fn), or
 * by a runtime of its own (@v, go_spec_layout()), the same slots either way.
 */
struct reader {
	int (*read)(struct reader *r, struct site *site, struct field *f,
		    const char *expr, int is_len, int word, int slot);
	struct go_spec *s;
	struct probe_binary *b;
	Dwarf_Die *fn;
	const struct go_spec_visit *v;
	void *arg;
	int id;                 /* the site's id, for @v */
};

/* The expression did not resolve: why (freed), at @line. */
static int unresolved(struct go_spec *s, long line, struct probe_binary *b, char *why)
{
	gospec_refuse(s, line, "%s: %s", probe_path(b), why);
	free(why);
	return -1;
}

/*
 * A table's field has its size once resolved: its "or N" must fit the
 * value N stands for.
 */
static int table_default(struct go_spec *s, const struct field *f,
			 const struct probe_value *v)
{
	char *what;
	int rc;

	if (!f->table || !f->has_default)
		return 0;
	what = xasprintf("or %llu", f->def);
	rc = gospec_fits(s, f->line, what, f->def, v->kind, v->size);
	free(what);
	return rc;
}

/*
 * A Rust enum read whole (@v's variants) is its variant's name in @f's
 * table: each variant must be one of its names.
 */
static int variant_table(struct go_spec *s, struct field *f, const struct probe_value *v,
			 const char *expr)
{
	struct variant_map *m;

	if (!f->table)
		return gospec_refuse(s, f->line, "%s is the enum %s: read which variant it is "
				     "by a table of the variants' names (names TABLE %s ...), "
				     "or a field of one (%s.%s...)", expr, v->type,
				     v->variant[0].name, expr, v->variant[0].name);
	m = xcalloc(1, sizeof(*m));
	m->n = v->nvariants;
	for (int i = 0; i < m->n; i++) {
		int k;

		for (k = 0; k < f->table->n && (!f->table->shown[k] ||
						strcmp(f->table->names[k], v->variant[i].name)); k++)
			;
		if (k == f->table->n) {
			free(m);
			return gospec_refuse(s, f->line, "%s: variant %s of %s is not in table %s",
					     expr, v->variant[i].name, v->type, f->table->name);
		}
		m->value[i] = v->variant[i].value;
		m->has_value[i] = v->variant[i].has_value;
		m->index[i] = k;
	}
	free(f->variants);
	f->variants = m;
	return 0;
}

/*
 * Read @slot of @site: @expr as @f's type, or with @is_len its length
 * (any integer), or with @word >= 0 that word of a string's bytes.
 */
/* @v's guards, for read @slot; their reads are placed after the fields'. */
static int add_guards(struct go_spec *s, struct site *site, const struct field *f,
		      const struct probe_value *v, int slot)
{
	for (int i = 0; i < v->nguards; i++) {
		struct guard *g = &site->guard[site->nguards];

		if (site->nguards == MAX_GUARDS)
			return gospec_refuse(s, f->line, "event %s checks more than %d indexes and assertions",
					     site->ev[0].name, MAX_GUARDS);
		*g = (struct guard){ .rd = v->guard[i].rd, .target = slot,
				     .op = v->guard[i].op, .k = v->guard[i].k,
				     .one_of = v->guard[i].one_of, .ip_slot = -1 };
		if (v->guard[i].is_arg_reg && site->at_exit)
			g->rd.src = GP_SRC_SAVED;
		/* the probe's address: at a return, the entry's, which it saved */
		if (g->op == PROBE_GUARD_ONE_OF)
			g->ip_rd = (struct gp_read){ .src = site->at_exit ? GP_SRC_SAVED : GP_SRC_REG,
						     .reg = GP_IP, .size = 8 };
		site->nguards++;
	}
	return 0;
}

/*
 * Each guard's read: a read of the site's already (a [:N] field's length
 * guards its elements), or one more after the fields'.
 */
static int place_read(struct go_spec *s, struct site *site, const struct gp_read *rd)
{
	struct gp_site *gp = &site->gp;
	unsigned k;

	for (k = 0; k < gp->nreads && memcmp(&gp->reads[k], rd, sizeof(*rd)); k++)
		;
	if (k == GP_MAX_READS)
		return gospec_refuse(s, site->line,
				     "event %s reads more than %d values with the checks of its indexes and assertions",
				     site->ev[0].name, GP_MAX_READS);
	if (k == gp->nreads)
		gp->reads[gp->nreads++] = *rd;
	return (int)k;
}

static int place_guards(struct go_spec *s, struct site *site)
{
	for (int i = 0; i < site->nguards; i++) {
		struct guard *g = &site->guard[i];

		if ((g->slot = place_read(s, site, &g->rd)) < 0 ||
		    (g->op == PROBE_GUARD_ONE_OF &&
		     (g->ip_slot = place_read(s, site, &g->ip_rd)) < 0))
			return -1;
	}
	return 0;
}

static int dwarf_read(struct reader *r, struct site *site, struct field *f,
		      const char *expr, int is_len, int word, int slot)
{
	struct go_spec *s = r->s;
	struct probe_binary *b = r->b;
	Dwarf_Die *fn = r->fn;
	struct probe_value v;
	char *why = word >= 0 ? probe_string_word(b, fn, expr, site->at_exit, word, &v) :
		    f->nil_test ? probe_nil_word(b, fn, expr, site->at_exit, &v) :
		    f->addr ? probe_addr_word(b, fn, expr, site->at_exit, &v) :
		    probe_expr(b, fn, expr, site->at_exit, &v);

	if (why)
		return unresolved(s, f->line, b, why);
	if (v.nvariants && variant_table(s, f, &v, expr))
		return -1;
	is_len |= word >= 0;
	if (!is_len && f->table && v.kind == PROBE_KIND_BOOL)
		return gospec_refuse(s, f->line,
				     "%s is %s: a table names integers", expr, v.type);
	if (!is_len && !f->table && (v.kind != f->kind || v.size != f->size))
		return gospec_refuse(s, f->line,
				     "%s is %s (%d bytes, as %s), not %s: the sizes or kinds differ",
				     expr, v.type, v.size, gospec_type_label(v.kind, v.size),
				     gospec_type_label(f->kind, f->size));
	if (!is_len && table_default(s, f, &v))
		return -1;
	if (v.is_arg_reg && site->at_exit)
		v.rd.src = GP_SRC_SAVED;   /* reg becomes its saved index below */
	site->gp.reads[slot] = v.rd;
	site->gp.reads[slot].thread = (unsigned char)(f->thread && !is_len);
	return add_guards(s, site, f, &v, slot);
}

/* @r's read of @expr (freed here). */
static int resolve_text(struct reader *r, struct site *site, struct field *f,
			char *expr, int is_len, int slot)
{
	int rc = r->read(r, site, f, expr, is_len, -1, slot);

	free(expr);
	return rc;
}

/* The string @expr (freed here): its length at @slot, then its bytes' words. */
static int resolve_string(struct reader *r, struct site *site, struct field *f,
			  char *expr, int slot)
{
	int rc = 0;

	for (int i = 0; !rc && i < (f->bytes + 7) / 8; i++)
		rc = r->read(r, site, f, expr, 1, i, slot + 1 + i);
	if (!rc)
		rc = resolve_text(r, site, f, xasprintf("len(%s)", expr), 1, slot);
	free(expr);
	return rc;
}

/*
 * A str field: its length, then its bytes' words; a str [:N] slice: its
 * length, then each element's length and words.  The next free slot, or -1.
 */
static int resolve_strings(struct reader *r, struct site *site, struct field *f,
			   int slot)
{
	struct go_spec *s = r->s;
	int each = 1 + (f->bytes + 7) / 8, n = f->count ? f->count : 1;
	int need = (f->count ? 1 : 0) + n * each;

	if (slot + need > GP_MAX_READS && !f->count)
		return gospec_refuse(s, f->line,
				     "event %s reads more than %d values (a str of %d bytes takes %d)",
				     site->ev[0].name, GP_MAX_READS, f->bytes, need);
	if (slot + need > GP_MAX_READS)
		return gospec_refuse(s, f->line,
				     "event %s reads more than %d values (a [:%d] slice of strs of %d bytes takes %d)",
				     site->ev[0].name, GP_MAX_READS, n, f->bytes, need);
	f->len_slot = slot;
	f->slot = slot + 1;
	if (!f->count)
		return resolve_string(r, site, f, xstrdup(f->expr), slot) ? -1 :
		       slot + need;
	if (resolve_text(r, site, f, xasprintf("len(%s)", f->expr), 1, slot))
		return -1;
	for (int i = 0; i < f->count; i++)
		if (resolve_string(r, site, f,
				   xasprintf("%s[%d]%s", f->expr, i, f->rest), f->slot + i * each))
			return -1;
	return slot + need;
}

/*
 * Every read of @f: none (computed or kept), one, or the length and N elements;
 * the next free slot, or -1.
 */
static int resolve_field(struct reader *r, struct site *site, struct field *f, int slot)
{
	struct go_spec *s = r->s;

	if (f->calc || f->kept_name)
		return slot;
	if (f->bytes)
		return resolve_strings(r, site, f, slot);
	if (slot + 1 + f->count > GP_MAX_READS)
		return gospec_refuse(s, f->line,
				     "event %s reads more than %d values", site->ev[0].name, GP_MAX_READS);
	f->slot = slot;
	if (!f->count)
		return resolve_text(r, site, f,
				    xasprintf("%s%s", f->star ? "*" : "", f->expr),
				    0, slot) ? -1 : slot + 1;
	f->len_slot = slot;
	if (resolve_text(r, site, f, xasprintf("len(%s)", f->expr), 1, slot))
		return -1;
	f->slot = slot + 1;
	for (int i = 0; i < f->count; i++)
		if (resolve_text(r, site, f,
				 xasprintf("%s%s[%d]%s", f->star ? "*" : "", f->expr,
					   i, f->rest), 0, f->slot + i))
			return -1;
	return f->slot + f->count;
}

/*
 * A return reads an argument register through what its entry saved: the
 * registers the return's reads start from become the entry's saved
 * arguments, in order of first use.
 */
static int save_args(struct go_spec *s, struct func *fn, struct gp_site *entry)
{
	struct gp_site *x = &fn->exit->gp;

	for (unsigned i = 0; i < x->nreads; i++) {
		struct gp_read *rd = &x->reads[i];
		unsigned k;

		if (rd->src != GP_SRC_SAVED)
			continue;
		for (k = 0; k < entry->nsaved && entry->saved[k] != rd->reg; k++)
			;
		if (k == entry->nsaved) {
			if (k == GP_SAVED_ARGS)
				return gospec_refuse(s, fn->exit->line,
						     "event %s reads more than %d argument registers",
						     fn->exit->ev[0].name, GP_SAVED_ARGS);
			entry->saved[entry->nsaved++] = rd->reg;
		}
		rd->reg = (unsigned char)k;
	}
	if (!entry->nsaved)      /* exits pair with their entry through a frame */
		entry->saved[entry->nsaved++] = GP_RAX;
	return 0;
}

static int resolve_site(struct reader *r, struct site *site)
{
	int slot = 0;

	site->nguards = 0;
	for (int i = 0; i < site->nfields; i++)
		if ((slot = resolve_field(r, site, &site->field[i], slot)) < 0)
			return -1;
	site->gp.nreads = (unsigned)slot;
	site->nwritten = slot;
	site->goid_slot = -1;
	return place_guards(r->s, site);
}

/*
 * A "while" event needs the goroutine's id, which the BPF program reads
 * only where it pairs entries with returns: an entry that saves nothing
 * reads it as one more value (not written to raw/).
 */
static int read_goid(struct go_spec *s, struct probe_binary *b, Dwarf_Die *d,
		     struct site *site, struct gp_site *gp)
{
	struct probe_value v;
	char *why;
	int open = 0;

	for (int i = 0; i < site->nevents; i++)
		open |= site->ev[i].open != NULL;
	if (!open || gp->nsaved)
		return 0;
	if (gp->nreads == GP_MAX_READS)
		return gospec_refuse(s, site->line,
				     "event %s reads %d values and 'while' needs one more",
				     site->ev[0].name, GP_MAX_READS);
	if ((why = probe_expr(b, d, "goid", 0, &v)))
		return unresolved(s, site->line, b, why);
	site->goid_slot = (int)gp->nreads;
	gp->reads[gp->nreads++] = v.rd;
	return 0;
}

/* The reads of @fn's entry and return at symbol @sym, into @entry and its exit site. */
static int resolve_func(struct go_spec *s, struct probe_binary *b, struct func *fn,
			const char *sym, struct gp_site *entry)
{
	struct probe_func gf;
	struct cap_err why;
	Dwarf_Die d;
	struct reader r = { .read = dwarf_read, .s = s, .b = b, .fn = &d };

	if (probe_func(b, sym, &gf, &why) || probe_subprogram(b, sym, &d, &why)) {
		cap_fail_at(s->err, why.code, s->path, fn->line, "%s", cap_err_text(&why));
		cap_err_release(&why);
		return -1;
	}
	if (fn->exit && probe_abi(b) == PROBE_ABI_GO && gf.tail_call)
		return gospec_refuse(s, fn->exit->line, "%s: %s returns through a jump to "
				     "another function (at %#lx), which no RET of its own "
				     "takes, and Go's moving stacks allow no uretprobe: probe "
				     "the return of its caller", probe_path(b), fn->name,
				     gf.tail_call);
	if (fn->exit && probe_abi(b) == PROBE_ABI_GO && !gf.nret)
		return gospec_refuse(s, fn->exit->line, "%s: %s has no RET instruction (it "
				     "never returns): a return event would never come; probe "
				     "the return of its caller", probe_path(b), fn->name);
	if (fn->exit)
		fn->exit->at_exit = gf.uretprobe ? PROBE_AT_RETPROBE : PROBE_AT_RET;
	if (fn->entry) {
		if (resolve_site(&r, fn->entry))
			return -1;
		*entry = fn->entry->gp;
	}
	if (fn->exit && (resolve_site(&r, fn->exit) || save_args(s, fn, entry)))
		return -1;
	return fn->entry ? read_goid(s, b, &d, fn->entry, entry) : 0;
}

#define MAX_INSTANCES 16

/*
 * main.Put[string,int]: the shape symbol Go compiles it to, each type
 * argument go.shape.ARG (what a predeclared type's shape is called).
 */
static char *shape_symbol(const char *name)
{
	const char *open = strchr(name, '['), *p;
	struct strbuf sb = STRBUF_INIT;

	strbuf_add(&sb, name, (size_t)(open + 1 - name));
	for (p = open + 1; *p && *p != ']';) {
		size_t n = strcspn(p, ",]");

		if (strncmp(p, "go.shape.", 9))
			strbuf_addstr(&sb, "go.shape.");
		strbuf_add(&sb, p, n);
		p += n;
		if (*p == ',')
			strbuf_add(&sb, p++, 1);
	}
	strbuf_addstr(&sb, p);
	return sb.buf;
}

/*
 * The symbols @fn probes, into @names (caller frees): its own; a generic
 * function's every instantiation (main.Put); one by its type arguments
 * (main.Put[string,int]) or by its shape symbol.  How many, or -1.
 */
static int func_symbols(struct go_spec *s, struct probe_binary *b,
			const struct func *fn, const char *sym, char **names)
{
	int n = strchr(sym, '[') ? 0 : probe_instances(b, sym, names, MAX_INSTANCES);
	Dwarf_Die d;
	struct cap_err why;

	if (n > MAX_INSTANCES) {
		for (int i = 0; i < MAX_INSTANCES; i++)
			free(names[i]);
		return gospec_refuse(s, fn->line,
				     "%s: %s has %d instantiations, more than %d: name one (%s%s)",
				     probe_path(b), sym, n, MAX_INSTANCES, sym,
				     probe_is_rust(b) ? "::<TYPES>" : "[TYPES]");
	}
	if (n)
		return n;
	names[0] = xstrdup(sym);
	if (strchr(sym, '[') && probe_subprogram(b, sym, &d, &why)) {
		cap_err_release(&why);
		free(names[0]);
		names[0] = shape_symbol(sym);
	}
	return 1;
}

/*
 * Instantiations of one func share its sites, so their records must be
 * read the same: the guards' reads where the first instance put them.
 */
static int same_layout(struct go_spec *s, const struct site *site,
		       const struct guard *first, int nfirst, const char *sym)
{
	int same = site->nguards == nfirst;

	for (int i = 0; same && i < nfirst; i++)
		same = site->guard[i].slot == first[i].slot &&
		       site->guard[i].ip_slot == first[i].ip_slot &&
		       !memcmp(&site->guard[i].one_of, &first[i].one_of, sizeof(first[i].one_of));
	if (!same)
		return gospec_refuse(s, site->line,
				     "%s: its reads' checks fall elsewhere than in the first instantiation's: probe it apart",
				     sym);
	return 0;
}

/* @fn at symbol @sym of @b: resolved and probed, its sites the records' of its ids. */
static int probe_symbol(struct go_spec *s, struct gp_engine *e, struct probe_binary *b,
			struct func *fn, const char *sym, struct cap_err *err)
{
	struct gp_site entry = { 0 };
	int id;

	if (resolve_func(s, b, fn, sym, &entry))
		return -1;
	id = gp_probe_in(e, b, sym, &entry, fn->exit ? &fn->exit->gp : NULL, err);
	if (id < 0)
		return -1;
	s->by_id[id] = fn->entry;
	if (fn->exit)
		s->by_id[id + 1] = fn->exit;
	return 0;
}

/*
 * The file @fn is in: the binary's, or a library's (LIB:SYMBOL), its
 * symbol into *@sym; NULL if the library is refused, at @fn's line.
 */
static struct probe_binary *func_object(struct go_spec *s, struct gp_engine *e,
					const struct func *fn, const char **sym)
{
	size_t len = lib_prefix(fn->name);
	char *lib = len ? xasprintf("%.*s", (int)len, fn->name) : NULL;
	struct cap_err why;
	struct probe_binary *b = gp_object(e, lib, &why);

	free(lib);
	*sym = len ? fn->name + len + 1 : fn->name;
	if (!b) {
		cap_fail_at(s->err, why.code, s->path, fn->line, "%s", cap_err_text(&why));
		cap_err_release(&why);
	}
	return b;
}

static int probe_spec_func(struct go_spec *s, struct gp_engine *e, struct func *fn,
			   struct cap_err *err)
{
	char *names[MAX_INSTANCES];
	struct guard first[2][MAX_GUARDS];
	const char *sym;
	struct probe_binary *b = func_object(s, e, fn, &sym);
	int nfirst[2] = { 0, 0 }, n = b ? func_symbols(s, b, fn, sym, names) : -1, rc = 0;

	for (int i = 0; i < n; i++) {
		struct site *x[2] = { fn->entry, fn->exit };

		if (!rc)
			rc = probe_symbol(s, e, b, fn, names[i], err);
		for (int k = 0; k < 2 && !rc && x[k]; k++) {
			if (i == 0) {
				memcpy(first[k], x[k]->guard, sizeof(first[k]));
				nfirst[k] = x[k]->nguards;
			}
			rc = same_layout(s, x[k], first[k], nfirst[k], names[i]);
		}
		free(names[i]);
	}
	return n < 0 ? -1 : rc;
}

int go_spec_probe(struct go_spec *s, struct gp_engine *e, struct cap_err *err)
{
	s->err = err;
	if (s->number_goroutines)
		gp_number_goroutines(e);
	for (int i = 0; i < s->nfuncs; i++)
		if (probe_spec_func(s, e, &s->func[i], err))
			return -1;
	s->err = NULL;
	return 0;
}

/* go_spec_layout()'s reads: handed to the runtime that resolves them. */
static int visit_read(struct reader *r, struct site *site, struct field *f,
		      const char *expr, int is_len, int word, int slot)
{
	struct go_spec_read rd = {
		.site = r->id, .slot = slot, .line = f->line, .expr = expr,
		.is_len = is_len && word < 0, .word = word, .nil_test = f->nil_test,
		.kind = f->kind, .size = f->size,
	};

	(void)site;
	if (f->thread && !rd.is_len)
		return gospec_refuse(r->s, f->line, "as thread: this runtime "
				     "has no thread ids to index (the engine's)");
	if (f->table && !rd.is_len) {
		rd.names = f->table->shown;
		rd.nnames = f->table->n;
	}
	r->v->read(r->arg, &rd);
	return 0;
}

int go_spec_layout(struct go_spec *s, const struct go_spec_visit *v, void *arg,
		   struct cap_err *err)
{
	struct reader r = { .read = visit_read, .s = s, .v = v, .arg = arg };

	s->err = err;
	for (int i = 0; i < s->nfuncs; i++) {
		struct func *fn = &s->func[i];
		struct site *x[2] = { fn->entry, fn->exit };

		for (int k = 0; k < 2; k++) {
			if (!x[k])
				continue;
			r.id = 2 * i + k;
			v->site(arg, r.id, fn->name, fn->line, x[k]->line, k);
			if (resolve_site(&r, x[k]))
				return -1;
			s->by_id[r.id] = x[k];
		}
	}
	s->err = NULL;
	return 0;
}

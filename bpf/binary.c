// SPDX-License-Identifier: MIT
/* ELF/DWARF/machine-code resolver of the binaries probes read: see binary.h. */
#include <capstone/capstone.h>
#include <elfutils/libdw.h>
#include <dwarf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../capture/die.h"
#include "../capture/err.h"
#include "binary.h"
#include "debuginfo.h"
#include "dwarf-vars.h"
#include "gocommand.h"
#include "nearest.h"
#include "rust-names.h"
#include "sysv-resolve.h"

/*
 * Every function's DIE by its name and by its generic base name, sorted
 * (stable: DIE order among equals): a spec of 60 functions looked each up
 * by walking every compile unit, a second of a capture's start on a Go
 * binary (bench/go-tail's spec); one walk builds this, then each lookup is a
 * binary search.
 */
struct fn_entry {
	const char *name, *base;        /* the DWARF's or the Rust index's */
	Dwarf_Off off;
};

struct fn_index {
	struct fn_entry *by_name, *by_base;
	size_t n, cap;
	int read;
};

struct probe_binary {
	const char *path;
	int fd;
	Elf *elf;		/* the code's: segments, notes, symbols, CFI */
	Dwarf *dw;		/* the file's own DWARF or its debug file's */
	char *debug_path;	/* the separate debug file, NULL: none */
	int debug_fd;
	Elf *debug_elf;
	enum probe_abi abi;
	const char *language;
	char build_id[256], gnu_build_id[256];	/* go_build_id()'s */
	struct rust_index rust;	/* a Rust binary's functions, once read */
	int rust_read;
	struct fn_index index;	/* every function by name and base, once read */
	char *struct_name;	/* probe_member()'s last struct (runtime.g, of every goid) */
	Dwarf_Die struct_die;
	struct probe_vars vars;	/* its variables, once read */
	int vars_read;
};

static void close_debug(struct probe_binary *b)
{
	if (b->debug_elf)
		elf_end(b->debug_elf);
	if (b->debug_fd >= 0)
		close(b->debug_fd);
	free(b->debug_path);
}

/* What probe_open() had opened is released before it fails (@why NULL: @err says why). */
static struct probe_binary *refuse(struct probe_binary *b, const char *why,
				   struct cap_err *err)
{
	if (why)
		cap_fail(err, EXIT_BAD_INPUT, "%s: %s", b->path, why);
	close_debug(b);
	if (b->elf)
		elf_end(b->elf);
	if (b->fd >= 0)
		close(b->fd);
	free(b);
	return NULL;
}

/* DW_LANG_* of the languages the probes read, and their names. */
static const struct { int lang; enum probe_abi abi; const char *name; } langs[] = {
	{ DW_LANG_Go, PROBE_ABI_GO, "Go" },
	{ DW_LANG_C89, PROBE_ABI_SYSV, "C89" }, { DW_LANG_C, PROBE_ABI_SYSV, "C" },
	{ DW_LANG_C99, PROBE_ABI_SYSV, "C99" }, { DW_LANG_C11, PROBE_ABI_SYSV, "C11" },
	{ 0x2c, PROBE_ABI_SYSV, "C17" },	/* DW_LANG_C17, DWARF 6's, gcc 12 writes it */
	{ DW_LANG_C_plus_plus, PROBE_ABI_SYSV, "C++" },
	{ DW_LANG_C_plus_plus_03, PROBE_ABI_SYSV, "C++03" },
	{ DW_LANG_C_plus_plus_11, PROBE_ABI_SYSV, "C++11" },
	{ DW_LANG_C_plus_plus_14, PROBE_ABI_SYSV, "C++14" },
	{ DW_LANG_Rust, PROBE_ABI_SYSV, "Rust" },
};

static int lang_index(int lang)
{
	for (size_t i = 0; i < sizeof(langs) / sizeof(langs[0]); i++)
		if (langs[i].lang == lang)
			return (int)i;
	return -1;
}

/*
 * Go if any compile unit is Go's (a cgo program has C units too), else
 * Rust if any is Rust's (a Rust program may link C units), else the first
 * unit's language the probes read; none: refused, naming the first
 * unit's language.
 */
static char *choose_abi(struct probe_binary *b)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	int chosen = -1, other = -1;

	while (dwarf_nextcu(b->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		int lang, i;

		if (dwarf_offdie(b->dw, off + hsize, &cu) &&
		    (lang = dwarf_srclang(&cu)) >= 0) {
			i = lang_index(lang);
			if (i >= 0 && (chosen < 0 || langs[i].abi == PROBE_ABI_GO ||
				       (lang == DW_LANG_Rust && langs[chosen].abi != PROBE_ABI_GO)))
				chosen = i;
			else if (i < 0 && other < 0)
				other = lang;
		}
		off = next;
	}
	if (chosen < 0)
		return xasprintf("its DWARF's language is %s (DW_AT_language %#x): the "
				 "probes read Go, C, C++ and Rust binaries",
				 other == DW_LANG_Mips_Assembler ? "an assembler's" :
				 "one they do not read", other < 0 ? 0 : other);
	b->abi = langs[chosen].abi;
	b->language = langs[chosen].name;
	return NULL;
}

enum probe_abi probe_abi(const struct probe_binary *b)
{
	return b->abi;
}

const char *probe_language(const struct probe_binary *b)
{
	return b->language;
}

/*
 * @b's DWARF from its separate debug file (debuginfo.h), the code staying
 * @b's own file: -1 and @err if there is none, or it is another build's.
 */
static int open_debug(struct probe_binary *b, struct cap_err *err)
{
	char id[256];

	elf_gnu_build_id(b->elf, id, sizeof(id));
	b->debug_path = debug_file_find(b->path, b->elf, id, err);
	if (!b->debug_path)
		return -1;
	b->debug_fd = open(b->debug_path, O_RDONLY | O_CLOEXEC);
	b->debug_elf = b->debug_fd < 0 ? NULL : elf_begin(b->debug_fd, ELF_C_READ, NULL);
	b->dw = b->debug_elf ? dwarf_begin_elf(b->debug_elf, DWARF_C_READ, NULL) : NULL;
	if (!b->dw)
		return cap_fail(err, EXIT_BAD_INPUT, "%s: cannot read its debug file %s: %s",
				b->path, b->debug_path, dwarf_errmsg(-1));
	return 0;
}

struct probe_binary *probe_open(const char *path, struct cap_err *err)
{
	struct probe_binary *b = xcalloc(1, sizeof(*b));
	char *why;

	b->path = path;
	b->debug_fd = -1;
	elf_version(EV_CURRENT);
	b->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (b->fd < 0)
		return refuse(b, "cannot open", err);
	b->elf = elf_begin(b->fd, ELF_C_READ, NULL);
	if (!b->elf || elf_kind(b->elf) != ELF_K_ELF)
		return refuse(b, "not an ELF file", err);
	b->dw = dwarf_begin_elf(b->elf, DWARF_C_READ, NULL);
	if (!b->dw && go_is_go_program(path)) {
		char msg[320];

		snprintf(msg, sizeof(msg), "no DWARF debug information (built "
			 "with -ldflags=-w or -s, or stripped?): rebuild it with a "
			 "plain go build, without -w or -s in -ldflags (%s)",
			 dwarf_errmsg(-1));
		return refuse(b, msg, err);
	}
	if (!b->dw && open_debug(b, err))
		return refuse(b, NULL, err);
	why = choose_abi(b);
	if (why) {
		dwarf_end(b->dw);
		refuse(b, why, err);
		free(why);
		return NULL;
	}
	return b;
}

const char *probe_debug_path(const struct probe_binary *b)
{
	return b->debug_path;
}

Elf *probe_elf(struct probe_binary *b)
{
	return b->elf;
}

void probe_close(struct probe_binary *b)
{
	free(b->struct_name);
	free(b->index.by_name);
	free(b->index.by_base);
	rust_index_free(&b->rust);
	probe_vars_free(&b->vars);
	dwarf_end(b->dw);
	close_debug(b);
	elf_end(b->elf);
	close(b->fd);
	free(b);
}

int probe_each_die(struct probe_binary *b, int (*fn)(Dwarf_Die *, void *), void *arg)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (dwarf_nextcu(b->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, d;

		if (dwarf_offdie(b->dw, off + hsize, &cu) &&
		    dwarf_child(&cu, &d) == 0) {
			do {
				if (fn(&d, arg))
					return 1;
			} while (dwarf_siblingof(&d, &d) == 0);
		}
		off = next;
	}
	return 0;
}

int probe_is_rust(const struct probe_binary *b)
{
	return !strcmp(b->language, "Rust");
}

struct each_function {
	int (*fn)(Dwarf_Die *, const char *, const char *, void *);
	void *arg;
};

static const char *die_name(Dwarf_Die *d);

static int top_function(Dwarf_Die *d, void *arg)
{
	struct each_function *e = arg;
	const char *name = die_name(d);

	return dwarf_tag(d) == DW_TAG_subprogram && name && e->fn(d, name, name, e->arg);
}

int probe_each_function(struct probe_binary *b,
			int (*fn)(Dwarf_Die *, const char *, const char *, void *),
			void *arg)
{
	struct each_function e = { fn, arg };

	if (!probe_is_rust(b))
		return probe_each_die(b, top_function, &e);
	if (!b->rust_read) {
		rust_index_read(b->dw, &b->rust);
		b->rust_read = 1;
	}
	for (size_t i = 0; i < b->rust.n; i++) {
		const struct rust_fn *f = &b->rust.fn[i];
		Dwarf_Die d;

		if (dwarf_offdie(b->dw, f->die, &d) && fn(&d, f->name, f->base, arg))
			return 1;
	}
	return 0;
}

struct function_names {
	struct names *all, *inlined;
};

static int add_function_name(Dwarf_Die *d, const char *n, const char *base, void *arg)
{
	struct function_names *f = arg;

	if (dwarf_hasattr(d, DW_AT_declaration))	/* another unit defines it */
		return 0;
	names_add(f->all, n);
	if (strcmp(base, n))	/* a generic function's, naming every instantiation */
		names_add(f->all, base);
	if (f->inlined && dwarf_hasattr(d, DW_AT_inline))
		names_add(f->inlined, n);
	return 0;
}

void probe_function_names(struct probe_binary *b, struct names *all,
			  struct names *inlined)
{
	struct function_names f = { all, inlined };

	probe_each_function(b, add_function_name, &f);
	names_sort(all);
	if (inlined)
		names_sort(inlined);
}

const char *probe_nearest_function(struct probe_binary *b, const char *name)
{
	struct names all = { 0 };
	const char *s;

	probe_function_names(b, &all, NULL);
	s = names_nearest(&all, name);
	names_free(&all);
	return s;
}

struct die_query {
	const char *name;
	int tag;
	Dwarf_Die found;
	int nfound;
	int inlined;    /* an abstract (inlined) instance exists */
};

static const char *die_name(Dwarf_Die *d)
{
	Dwarf_Attribute a;

	return dwarf_formstring(dwarf_attr_integrate(d, DW_AT_name, &a));
}

/*
 * @d matches @q: the first out-of-line one is kept; an abstract (inlined)
 * one noted; a declaration (a C unit's of a function another defines) is
 * no function.
 */
static int found(struct die_query *q, Dwarf_Die *d)
{
	if (dwarf_hasattr(d, DW_AT_declaration))
		return 0;
	if (dwarf_hasattr(d, DW_AT_inline))
		q->inlined = 1;
	else if (!q->nfound++)
		q->found = *d;
	return 0;
}

static int match_die(Dwarf_Die *d, void *arg)
{
	struct die_query *q = arg;
	const char *name;

	if (dwarf_tag(d) != q->tag)
		return 0;
	name = die_name(d);
	return name && !strcmp(name, q->name) ? found(q, d) : 0;
}

/* File offset of virtual address @va, from the PT_LOAD that maps it. */
static int file_offset(struct probe_binary *b, Dwarf_Addr va, unsigned long *off,
		       struct cap_err *err)
{
	size_t n;
	GElf_Phdr ph;

	elf_getphdrnum(b->elf, &n);
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(b->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (va >= ph.p_vaddr && va < ph.p_vaddr + ph.p_filesz) {
			*off = va - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return cap_fail(err, EXIT_BAD_INPUT, "%s: address %#lx is in no loaded segment",
			b->path, (unsigned long)va);
}

static unsigned char *read_code(struct probe_binary *b, unsigned long off, size_t len,
				struct cap_err *err)
{
	unsigned char *code = xmalloc(len);

	if (pread(b->fd, code, len, (off_t)off) == (ssize_t)len)
		return code;
	free(code);
	cap_fail(err, EXIT_BAD_INPUT, "%s: cannot read code at %#lx", b->path, off);
	return NULL;
}

/*
 * The stack check is the first instructions' "cmp <sp or r12>, [r14+...];
 * jbe": R14 holds the goroutine and its stack guard.  Functions with a
 * small frame marked NOSPLIT have none.
 */
static int is_check_jbe(cs_insn *prev, cs_insn *in)
{
	return in->id == X86_INS_JBE && prev && prev->id == X86_INS_CMP &&
	       strstr(prev->op_str, "r14");
}

/*
 * A JMP that leaves [@lo, @hi), a tail call: to a constant address
 * outside it, or (System V, @sysv) through memory at a constant place (a
 * GOT entry: [rip + X]).  Jumps through a register or a table are a
 * switch's, or a tail call through a pointer: told apart by no one here
 * (binary.h: which code's returns are uretprobes).
 */
static int jumps_out(cs_insn *in, Dwarf_Addr lo, Dwarf_Addr hi, int sysv)
{
	char *end;
	unsigned long to;

	if (in->id != X86_INS_JMP)
		return 0;
	if (strncmp(in->op_str, "0x", 2))
		return sysv && strstr(in->op_str, "[rip");
	to = strtoul(in->op_str, &end, 16);
	return !*end && (to < lo || to >= hi);
}

/* The stack check and RETs of @f's code [@lo, @hi), at file offset f->entry. */
static int scan_code(struct probe_binary *b, const char *name, Dwarf_Addr lo,
		     Dwarf_Addr hi, struct probe_func *f, struct cap_err *err)
{
	unsigned long off = f->entry;
	unsigned char *code = read_code(b, off, hi - lo, err);
	cs_insn *insn;
	csh cs;
	size_t n;
	int rc = 0;

	if (!code)
		return -1;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK) {
		free(code);
		return cap_fail(err, EXIT_CAPTURE_FAILED,
				"capstone: cannot open x86-64 disassembler");
	}
	cs_option(cs, CS_OPT_SKIPDATA, CS_OPT_ON);
	n = cs_disasm(cs, code, hi - lo, lo, 0, &insn);
	for (size_t i = 0; i < n; i++) {
		unsigned long at = off + (insn[i].address - lo);

		if (b->abi == PROBE_ABI_GO && i < 6 && !f->check &&
		    is_check_jbe(i ? &insn[i - 1] : NULL, &insn[i])) {
			f->check = at;
			f->entry_pc = insn[i].address;
		}
		if (!f->tail_call && jumps_out(&insn[i], lo, hi, b->abi == PROBE_ABI_SYSV))
			f->tail_call = at;
		if (insn[i].id != X86_INS_RET)
			continue;
		if (f->nret == PROBE_MAX_RETS && b->abi == PROBE_ABI_SYSV) {
			f->uretprobe = 1;       /* its RETs are too many to probe */
			continue;
		}
		if (f->nret == PROBE_MAX_RETS) {
			rc = cap_fail(err, EXIT_BAD_INPUT, "%s: %s has more than %d RET instructions",
				      b->path, name, PROBE_MAX_RETS);
			break;
		}
		f->ret[f->nret++] = at;
	}
	cs_free(insn, n);
	cs_close(&cs);
	free(code);
	return rc;
}

static int add_entry(Dwarf_Die *d, const char *name, const char *base, void *arg)
{
	struct fn_index *ix = arg;

	if (ix->n == ix->cap) {
		ix->cap = ix->cap ? 2 * ix->cap : 1024;
		ix->by_name = xrealloc(ix->by_name, ix->cap * sizeof(*ix->by_name));
	}
	ix->by_name[ix->n++] = (struct fn_entry){ name, base, dwarf_dieoffset(d) };
	return 0;
}

/* Ties keep DIE order: the entries are added in it, and offsets are unique. */
static int by_name(const void *a, const void *b)
{
	const struct fn_entry *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->off < y->off ? -1 : x->off > y->off;
}

static int by_base(const void *a, const void *b)
{
	const struct fn_entry *x = a, *y = b;
	int c = strcmp(x->base, y->base);

	return c ? c : x->off < y->off ? -1 : x->off > y->off;
}

static int by_off(const void *a, const void *b)
{
	const struct fn_entry *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

static struct fn_index *fn_index(struct probe_binary *b)
{
	struct fn_index *ix = &b->index;

	if (ix->read)
		return ix;
	ix->read = 1;
	probe_each_function(b, add_entry, ix);
	if (!ix->n)     /* no copy or sort of a NULL list */
		return ix;
	ix->by_base = xmalloc(ix->n * sizeof(*ix->by_base));
	memcpy(ix->by_base, ix->by_name, ix->n * sizeof(*ix->by_base));
	qsort(ix->by_name, ix->n, sizeof(*ix->by_name), by_name);
	qsort(ix->by_base, ix->n, sizeof(*ix->by_base), by_base);
	return ix;
}

/* The first entry of sorted @v whose name (@base: base name) is not below @key. */
static size_t lower_bound(const struct fn_entry *v, size_t n, int base,
			  const char *key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(base ? v[mid].base : v[mid].name, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Append to @out (at *@n) the entries of @v whose name (@base: base name)
 * is @key, or starts with it if @prefix.
 */
static void entries_of(const struct fn_entry *v, size_t nv, int base, const char *key,
		       int prefix, struct fn_entry *out, size_t *n)
{
	size_t len = strlen(key);

	for (size_t i = lower_bound(v, nv, base, key); i < nv; i++) {
		const char *s = base ? v[i].base : v[i].name;

		if (prefix ? strncmp(s, key, len) : strcmp(s, key))
			break;
		out[(*n)++] = v[i];
	}
}

/*
 * The functions named @name or (Rust) whose generic base name is @name,
 * or with @prefix those whose name starts with it: in DIE order, as a
 * walk of the compile units finds them (caller frees).
 */
static struct fn_entry *functions_named(struct probe_binary *b, const char *name,
					int prefix, size_t *n)
{
	struct fn_index *ix = fn_index(b);
	struct fn_entry *out = xmalloc(2 * (ix->n ? ix->n : 1) * sizeof(*out));
	size_t k = 0;

	*n = 0;
	if (ix->n)
		entries_of(ix->by_name, ix->n, 0, name, prefix, out, n);
	if (ix->n && !prefix)
		entries_of(ix->by_base, ix->n, 1, name, 0, out, n);
	qsort(out, *n, sizeof(*out), by_off);
	for (size_t i = 0; i < *n; i++)      /* one whose name is its base: twice */
		if (!k || out[k - 1].off != out[i].off)
			out[k++] = out[i];
	*n = k;
	return out;
}

int probe_each_named(struct probe_binary *b, const char *name,
		     int (*fn)(Dwarf_Die *, void *), void *arg)
{
	size_t n;
	struct fn_entry *f = functions_named(b, name, 0, &n);
	int rc = 0;

	for (size_t i = 0; i < n && !rc; i++) {
		Dwarf_Die d;

		if (dwarf_offdie(b->dw, f[i].off, &d))
			rc = fn(&d, arg);
	}
	free(f);
	return rc;
}

/*
 * The value of function symbol @name in @elf's symbol tables (a dynamic
 * symbol's version, @@GLIBC_2.2.5, dropped), 0 if it has none.
 */
static Dwarf_Addr symbol_value(Elf *elf, const char *name)
{
	size_t len = strlen(name);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while (elf && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB &&
						sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize || !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym st;
			const char *n;

			if (gelf_getsym(data, (int)i, &st) && GELF_ST_TYPE(st.st_info) == STT_FUNC &&
			    st.st_shndx != SHN_UNDEF && st.st_value &&
			    (n = elf_strptr(elf, sh.sh_link, st.st_name)) &&
			    !strncmp(n, name, len) && (!n[len] || n[len] == '@'))
				return st.st_value;
		}
	}
	return 0;
}

/*
 * The subprogram whose code starts at @addr: what a symbol names that
 * DWARF knows by another name (glibc's pthread_mutex_lock is the alias of
 * ___pthread_mutex_lock, which DWARF names), as debuggers find it.
 */
static int function_at(struct probe_binary *b, Dwarf_Addr addr, Dwarf_Die *out)
{
	Dwarf_Die cu, d;
	Dwarf_Addr lo;

	if (!addr || !dwarf_addrdie(b->dw, addr, &cu) || dwarf_child(&cu, &d))
		return -1;
	do {
		if (dwarf_tag(&d) == DW_TAG_subprogram && !dwarf_lowpc(&d, &lo) && lo == addr) {
			*out = d;
			return 0;
		}
	} while (dwarf_siblingof(&d, &d) == 0);
	return -1;
}

int probe_subprogram(struct probe_binary *b, const char *name, Dwarf_Die *out,
		     struct cap_err *err)
{
	struct die_query q = { .name = name, .tag = DW_TAG_subprogram };
	size_t n;
	struct fn_entry *f = functions_named(b, name, 0, &n);

	for (size_t i = 0; i < n; i++) {
		Dwarf_Die d;

		if (dwarf_offdie(b->dw, f[i].off, &d))
			found(&q, &d);
	}
	free(f);
	if (q.inlined)
		return cap_fail(err, EXIT_BAD_INPUT, "%s: %s is inlined into its callers: a probe on its symbol would miss those calls; probe a caller",
				b->path, name);
	if (!q.nfound && !function_at(b, symbol_value(b->elf, name), out))
		return 0;
	if (!q.nfound && !function_at(b, symbol_value(b->debug_elf, name), out))
		return 0;
	if (!q.nfound)
		return cap_fail(err, EXIT_BAD_INPUT, "%s: no function %s%s", b->path, name,
				probe_nearest_function(b, name));
	*out = q.found;
	return 0;
}

/*
 * Has @scope a call site DWARF marks a tail call (DW_AT_call_tail_call,
 * or GNU's before DWARF 5), through a register too, which no jump's
 * disassembly tells from a switch's?  gcc and clang mark them when they
 * optimize.
 */
static int tail_call_site(Dwarf_Die *scope)
{
	Dwarf_Die c;

	if (dwarf_child(scope, &c))
		return 0;
	do {
		int tag = dwarf_tag(&c);

		if ((tag == DW_TAG_call_site || tag == DW_TAG_GNU_call_site) &&
		    (dwarf_hasattr(&c, DW_AT_call_tail_call) ||
		     dwarf_hasattr(&c, DW_AT_GNU_tail_call)))
			return 1;
		if ((tag == DW_TAG_lexical_block || tag == DW_TAG_inlined_subroutine) &&
		    tail_call_site(&c))
			return 1;
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

int probe_func_die(struct probe_binary *b, Dwarf_Die *d, const char *name,
		   struct probe_func *f, struct cap_err *err)
{
	Dwarf_Addr lo, hi, pc;

	if (dwarf_lowpc(d, &lo) || dwarf_highpc(d, &hi))
		return cap_fail(err, EXIT_BAD_INPUT, "%s: %s has no code range", b->path, name);
	memset(f, 0, sizeof(*f));
	if (file_offset(b, lo, &f->entry, err) || scan_code(b, name, lo, hi, f, err))
		return -1;
	f->start = f->entry;
	if (!f->check)
		f->entry_pc = lo;
	if (b->abi == PROBE_ABI_SYSV && (sysv_probe_pc(b->path, d, &pc, err) ||
				      file_offset(b, pc, &f->entry, err)))
		return -1;
	/*
	 * System V returns are the kernel's uretprobe's, which costs a trap
	 * where a RET's probe costs a trap and a single step, and takes a
	 * return by a tail call too; but unoptimized code (probed past its
	 * prologue) reads its arguments from its frame, gone where a
	 * uretprobe sees the return: it makes no tail call (an indirect jump
	 * there is a switch's, and DWARF marks no call site a tail call), so
	 * its RETs take every return.
	 */
	if (b->abi == PROBE_ABI_SYSV) {
		f->entry_pc = pc;
		f->uretprobe |= pc == lo || f->tail_call || !f->nret || tail_call_site(d);
	}
	return 0;
}

int probe_func(struct probe_binary *b, const char *name, struct probe_func *f,
	       struct cap_err *err)
{
	Dwarf_Die d;

	return probe_subprogram(b, name, &d, err) ? -1 : probe_func_die(b, &d, name, f, err);
}

Dwarf *probe_dwarf(struct probe_binary *b)
{
	return b->dw;
}

const struct probe_vars *probe_variables(struct probe_binary *b)
{
	if (!b->vars_read) {
		probe_vars_read(b->dw, &b->vars);
		b->vars_read = 1;
	}
	return &b->vars;
}

const char *probe_nearest_variable(struct probe_binary *b, const char *name)
{
	const struct probe_vars *vs = probe_variables(b);
	struct names l = { 0 };
	const char *s;

	for (size_t i = 0; i < vs->n; i++)
		names_add(&l, vs->v[i].name);
	names_sort(&l);
	s = names_nearest(&l, name);
	names_free(&l);
	return s;
}

/*
 * The instantiations of generic function @name: Go's NAME[SHAPES], Rust's
 * by their base name (an instantiation's own name has its type
 * arguments); out-of-line ones, each name once, in DIE order.
 */
int probe_instances(struct probe_binary *b, const char *name, char **names, int max)
{
	int rust = probe_is_rust(b), count = 0;
	char *prefix = xasprintf("%s[", name);
	size_t n;
	struct fn_entry *f = functions_named(b, rust ? name : prefix, !rust, &n);

	for (size_t i = 0; i < n; i++) {
		Dwarf_Die d;
		int seen = 0;

		if ((rust && (strcmp(f[i].base, name) || !strcmp(f[i].name, f[i].base))) ||
		    !dwarf_offdie(b->dw, f[i].off, &d) || dwarf_hasattr(&d, DW_AT_inline))
			continue;
		for (int k = 0; k < count && k < max && !seen; k++)
			seen = !strcmp(names[k], f[i].name);
		if (seen)
			continue;
		if (count < max)
			names[count] = xstrdup(f[i].name);
		count++;
	}
	free(f);
	free(prefix);
	return count;
}

/* Go's DWARF: a type's descriptor, as an offset from runtime.types. */
#define DW_AT_GO_RUNTIME_TYPE 0x2904

int go_pointer_type(struct probe_binary *b, const char *name, Dwarf_Die *out,
		    unsigned long *desc)
{
	struct die_query q = { .name = name, .tag = DW_TAG_pointer_type };
	const char *sym = "runtime.types";
	Elf_Scn *scn = NULL;
	Dwarf_Attribute a;
	Dwarf_Addr off;
	GElf_Ehdr eh;
	int found = 0;

	probe_each_die(b, match_die, &q);
	/* An offset, though written as an address (DW_FORM_addr). */
	if (!q.nfound || dwarf_formaddr(dwarf_attr(&q.found, DW_AT_GO_RUNTIME_TYPE, &a), &off) ||
	    !off)
		return -1;
	if (!gelf_getehdr(b->elf, &eh) || eh.e_type != ET_EXEC)
		return -2;
	*out = q.found;
	while (!found && (scn = elf_nextscn(b->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym st;
			const char *n;

			if (!gelf_getsym(data, (int)i, &st) ||
			    !(n = elf_strptr(b->elf, sh.sh_link, st.st_name)) || strcmp(n, sym))
				continue;
			*desc = st.st_value + off;
			found = 1;
			break;
		}
	}
	return found ? 0 : -1;
}

const char *probe_path(const struct probe_binary *b)
{
	return b->path;
}

long probe_member(struct probe_binary *b, const char *type, const char *member,
		  struct cap_err *err)
{
	struct die_query q = { .name = type, .tag = DW_TAG_structure_type };
	Dwarf_Die m;
	Dwarf_Attribute a;
	Dwarf_Word loc;

	/* a walk of every unit: once for the goid of a spec's every site */
	if (b->struct_name && !strcmp(b->struct_name, type)) {
		q.found = b->struct_die;
	} else {
		probe_each_die(b, match_die, &q);
		if (!q.nfound)
			return cap_fail(err, EXIT_BAD_INPUT, "%s: no struct type %s",
					b->path, type);
		free(b->struct_name);
		b->struct_name = xstrdup(type);
		b->struct_die = q.found;
	}
	if (dwarf_child(&q.found, &m) == 0) {
		do {
			const char *n = die_name(&m);

			if (dwarf_tag(&m) != DW_TAG_member || !n || strcmp(n, member))
				continue;
			if (dwarf_formudata(dwarf_attr(&m, DW_AT_data_member_location, &a), &loc))
				break;
			return (long)loc;
		} while (dwarf_siblingof(&m, &m) == 0);
	}
	return cap_fail(err, EXIT_BAD_INPUT, "%s: struct %s has no member %s",
			b->path, type, member);
}

/* The Go build id note (type 4, owner "Go"), printable as upstream does; else the GNU one. */
const char *go_build_id(struct probe_binary *b)
{
	size_t n = 0;
	const char *id = elf_note(b->elf, 4, "Go", &n);

	if (!id)
		return probe_gnu_build_id(b);
	if (n > sizeof(b->build_id) - 1)
		n = sizeof(b->build_id) - 1;
	memcpy(b->build_id, id, n);
	b->build_id[n] = 0;
	return b->build_id;
}

const char *probe_gnu_build_id(struct probe_binary *b)
{
	elf_gnu_build_id(b->elf, b->gnu_build_id, sizeof(b->gnu_build_id));
	return b->gnu_build_id;
}

// SPDX-License-Identifier: MIT
/* The JVM agent's pure-C part: see agent-plan.h. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent-plan.h"
#include "wire.h"

static __attribute__((format(printf, 3, 4)))
int why_set(char *why, size_t cap, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, cap, fmt, ap);
	va_end(ap);
	return -1;
}

static void *grow(void *p, int n, size_t size)
{
	/* Doubling at powers of two: n elements fit in the block grown at n. */
	if (n & (n - 1))
		return p;
	p = realloc(p, (size_t)(n ? 2 * n : 1) * size);
	if (!p)
		abort();
	return p;
}

static char *copy_of(const char *s)
{
	char *d = strdup(s);

	if (!d)
		abort();
	return d;
}

/* @text's tab-separated fields into @f (at most @max); how many. */
static int fields(char *text, char **f, int max)
{
	int n = 0;

	for (char *p = text; n < max;) {
		f[n++] = p;
		p = strchr(p, '\t');
		if (!p)
			break;
		*p++ = 0;
	}
	return n;
}

static int number(const char *w, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(w, &end, 10);
	return !*w || *end || errno ? -1 : 0;
}

static int plan_site(struct ap_plan *p, char **f, int n)
{
	struct ap_site *s;
	long id, at_exit, fl, sl;

	if (n != 6 || number(f[1], &id) || number(f[2], &at_exit) ||
	    number(f[3], &fl) || number(f[4], &sl))
		return -1;
	p->sites = grow(p->sites, p->nsites, sizeof(*p->sites));
	s = &p->sites[p->nsites++];
	*s = (struct ap_site){ .id = (int)id, .at_exit = (int)at_exit, .func_line = fl,
			       .site_line = sl, .func = copy_of(f[5]) };
	return 0;
}

static int plan_read(struct ap_plan *p, char **f, int n)
{
	struct ap_site *s = p->nsites ? &p->sites[p->nsites - 1] : NULL;
	struct ap_read *r;
	long site, slot, line, size, flags, word;

	if (n < 9 || !s || number(f[1], &site) || site != s->id || number(f[2], &slot) ||
	    number(f[3], &line) || strlen(f[4]) != 1 || !strchr("sub", f[4][0]) ||
	    number(f[5], &size) || number(f[6], &flags) || number(f[7], &word))
		return -1;
	s->reads = grow(s->reads, s->nreads, sizeof(*s->reads));
	r = &s->reads[s->nreads++];
	*r = (struct ap_read){ .slot = (int)slot, .line = line, .kind = f[4][0],
			       .size = (int)size, .flags = (int)flags, .word = (int)word,
			       .expr = copy_of(f[8]) };
	if (n == 9)
		return 0;
	r->nnames = n - 9;
	r->names = calloc((size_t)r->nnames, sizeof(char *));
	if (!r->names)
		abort();
	for (int i = 0; i < r->nnames; i++)
		r->names[i] = strcmp(f[9 + i], "-") ? copy_of(f[9 + i]) : NULL;
	return 0;
}

int ap_plan_read(const char *path, struct ap_plan *p, char *why, size_t cap)
{
	FILE *in = fopen(path, "r");
	char *line = NULL, *f[80];
	size_t size = 0;
	long no = 0;
	ssize_t len;
	int rc = 0;

	*p = (struct ap_plan){ 0 };
	if (!in)
		return why_set(why, cap, "%s: %s", path, strerror(errno));
	while (!rc && (len = getline(&line, &size, in)) >= 0) {
		int n;

		no++;
		if (len && line[len - 1] == '\n')
			line[len - 1] = 0;
		if (no == 1) {
			if (strcmp(line, JW_PLAN_HEAD))
				rc = why_set(why, cap, "%s:1: not a plan (%s expected)", path, JW_PLAN_HEAD);
			continue;
		}
		n = fields(line, f, 80);
		if (!strcmp(f[0], "site"))
			rc = plan_site(p, f, n);
		else if (!strcmp(f[0], "read"))
			rc = plan_read(p, f, n);
		else
			rc = -1;
		if (rc)
			why_set(why, cap, "%s:%ld: malformed plan line", path, no);
	}
	if (!rc && no == 0)
		rc = why_set(why, cap, "%s: empty plan", path);
	free(line);
	fclose(in);
	if (rc)
		ap_plan_free(p);
	return rc;
}

void ap_plan_free(struct ap_plan *p)
{
	for (int i = 0; i < p->nsites; i++) {
		struct ap_site *s = &p->sites[i];

		for (int k = 0; k < s->nreads; k++) {
			for (int j = 0; j < s->reads[k].nnames; j++)
				free(s->reads[k].names[j]);
			free(s->reads[k].names);
			free(s->reads[k].expr);
		}
		free(s->reads);
		free(s->func);
	}
	free(p->sites);
	*p = (struct ap_plan){ 0 };
}

/* A Java identifier as the spec writes one ($ of nested and synthetic names too). */
static size_t ident(const char *s)
{
	size_t n = 0;

	if (!isalpha((unsigned char)*s) && *s != '_' && *s != '$' && *s != '<')
		return 0;
	while (isalnum((unsigned char)s[n]) || s[n] == '_' || s[n] == '$' ||
	       s[n] == '<' || s[n] == '>')
		n++;
	return n;
}

int ap_func_parse(const char *text, struct ap_func *f, char *why, size_t cap)
{
	const char *open = strchr(text, '('), *colon = strrchr(text, ':');
	const char *end = open ? open : colon ? colon : text + strlen(text), *dot;
	size_t clen;

	*f = (struct ap_func){ 0 };
	for (dot = end; dot > text && dot[-1] != '.'; dot--)
		;
	if (dot == text || dot - 1 == text)
		return why_set(why, cap, "%s: expected CLASS.METHOD (a class's name with its package)", text);
	clen = (size_t)(dot - 1 - text);
	if (clen >= sizeof(f->cls) || (size_t)(end - dot) >= sizeof(f->method) ||
	    ident(dot) != (size_t)(end - dot))
		return why_set(why, cap, "%s: expected CLASS.METHOD[(DESCRIPTOR)][:LINE]", text);
	memcpy(f->cls, text, clen);
	memcpy(f->method, dot, (size_t)(end - dot));
	if (open) {
		const char *close = strchr(open, ')');

		/* the return type follows ')' up to the colon */
		end = colon && colon > open ? colon : text + strlen(text);
		if (!close || close > end || (size_t)(end - open) >= sizeof(f->desc))
			return why_set(why, cap, "%s: a method's descriptor is (ARGS)RET, as --describe prints it", text);
		memcpy(f->desc, open, (size_t)(end - open));
	}
	if (colon && (!open || colon > open)) {
		if (number(colon + 1, &f->line) || f->line < 1)
			return why_set(why, cap, "%s: :LINE is a source line, a number from 1", text);
	}
	return 0;
}

/* A class's name in a cast: identifiers joined by dots. */
static size_t class_name(const char *s)
{
	size_t n = 0, k;

	while ((k = ident(s + n))) {
		n += k;
		if (s[n] != '.')
			return n;
		n++;
	}
	return 0;
}

static int step(const char **p, struct ap_expr *x, const char *text, char *why, size_t cap)
{
	struct ap_step *st;
	size_t n;
	char *end;

	if (x->n == AP_MAX_STEPS)
		return why_set(why, cap, "%s: more than %d fields, indexes and casts", text, AP_MAX_STEPS);
	st = &x->step[x->n++];
	if (**p == '[') {
		errno = 0;
		st->kind = AP_INDEX;
		st->index = strtol(*p + 1, &end, 10);
		if (end == *p + 1 || *end != ']' || errno || st->index < 0 || st->index > 1 << 30)
			return why_set(why, cap, "%s: an index is [N], N a number from 0", text);
		*p = end + 1;
		return 0;
	}
	if ((*p)[1] == '(') {
		st->kind = AP_CAST;
		n = class_name(*p + 2);
		if (!n || (*p)[2 + n] != ')' || n >= sizeof(st->name))
			return why_set(why, cap, "%s: a cast is X.(CLASS), CLASS with its package", text);
		memcpy(st->name, *p + 2, n);
		*p += 3 + n;
		return 0;
	}
	st->kind = AP_FIELD;
	n = ident(*p + 1);
	if (!n || n >= sizeof(st->name))
		return why_set(why, cap, "%s: expected a field's name after '.'", text);
	memcpy(st->name, *p + 1, n);
	*p += 1 + n;
	return 0;
}

int ap_expr_parse(const char *text, struct ap_expr *x, char *why, size_t cap)
{
	const char *p = text;
	size_t n;

	*x = (struct ap_expr){ 0 };
	if (!strncmp(p, "len(", 4)) {
		x->is_len = 1;
		p += 4;
	}
	if (*p == '*') {
		x->star = 1;
		p++;
	}
	n = ident(p);
	if (!n || n >= sizeof(x->root))
		return why_set(why, cap, "%s: expected this, a local's name or goid first", text);
	memcpy(x->root, p, n);
	p += n;
	while (*p == '.' || *p == '[')
		if (step(&p, x, text, why, cap))
			return -1;
	if (x->is_len && *p++ != ')')
		return why_set(why, cap, "%s: len( without its )", text);
	if (*p)
		return why_set(why, cap, "%s: unexpected '%s'", text, p);
	return 0;
}

/* An instruction's length at @pc (a switch's by its operands), or 0. */
static int insn_len(const unsigned char *c, int len, int pc)
{
	static const unsigned char lens[256] = {
		[0x10] = 2, [0x11] = 3, [0x12] = 2, [0x13] = 3, [0x14] = 3,
		[0x15] = 2, [0x16] = 2, [0x17] = 2, [0x18] = 2, [0x19] = 2,
		[0x36] = 2, [0x37] = 2, [0x38] = 2, [0x39] = 2, [0x3a] = 2,
		[0x84] = 3, [0xa9] = 2,
		[0xb2] = 3, [0xb3] = 3, [0xb4] = 3, [0xb5] = 3, [0xb6] = 3, [0xb7] = 3,
		[0xb8] = 3, [0xb9] = 5, [0xba] = 5, [0xbb] = 3, [0xbc] = 2, [0xbd] = 3,
		[0xc0] = 3, [0xc1] = 3, [0xc5] = 4, [0xc8] = 5, [0xc9] = 5,
	};
	unsigned op = c[pc];
	int p, n;

	if (op > 0xc9)
		return 0;
	if (op >= 0x99 && op <= 0xa8)
		return 3;           /* if<cond>, if_icmp, if_acmp, goto, jsr */
	if (op == 0xc6 || op == 0xc7)
		return 3;           /* ifnull, ifnonnull */
	if (op == 0xc4)             /* wide */
		return pc + 1 < len && c[pc + 1] == 0x84 ? 6 : 4;
	if (op == 0xaa || op == 0xab) {
		p = (pc + 4) & ~3;
		if (p + 12 > len)
			return 0;
		if (op == 0xaa) {
			int lo = (int)((uint32_t)c[p + 4] << 24 | c[p + 5] << 16 | c[p + 6] << 8 | c[p + 7]);
			int hi = (int)((uint32_t)c[p + 8] << 24 | c[p + 9] << 16 | c[p + 10] << 8 | c[p + 11]);

			if (hi < lo || hi - lo > 1 << 20)
				return 0;
			n = p + 12 + 4 * (hi - lo + 1);
		} else {
			int pairs = (int)((uint32_t)c[p + 4] << 24 | c[p + 5] << 16 | c[p + 6] << 8 | c[p + 7]);

			if (pairs < 0 || pairs > 1 << 20)
				return 0;
			n = p + 8 + 8 * pairs;
		}
		return n - pc;
	}
	return lens[op] ? lens[op] : 1;
}

static int32_t be32(const unsigned char *b)
{
	return (int32_t)((uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3]);
}

/* Does the instruction at @pc (of @n bytes) jump to 0? */
static int jumps_to_0(const unsigned char *c, int pc, int n)
{
	unsigned op = c[pc];
	int p;

	if ((op >= 0x99 && op <= 0xa8) || op == 0xc6 || op == 0xc7)
		return pc + (int16_t)(c[pc + 1] << 8 | c[pc + 2]) == 0;
	if (op == 0xc8 || op == 0xc9)
		return pc + be32(c + pc + 1) == 0;
	if (op != 0xaa && op != 0xab)
		return 0;
	p = (pc + 4) & ~3;
	if (pc + be32(c + p) == 0)
		return 1;
	for (int q = p + (op == 0xaa ? 12 : 12); q + 4 <= pc + n; q += op == 0xaa ? 4 : 8)
		if (pc + be32(c + q) == 0)
			return 1;
	return 0;
}

int ap_returns(const unsigned char *code, int len, int *out, int max, int *loop_at_0)
{
	int n = 0;

	*loop_at_0 = 0;
	for (int pc = 0; pc < len;) {
		int k = insn_len(code, len, pc);

		if (!k || pc + k > len)
			return -1;
		if (code[pc] >= 0xac && code[pc] <= 0xb1 && n < max)
			out[n++] = pc;
		*loop_at_0 |= jumps_to_0(code, pc, k);
		pc += k;
	}
	return n;
}

size_t ap_utf8(const uint16_t *s, size_t n, unsigned char *out, size_t cap)
{
	size_t total = 0, k = 0;

	for (size_t i = 0; i < n; i++) {
		uint32_t c = s[i];
		unsigned char b[4];
		size_t m;

		if (c >= 0xd800 && c < 0xdc00 && i + 1 < n && s[i + 1] >= 0xdc00 && s[i + 1] < 0xe000)
			c = 0x10000 + ((c - 0xd800) << 10) + (s[++i] - 0xdc00);
		else if (c >= 0xd800 && c < 0xe000)
			c = 0xfffd;
		if (c < 0x80) {
			b[0] = (unsigned char)c;
			m = 1;
		} else if (c < 0x800) {
			b[0] = (unsigned char)(0xc0 | c >> 6);
			b[1] = (unsigned char)(0x80 | (c & 0x3f));
			m = 2;
		} else if (c < 0x10000) {
			b[0] = (unsigned char)(0xe0 | c >> 12);
			b[1] = (unsigned char)(0x80 | (c >> 6 & 0x3f));
			b[2] = (unsigned char)(0x80 | (c & 0x3f));
			m = 3;
		} else {
			b[0] = (unsigned char)(0xf0 | c >> 18);
			b[1] = (unsigned char)(0x80 | (c >> 12 & 0x3f));
			b[2] = (unsigned char)(0x80 | (c >> 6 & 0x3f));
			b[3] = (unsigned char)(0x80 | (c & 0x3f));
			m = 4;
		}
		if (k == total && total + m <= cap) {
			memcpy(out + k, b, m);
			k += m;
		}
		total += m;
	}
	return total;
}

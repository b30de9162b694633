// SPDX-License-Identifier: MIT
/* The names nearest a misspelt one: see nearest.h. */
#include <dwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../capture/die.h"
#include "nearest.h"

void names_add(struct names *l, const char *name)
{
	if (l->n == l->cap) {
		l->cap = l->cap * 2 + 64;
		l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	l->v[l->n++] = xstrdup(name);
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* An empty list has no array yet: qsort and bsearch may not take its NULL. */
void names_sort(struct names *l)
{
	size_t k = 0;

	if (l->n)
		qsort(l->v, l->n, sizeof(*l->v), str_cmp);
	for (size_t i = 0; i < l->n; i++) {
		if (k && !strcmp(l->v[k - 1], l->v[i]))
			free(l->v[i]);
		else
			l->v[k++] = l->v[i];
	}
	l->n = k;
}

int names_has(const struct names *l, const char *name)
{
	return l->n && bsearch(&name, l->v, l->n, sizeof(*l->v), str_cmp);
}

void names_free(struct names *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

/* Levenshtein distance, or @cap + 1 once it is surely above @cap. */
static size_t distance(const char *a, const char *b, size_t cap)
{
	size_t la = strlen(a), lb = strlen(b), *row, d;

	if ((la > lb ? la - lb : lb - la) > cap)
		return cap + 1;
	row = xmalloc((lb + 1) * sizeof(*row));
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0], low;

		row[0] = low = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
			if (best < low)
				low = best;
		}
		if (low > cap)
			break;
	}
	d = row[lb];
	free(row);
	return d;
}

/* The part after the last '.' or Rust's "::" (a method's or function's own name). */
static const char *last_part(const char *name)
{
	const char *dot = strrchr(name, '.'), *p, *colons = NULL;

	for (p = name; (p = strstr(p, "::")); p += 2)
		colons = p + 1;
	if (colons && (!dot || colons > dot))
		dot = colons;
	return dot ? dot + 1 : name;
}

/*
 * @name as a spec writes it: in double quotes if it holds a blank or a
 * '#' (Rust's <T as Trait>::f, {closure#0}; docs/probes.md), for "%s%s%s".
 */
#define QUOTE(name) strpbrk(name, " \t#") ? "\"" : "", name, strpbrk(name, " \t#") ? "\"" : ""

/*
 * Up to three names of @l nearest @name: within a third of its length
 * (at least 2 edits), else those with its last component; the nearest
 * first, then by name.
 */
const char *names_nearest(const struct names *l, const char *name)
{
	static char buf[1024];
	size_t cap = strlen(name) / 3 > 2 ? strlen(name) / 3 : 2;
	const char *best[3];
	size_t dist[3], nbest = 0;
	int n;

	for (size_t i = 0; i < l->n; i++) {
		size_t d = distance(name, l->v[i], cap), k = 0;

		if (d > cap && strcmp(last_part(name), last_part(l->v[i])))
			continue;
		while (k < nbest && dist[k] <= d)
			k++;
		if (k == 3)
			continue;
		for (size_t j = nbest < 3 ? nbest : 2; j > k; j--) {
			best[j] = best[j - 1];
			dist[j] = dist[j - 1];
		}
		best[k] = l->v[i];
		dist[k] = d;
		nbest += nbest < 3;
	}
	if (!nbest)
		return "";
	n = snprintf(buf, sizeof(buf), " (did you mean %s%s%s", QUOTE(best[0]));
	for (size_t k = 1; k < nbest && n > 0 && (size_t)n < sizeof(buf); k++)
		n += snprintf(buf + n, sizeof(buf) - n, "%s%s%s%s",
			      k + 1 < nbest ? ", " : " or ", QUOTE(best[k]));
	if (n > 0 && (size_t)n < sizeof(buf))
		snprintf(buf + n, sizeof(buf) - n, "?)");
	return buf;
}

const char *nearest_child(Dwarf_Die *parent, int tag, const char *name)
{
	struct names l = { 0 };
	Dwarf_Die c;
	const char *s;

	if (dwarf_child(parent, &c) == 0) {
		do {
			Dwarf_Attribute a;
			const char *n = dwarf_formstring(dwarf_attr_integrate(&c, DW_AT_name, &a));

			if (dwarf_tag(&c) == tag && n)
				names_add(&l, n);
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	names_sort(&l);
	s = names_nearest(&l, name);
	names_free(&l);
	return s;
}

// SPDX-License-Identifier: MIT
/*
 * The coverage matrix as SVG: pre-state classes down, action classes
 * across, each cell coloured covered (some window changed the state),
 * identity-only (every window left the state as it was), reachable but
 * not covered, impossible (white, struck through) or observed never
 * completing (no window, calls that never returned: their count).  Integer coordinates from label lengths only, so the
 * same report always draws the same bytes.
 */
#include <string.h>
#include "audit.h"

#define CELL_W 40
#define CELL_H 26
#define MARGIN 12
#define CHAR_W 7          /* estimate for 12px sans-serif */
#define TITLE_H 28
#define LEGEND_H 40

enum kind { MISSING, IDENTITY, COVERED, IMPOSSIBLE, NEVER, NKINDS };

static const char *const fills[NKINDS] = {
	"#e0e0e0", "#ffca28", "#43a047", "#ffffff", "#8e24aa",
};
static const char *const kinds[NKINDS] = {
	"reachable, not covered", "identity only", "covered", "impossible",
	"observed, never completing",
};
/* the legend's order */
static const enum kind legend[NKINDS] = {
	COVERED, IDENTITY, MISSING, NEVER, IMPOSSIBLE,
};

static void escaped(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			strbuf_addstr(sb, "&lt;");
		else if (*s == '>')
			strbuf_addstr(sb, "&gt;");
		else if (*s == '&')
			strbuf_addstr(sb, "&amp;");
		else if (*s == '"')
			strbuf_addstr(sb, "&quot;");
		else
			strbuf_add(sb, s, 1);
	}
}

static int longest(const cJSON *labels)
{
	const cJSON *v;
	int n = 0;

	cJSON_ArrayForEach(v, labels)
		if ((int)strlen(v->valuestring) > n)
			n = (int)strlen(v->valuestring);
	return n;
}

/* The cell at (@pre, @action) in the report's list @list, or NULL. */
static const cJSON *cell(const cJSON *cov, const char *list, const char *pre,
			 const char *action)
{
	const cJSON *c;

	cJSON_ArrayForEach(c, json_get(cov, list))
		if (!strcmp(json_get_str(c, "pre"), pre) &&
		    !strcmp(json_get_str(c, "action"), action))
			return c;
	return NULL;
}

/* What cell (@pre, @action) shows, and the count it shows in *@n. */
static enum kind cell_kind(const cJSON *cov, const char *pre,
			   const char *action, long long *n)
{
	const cJSON *c = cell(cov, "cells", pre, action);

	if (c) {
		*n = report_n(c, "windows");
		return report_n(c, "identity") == *n ? IDENTITY : COVERED;
	}
	c = cell(cov, "never_completing", pre, action);
	*n = report_n(c, "calls");
	if (c)
		return NEVER;
	return cell(cov, "impossible", pre, action) ? IMPOSSIBLE : MISSING;
}

/* The impossible mark: a stroke across the box at (@x, @y), @w by @h. */
static void strike(struct strbuf *sb, int x, int y, int w, int h)
{
	strbuf_addf(sb, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
		    "stroke=\"#9e9e9e\"/>\n", x, y + h, x + w, y);
}

static void draw_cell(struct strbuf *sb, const cJSON *cov, const char *pre,
		      const char *action, int x, int y)
{
	long long n;
	enum kind kind = cell_kind(cov, pre, action, &n);

	strbuf_addf(sb, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
		    "fill=\"%s\" stroke=\"#ffffff\"/>\n", x, y, CELL_W, CELL_H,
		    fills[kind]);
	if (kind == IMPOSSIBLE)
		strike(sb, x + 2, y + 2, CELL_W - 4, CELL_H - 4);
	else if (kind != MISSING)
		strbuf_addf(sb, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\"%s>"
			    "%lld</text>\n", x + CELL_W / 2, y + CELL_H / 2 + 4,
			    kind == NEVER ? " fill=\"#ffffff\"" : "", n);
}

static int legend_width(void)
{
	int w = MARGIN;

	for (int k = 0; k < NKINDS; k++)
		w += 22 + CHAR_W * (int)strlen(kinds[k]) + 24;
	return w;
}

static void draw_legend(struct strbuf *sb, int y)
{
	int x = MARGIN;

	for (int i = 0; i < NKINDS; i++) {
		enum kind k = legend[i];

		strbuf_addf(sb, "<rect x=\"%d\" y=\"%d\" width=\"16\" height=\"16\" "
			    "fill=\"%s\" stroke=\"#9e9e9e\"/>\n<text x=\"%d\" "
			    "y=\"%d\">%s</text>\n", x, y, fills[k], x + 22,
			    y + 13, kinds[k]);
		if (k == IMPOSSIBLE)
			strike(sb, x, y, 16, 16);
		x += 22 + CHAR_W * (int)strlen(kinds[k]) + 24;
	}
}

void audit_write_svg(struct strbuf *sb, const cJSON *rep)
{
	const cJSON *cov = json_get(rep, "coverage");
	const cJSON *rows = json_get(cov, "rows"), *cols = json_get(cov, "columns");
	const cJSON *r, *c;
	long long covered = 0, observed = 0, reachable = 0, total = 0;
	int left = MARGIN + CHAR_W * longest(rows) + 8;
	int top = MARGIN + TITLE_H + CHAR_W * longest(cols) + 8;
	int ncols = cJSON_GetArraySize(cols), nrows = cJSON_GetArraySize(rows);
	int width = left + ncols * CELL_W + MARGIN;
	int height = top + nrows * CELL_H + LEGEND_H + MARGIN;
	int x, y;

	json_get_int(cov, "covered", &covered);
	json_get_int(cov, "observed", &observed);
	json_get_int(cov, "reachable", &reachable);
	json_get_int(cov, "total", &total);
	if (width < legend_width())
		width = legend_width();
	strbuf_addf(sb, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		    "height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, "
		    "sans-serif\" font-size=\"12\">\n<rect width=\"100%%\" "
		    "height=\"100%%\" fill=\"#ffffff\"/>\n", width, height, width,
		    height);
	strbuf_addf(sb, "<text x=\"%d\" y=\"%d\" font-size=\"15\">", MARGIN,
		    MARGIN + 14);
	escaped(sb, json_get_str(rep, "system"));
	if (cov && cJSON_IsObject(cov))
		strbuf_addf(sb, ": %lld/%lld reachable combinations observed "
			    "(%lld never completing; %lld impossible of %lld)",
			    observed, reachable, observed - covered,
			    total - reachable, total);
	else
		strbuf_addstr(sb, ": no audit domain");
	strbuf_addstr(sb, "</text>\n");
	x = left;
	cJSON_ArrayForEach(c, cols) {
		strbuf_addf(sb, "<text transform=\"translate(%d,%d) rotate(-90)\">",
			    x + CELL_W / 2 + 4, top - 6);
		escaped(sb, c->valuestring);
		strbuf_addstr(sb, "</text>\n");
		x += CELL_W;
	}
	y = top;
	cJSON_ArrayForEach(r, rows) {
		strbuf_addf(sb, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">",
			    left - 8, y + CELL_H / 2 + 4);
		escaped(sb, r->valuestring);
		strbuf_addstr(sb, "</text>\n");
		x = left;
		cJSON_ArrayForEach(c, cols) {
			draw_cell(sb, cov, r->valuestring, c->valuestring, x, y);
			x += CELL_W;
		}
		y += CELL_H;
	}
	draw_legend(sb, y + 14);
	strbuf_addstr(sb, "</svg>\n");
}

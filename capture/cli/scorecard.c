// SPDX-License-Identifier: MIT
/* The scorecard of capture grade's graders: see scorecard.h. */
#include <string.h>
#include "../audit.h"
#include "../json.h"
#include "scorecard.h"

cJSON *scorecard_new_tally(const char *action)
{
	cJSON *a = json_obj();

	json_add(a, "action", json_str(action));
	json_add(a, "windows", json_int(0));
	json_add(a, "passed", json_int(0));
	json_add(a, "failed", json_int(0));
	json_add(a, "unscoreable", json_int(0));
	json_add(a, "identity", json_int(0));
	json_add(a, "changing_scored", json_int(0));
	json_add(a, "changing_passed", json_int(0));
	return a;
}

/* Per-action tallies, an object {action: {...}} in order of appearance. */
cJSON *scorecard_tally(cJSON *actions, const char *action)
{
	cJSON *a = (cJSON *)json_get(actions, action);

	return a ? a : json_add(actions, action, scorecard_new_tally(action));
}

void scorecard_record(cJSON *a, const struct window *w, enum verdict d)
{
	static const char *const keys[] = { "passed", "failed", "unscoreable" };
	int identity = window_is_identity(w);

	json_count(a, "windows", 1);
	json_count(a, keys[d], 1);
	json_count(a, "identity", identity);
	if (!identity && d != VERDICT_UNSCOREABLE) {
		json_count(a, "changing_scored", 1);
		json_count(a, "changing_passed", d == VERDICT_PASS);
	}
}

static void print_row(FILE *f, const char *name, int w, const cJSON *a)
{
	long long n = report_n(a, "windows"), u = report_n(a, "unscoreable");
	char pass[64], changing[64], identity[64];

	fprintf(f, "  %-*s %7lld  %-18s %6lld %11lld  %-18s  %s\n", w, name, n,
		report_rate(pass, report_n(a, "passed"), n - u),
		report_n(a, "failed"), u,
		report_rate(changing, report_n(a, "changing_passed"),
			    report_n(a, "changing_scored")),
		report_rate(identity, report_n(a, "identity"), n));
}

void scorecard_print(FILE *f, const cJSON *card)
{
	const cJSON *all = json_get(card, "all"), *a;
	long long n = report_n(all, "windows");
	char buf[64];
	int w = 6;

	cJSON_ArrayForEach(a, json_get(card, "actions"))
		if ((int)strlen(json_get_str(a, "action")) > w)
			w = (int)strlen(json_get_str(a, "action"));
	fprintf(f, "grade of %s windows by '%s'\n", json_get_str(card, "system"),
		json_get_str(card, "grader"));
	fprintf(f, "  %-*s %7s  %-18s %6s %11s  %-18s  %s\n", w, "action",
		"windows", "passed", "failed", "unscoreable", "changing passed",
		"identity");
	cJSON_ArrayForEach(a, json_get(card, "actions"))
		print_row(f, json_get_str(a, "action"), w, a);
	print_row(f, "all", w, all);
	fprintf(f, "pass rate: %s\n", report_rate(buf, report_n(all, "passed"),
		n - report_n(all, "unscoreable")));
	fprintf(f, "pass rate on state-changing windows: %s\n",
		report_rate(buf, report_n(all, "changing_passed"),
			    report_n(all, "changing_scored")));
	fprintf(f, "identity base rate (post == pre): %s\n",
		report_rate(buf, report_n(all, "identity"), n));
	fprintf(f, "unscoreable: %lld\nfailed: %lld\n",
		report_n(all, "unscoreable"), report_n(all, "failed"));
	cJSON_ArrayForEach(a, json_get(card, "failures"))
		fprintf(f, "  %s:%lld: %s: %s\n", json_get_str(a, "file"),
			report_n(a, "line"), json_get_str(a, "action"),
			json_get_str(a, "why"));
}

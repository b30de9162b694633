// SPDX-License-Identifier: MIT
/*
 * What a projection's parts share (projection-rules.h): the projection
 * loaded, and the values its rules read from an event.
 */
#include <string.h>
#include "json.h"
#include "projection-rules.h"

static struct projection *current;

struct projection *projection_current(void)
{
	return current;
}

void projection_set_current(struct projection *pj)
{
	current = pj;
}

int proj_data_for(const struct proj_rule *r, int i, const char *action)
{
	const struct proj_only *o = &r->only[i];

	for (int k = 0; k < o->n; k++)
		if (!strcmp(o->action[k], action))
			return 1;
	return !o->n;
}

const cJSON *proj_value(const cJSON *ev, const struct proj_path *p)
{
	const cJSON *v = ev;

	for (int i = 0; v && i < p->n; i++)
		v = cJSON_IsObject(v) ? json_get(v, p->part[i]) : NULL;
	return v;
}

int proj_value_text(const cJSON *v, struct strbuf *sb)
{
	long long n;

	if (cJSON_IsString(v))
		strbuf_addstr(sb, v->valuestring);
	else if (cJSON_IsBool(v))
		strbuf_addstr(sb, cJSON_IsTrue(v) ? "true" : "false");
	else if (cJSON_IsNull(v))
		strbuf_addstr(sb, "null");
	else if (!json_int_value(v, &n))
		strbuf_add_int(sb, n);
	else
		return 0;
	return 1;
}

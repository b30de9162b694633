// SPDX-License-Identifier: MIT
/* A probe spec owned and freed (gospec.h); its refusals (gospec-spec.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../capture/die.h"
#include "../capture/err.h"
#include "../capture/json.h"
#include "gospec.h"
#include "gospec-spec.h"

/* The spec refused at @line (0: as a whole): EXIT_BAD_INPUT; returns -1. */
__attribute__((format(printf, 3, 4)))
int gospec_refuse(struct go_spec *s, long line, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		die(EXIT_CAPTURE_FAILED, "out of memory");
	va_end(ap);
	cap_fail_at(s->err, EXIT_BAD_INPUT, s->path, line, "%s", msg);
	free(msg);
	return -1;
}

/* What a field owns: freed with its site, or when the spec refuses it. */
void gospec_field_free(struct field *f)
{
	free(f->name);
	free(f->expr);
	free(f->rest);
	free(f->calc);
	free(f->kept_name);
	free(f->def_str);
	free(f->pre);
	free(f->variants);
	memset(f, 0, sizeof(*f));
}

void go_spec_output(struct go_spec *s, FILE *raw, FILE *events)
{
	s->raw = raw;
	s->events = events;
}

void go_spec_forget(struct go_spec *s)
{
	go_state_free(s->kept);
	s->kept = go_state_new();
	free(s->addrs);
	s->addrs = NULL;
	s->naddrs = s->addr_cap = 0;
	memset(s->addr_next, 0, sizeof(s->addr_next));
}

static void free_site(struct site *site)
{
	if (!site)
		return;
	for (int j = 0; j < site->nfields; j++)
		gospec_field_free(&site->field[j]);
	for (int j = 0; j < site->nevents; j++) {
		free(site->ev[j].name);
		free(site->ev[j].by_name);
		free(site->ev[j].by_count);
		free(site->ev[j].open_name);
		free(site->ev[j].per_name);
		free(site->ev[j].per_text);
	}
	free(site->post);
	free(site);
}

long go_spec_events(const struct go_spec *s)
{
	return s->events_written;
}

void go_spec_free(struct go_spec *s)
{
	free(s->addrs);
	for (int i = 0; i < s->nfuncs; i++) {
		free_site(s->func[i].entry);
		free_site(s->func[i].exit);
		free(s->func[i].name);
	}
	for (int i = 0; i < s->ntables; i++) {
		for (int k = 0; k < s->table[i].n; k++)
			free(s->table[i].names[k]);
		free(s->table[i].names);
		free(s->table[i].shown);
		free(s->table[i].len);
		free(s->table[i].name);
	}
	for (int i = 0; i < s->ngroups; i++) {
		for (int k = 0; k < s->group[i].n; k++)
			free(s->group[i].text[k]);
		free(s->group[i].name);
		free(s->group[i].param);
	}
	for (int i = 0; i < s->nstates; i++)
		free(s->state[i].name);
	go_state_free(s->kept);
	strbuf_release(&s->keybuf);
	go_calls_free(s->calls);
	strbuf_release(&s->line);
	free(s->key);
	free(s->path);
	free(s);
}

/* Add @name to array @a, unless it is there. */
static void add_name(cJSON *a, const char *name)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, a)
		if (!strcmp(e->valuestring, name))
			return;
	json_add(a, NULL, json_str(name));
}

/* Site @site's event @ev under @name: its written fields. */
static void schema_event(const struct go_spec *s, cJSON *events,
			 const struct site *site, const char *name)
{
	cJSON *a = (cJSON *)json_get(events, name);

	if (!a)
		a = json_add(events, name, json_arr());
	if (s->with_proc)
		add_name(a, "proc");
	for (int i = 0; i < site->nfields; i++)
		if (!site->field[i].hidden)
			add_name(a, site->field[i].name);
}

cJSON *go_spec_schema(const struct go_spec *s)
{
	cJSON *events = json_obj();

	for (int i = 0; i < s->nfuncs; i++)
		for (int k = 0; k < 2; k++) {
			const struct site *site = k ? s->func[i].exit : s->func[i].entry;

			for (int e = 0; site && e < site->nevents; e++) {
				const struct event *ev = &site->ev[e];

				if (!ev->by_table) {
					schema_event(s, events, site, ev->name);
					continue;
				}
				for (int n = 0; n < ev->by_table->n; n++)
					if (ev->by_table->shown[n])
						schema_event(s, events, site, ev->by_table->shown[n]);
			}
		}
	return events;
}

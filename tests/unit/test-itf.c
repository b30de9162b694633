// SPDX-License-Identifier: MIT
/*
 * ITF values (capture/itf.h): each declared type written as ADR-015 and
 * Quint write it, read back to the same JSON, and what has no form in the
 * other direction refused with its reason.
 */
#include <stdio.h>
#include <string.h>
#include "capture/itf.h"
#include "unit.h"

static void report(const char *name, int ok, const char *got, const char *want)
{
	if (ok)
		pass(name);
	else
		fail(name, "got %s, want %s", got, want);
}

/* The trace of the one state {"v": @value} with "v" of @type, as text. */
static int write_one(const char *type, const char *value, struct strbuf *sb,
		     struct itf_error *e)
{
	const struct itf_var types[] = { { "v", type }, { 0 } };
	const struct itf_head head = { "sys", "in", "run", types, NULL };
	char text[512];
	cJSON *state;
	struct itf_writer *w;
	int rc;

	snprintf(text, sizeof(text), "{\"v\":%s}", value);
	state = cJSON_Parse(text);
	w = itf_writer_new(&head, state);
	rc = itf_writer_open(w, sb, JSON_COMPACT, e);

	if (!rc)
		itf_writer_close(w, sb, JSON_COMPACT);
	itf_writer_free(w);
	cJSON_Delete(state);
	return rc;
}

/*
 * @value of @type is written as @itf, and reads back as @back (compact
 * JSON; NULL: @value).
 */
static void round_trip(const char *name, const char *type, const char *value,
		       const char *itf, const char *back)
{
	struct strbuf sb = STRBUF_INIT, got = STRBUF_INIT;
	struct itf_error e = { "" };
	cJSON *trace, *recs;
	long at;

	if (write_one(type, value, &sb, &e)) {
		report(name, 0, e.msg, itf);
		return;
	}
	trace = cJSON_Parse(sb.buf);
	json_write(&got, json_get(cJSON_GetArrayItem(json_get(trace, "states"), 0),
				  "v"), JSON_COMPACT);
	if (strcmp(got.buf, itf)) {
		report(name, 0, got.buf, itf);
	} else {
		recs = itf_read_trace(trace, &at, &e);
		strbuf_reset(&got);
		if (recs)
			json_write(&got, json_get(json_get(recs->child, "state"),
						  "v"), JSON_COMPACT);
		else
			strbuf_addstr(&got, e.msg);
		back = back ? back : value;
		report(name, recs && !strcmp(got.buf, back), got.buf, back);
		cJSON_Delete(recs);
	}
	cJSON_Delete(trace);
	strbuf_release(&sb);
	strbuf_release(&got);
}

/* Writing @value of @type fails, saying @why. */
static void unwritable(const char *name, const char *type, const char *value,
		       const char *why)
{
	struct strbuf sb = STRBUF_INIT;
	struct itf_error e = { "" };
	int rc = write_one(type, value, &sb, &e);

	report(name, rc && strstr(e.msg, why), rc ? e.msg : "written", why);
	strbuf_release(&sb);
}

/* The ITF value @itf of state 0 is refused, saying @why. */
static void unreadable(const char *name, const char *itf, const char *why)
{
	char text[512];
	struct itf_error e = { "" };
	cJSON *trace, *recs;
	long at;

	snprintf(text, sizeof(text), "{\"vars\":[\"v\"],\"states\":[{\"v\":%s}]}",
		 itf);
	trace = cJSON_Parse(text);
	recs = itf_read_trace(trace, &at, &e);
	report(name, !recs && at == 0 && strstr(e.msg, why),
	       recs ? "read" : e.msg, why);
	cJSON_Delete(recs);
	cJSON_Delete(trace);
}

int main(void)
{
	round_trip("an integer is a #bigint", "any", "7", "{\"#bigint\":\"7\"}", NULL);
	round_trip("-0 is 0", "any", "-0", "{\"#bigint\":\"0\"}", "0");
	round_trip("2^53 in full", "any", "9007199254740992",
		   "{\"#bigint\":\"9007199254740992\"}", NULL);
	/* the same double: compact JSON writes it as ECMAScript does */
	round_trip("beyond 2^53: the double's exact value", "any", "1e+20",
		   "{\"#bigint\":\"100000000000000000000\"}",
		   "100000000000000000000");
	round_trip("strings, booleans, lists, records", "any",
		   "{\"a\":[\"x\",true]}", "{\"a\":[\"x\",true]}", NULL);
	round_trip("set", "set", "[1,2]",
		   "{\"#set\":[{\"#bigint\":\"1\"},{\"#bigint\":\"2\"}]}", NULL);
	round_trip("set of tuples", "set(tuple)", "[[1,\"a\"]]",
		   "{\"#set\":[{\"#tup\":[{\"#bigint\":\"1\"},\"a\"]}]}", NULL);
	round_trip("list of sets", "list(set)", "[[],[true]]",
		   "[{\"#set\":[]},{\"#set\":[true]}]", NULL);
	round_trip("map of sets", "map(set)", "{\"k\":[\"x\"]}",
		   "{\"#map\":[[\"k\",{\"#set\":[\"x\"]}]]}", NULL);
	round_trip("option: None", "option", "null",
		   "{\"tag\":\"None\",\"value\":{\"#tup\":[]}}", NULL);
	round_trip("option: Some", "option(set)", "[3]",
		   "{\"tag\":\"Some\",\"value\":{\"#set\":[{\"#bigint\":\"3\"}]}}", NULL);

	unwritable("a fraction", "any", "0.5", "v: 0.5 is not an integer");
	unwritable("null not declared an option", "set(any)", "[null]",
		   "null has no ITF form");
	unwritable("a set that is no array", "set", "{}", "not an array");
	unwritable("a map that is no object", "map", "[]", "not an object");
	unwritable("a record ITF would read as a variant", "any",
		   "{\"tag\":1,\"value\":2}", "reads as a variant");
	unwritable("a record field named with #", "any", "{\"#x\":1}",
		   "ITF reserves names starting with #");

	unreadable("a #bigint no double holds", "{\"#bigint\":\"9007199254740993\"}",
		   "no double is this integer");
	unreadable("a #bigint that is no integer", "{\"#bigint\":\"1.5\"}",
		   "is not -?[0-9]+");
	unreadable("a #map key that is no string", "{\"#map\":[[1,2]]}",
		   "not a [string key, value] pair");
	unreadable("a #map key twice", "{\"#map\":[[\"a\",1],[\"a\",2]]}",
		   "#map key \"a\" twice");
	unreadable("#unserializable", "{\"#unserializable\":\"Int\"}",
		   "#unserializable has no window form");
	unreadable("a variant other than Option",
		   "{\"tag\":\"Banana\",\"value\":1}", "variant \"Banana\"");
	unreadable("a fraction", "0.5", "0.5 is not an integer");
	unreadable("null", "null", "null is not an ITF value");
	return unit_status();
}

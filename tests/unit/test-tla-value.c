// SPDX-License-Identifier: MIT
/*
 * TLA+ value text as PGo's recorder writes it (capture/readers/tla-value.h):
 * fields of nested functions, sequence lengths with separators hidden in
 * strings and brackets, and what is refused.
 */
#include <stdio.h>
#include <string.h>
#include "capture/readers/tla-value.h"
#include "unit.h"

static void expect(const char *name, int cond)
{
	check(name, cond, "false");
}

/* Field @key of @v as text, or "(none)". */
static const char *field(const char *v, const char *key)
{
	static char buf[256];
	struct tla_span out;

	if (!tla_field(tla_span(v), key, &out))
		return "(none)";
	snprintf(buf, sizeof(buf), "%.*s", (int)out.len, out.p);
	return buf;
}

/* A message of the recorder's, with a string that looks like syntax. */
static const char msg[] =
	"((\"mtype\") :> (\"cpq\") @@ (\"mcmd\") :> (((\"idx\") :> (1) @@ "
	"(\"key\") :> (\"a,b>> @@ \\\"x\\\" :>\") @@ (\"value\") :> "
	"(<<1, <<2, 3>>, {4, 5}>>))) @@ (\"msource\") :> (7))";

int main(void)
{
	struct tla_span cmd;

	expect("top-level field", !strcmp(field(msg, "mtype"), "\"cpq\""));
	expect("last field", !strcmp(field(msg, "msource"), "7"));
	expect("no such field", !strcmp(field(msg, "mdest"), "(none)"));
	expect("nested function", tla_field(tla_span(msg), "mcmd", &cmd) &&
	       cmd.len && cmd.p[0] == '(' && cmd.p[cmd.len - 1] == ')');
	{
		struct tla_span idx;

		expect("field of a nested function",
		       tla_field(cmd, "idx", &idx) && tla_nat(idx) == 1);
	}
	{
		struct tla_span key, value;

		expect("a string hides @@, :>, >> and escaped quotes",
		       tla_field(cmd, "key", &key) &&
		       tla_str_is(key, "a,b>> @@ \\\"x\\\" :>"));
		expect("sequence with nested brackets: 3 elements",
		       tla_field(cmd, "value", &value) &&
		       tla_seq_len(value) == 3);
	}
	expect("empty sequence", tla_seq_len(tla_span("<<>>")) == 0);
	expect("sequence in parentheses", tla_seq_len(tla_span(" (<<\"a\">>) ")) == 1);
	expect("a set is no sequence", tla_seq_len(tla_span("{1, 2}")) == -1);
	{
		struct tla_span q = tla_span("<<3, (<<1, 2>>), \"a,b\">>"), el;

		expect("element 0 of a sequence",
		       tla_seq_at(q, 0, &el) && tla_nat(el) == 3);
		expect("a nested element is one element",
		       tla_seq_at(q, 1, &el) && tla_seq_len(el) == 2);
		expect("a comma inside a string splits nothing",
		       tla_seq_at(q, 2, &el) && tla_str_is(el, "a,b"));
		expect("no element past the end", !tla_seq_at(q, 3, &el) &&
		       !tla_seq_at(q, -1, &el) && !tla_seq_at(tla_span("<<>>"), 0, &el));
		expect("a set has no elements", !tla_seq_at(tla_span("{1}"), 0, &el));
	}
	expect("two sequences side by side are no sequence",
	       tla_seq_len(tla_span("<<1>> \\o <<2>>")) == -1);
	expect("the empty function has no fields",
	       !tla_field(tla_span("[x \\in {} |-> x]"), "x", &cmd));
	expect("a number is no function", !tla_field(tla_span("3"), "a", &cmd));
	expect("natural number", tla_nat(tla_span("((42))")) == 42);
	expect("negative is no natural", tla_nat(tla_span("-1")) == -1);
	expect("junk after digits", tla_nat(tla_span("4x")) == -1);
	expect("(1) + (2) keeps its parentheses",
	       tla_nat(tla_span("(1) + (2)")) == -1);
	expect("booleans", tla_bool(tla_span("(TRUE)")) == 1 &&
	       tla_bool(tla_span("FALSE")) == 0 && tla_bool(tla_span("1")) == -1);
	expect("string compare is exact", !tla_str_is(tla_span("\"cpqx\""), "cpq"));
	expect("no value", tla_nat(tla_span(NULL)) == -1 &&
	       tla_seq_len(tla_span(NULL)) == -1);
	return unit_status();
}

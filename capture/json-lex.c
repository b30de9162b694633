// SPDX-License-Identifier: MIT
/* The lexemes both JSON tokenizers share (json-lex.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "die.h"
#include "json-lex.h"

/* The 4 hex digits at @p as a number; -1 if they are not. */
long json_hex_value(const char *p)
{
	long v = 0;

	for (int i = 0; i < 4; i++) {
		char c = p[i];
		int d = c >= '0' && c <= '9' ? c - '0' :
			c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;

		if (d < 0)
			return -1;
		v = v << 4 | d;
	}
	return v;
}

/*
 * Whether an escape is how json_write_string() writes the character it
 * stands for: \" \\ \b \f \n \r \t, and \u00xx for other control
 * characters.  A string whose escapes all are is written as its text.
 */
int json_written_so(const char *esc, uint32_t cp, size_t n)
{
	static const char shorts[] = "\b\f\n\r\t";

	if (n == 2)
		return esc[1] != '/';
	return cp < 0x20 && !strchr(shorts, (int)cp) &&
	       !memcmp(esc + 2, "00", 2) &&
	       !(esc[4] >= 'A' && esc[4] <= 'F') &&
	       !(esc[5] >= 'A' && esc[5] <= 'F');
}

/* A number being read: its next byte, its end, why it is not one. */
struct lex {
	const char *p, *end;
	const char *why;
};

static int fail(struct lex *s, const char *why)
{
	s->why = why;
	return -1;
}

static int digits(struct lex *s)
{
	const char *from = s->p;

	while (s->p < s->end && *s->p >= '0' && *s->p <= '9')
		s->p++;
	return s->p > from ? 0 : fail(s, "invalid JSON number");
}

/* strtod wants the text terminated. */
double json_number_value(const struct json_tokens *t, const struct json_token *k)
{
	char small[64], *buf = k->len < sizeof(small) ? small : xmalloc(k->len + 1);
	double d;

	memcpy(buf, t->text + k->start, k->len);
	buf[k->len] = '\0';
	d = strtod(buf, NULL);
	if (buf != small)
		free(buf);
	return d;
}

/*
 * A number: its text is written as it is when it is an integer of at most
 * 15 digits (exact as a double, and what write_integer() would print),
 * else through the double cJSON would have made of it.
 */
static int number(struct lex *s, const struct json_tokens *t, struct json_token *k)
{
	const char *from = s->p;
	int integer = 1;

	if (*s->p == '-')
		s->p++;
	if (s->p < s->end && *s->p == '0')
		s->p++;
	else if (digits(s))
		return -1;
	if (s->p < s->end && *s->p == '.') {
		s->p++;
		integer = 0;
		if (digits(s))
			return -1;
	}
	if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
		s->p++;
		integer = 0;
		if (s->p < s->end && (*s->p == '+' || *s->p == '-'))
			s->p++;
		if (digits(s))
			return -1;
	}
	k->type = JT_NUMBER;
	k->len = (unsigned)(s->p - from);
	k->as_is = integer && k->len - (*from == '-') <= 15 &&
		   !(k->len == 2 && *from == '-');
	if (!k->as_is && !isfinite(json_number_value(t, k)))
		return fail(s, "a JSON number out of range (not finite)");
	return 0;
}

const char *json_lex_number(const struct json_tokens *t, struct json_token *k,
			    const char *p, const char *end, const char **why)
{
	struct lex s = { .p = p, .end = end };

	number(&s, t, k);
	*why = s.why;
	return s.p;
}

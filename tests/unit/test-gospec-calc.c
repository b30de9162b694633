// SPDX-License-Identifier: MIT
/*
 * A probe spec's computed fields parsed (bpf/gospec-parse.c) and
 * evaluated (bpf/goeval.c) together: precedence, signedness, bits,
 * shifts, division, and what has no value (a division by zero, a
 * negative shift count).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "bpf/gospec.h"
#include "bpf/gospec-spec.h"
#include "capture/die.h"
#include "unit.h"

/* The fields a computation reads, and their values. */
#define FIELDS "func main.f\nentry E\n\ta i64 x.A\n\tb u64 x.B\n\tu u64 x.U\n" \
	       "\tm i64 x.M\n\tn i64 x.N\n\tz i64 x.Z\n"
enum { A, B, U, M, N, Z, CALC };

static const struct go_val vals[] = {
	[A] = { .v = (unsigned long long)-7, .have = 1 },
	[B] = { .v = 3, .have = 1 },
	[U] = { .v = 0xf0f0, .have = 1 },
	[M] = { .v = 1ull << 63, .have = 1 },       /* the most negative i64 */
	[N] = { .v = (unsigned long long)-1, .have = 1 },
	[Z] = { .v = 0, .have = 1 },
};

/*
 * "c TYPE = @expr" after the fields, evaluated: go_calc_eval()'s code,
 * the value in *@out and the field it names in *@at.  -9: not parsed.
 */
static int eval(const char *type, const char *expr, unsigned long long *out, int *at)
{
	char *path = xstrdup("/tmp/test-gospec-calc-XXXXXX");
	int fd = mkstemp(path), rc = -9;
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	struct cap_err err;
	struct go_spec *s;

	*at = -1;
	if (!f || fprintf(f, FIELDS "\tc %s = %s\n", type, expr) < 0 || fclose(f)) {
		fail(expr, "cannot write %s", path);
	} else if (!(s = go_spec_parse(path, &err))) {
		fail(expr, "refused: %s", cap_err_text(&err));
		cap_err_release(&err);
	} else {
		rc = go_calc_eval(s->func[0].entry->field[CALC].calc, vals, out, at);
		go_spec_free(s);
	}
	unlink(path);
	free(path);
	return rc;
}

/* @expr (an integer, or a bool when @is_bool) is @want. */
static void is(const char *expr, unsigned long long want, int is_bool)
{
	unsigned long long out = 0;
	int at, rc = eval(is_bool ? "bool" : "i64", expr, &out, &at);

	if (rc != -9 && (rc || out != want))
		fail(expr, "%d: %lld, not %lld", rc, (long long)out, (long long)want);
	else if (rc != -9)
		pass(expr);
}

/* @expr has no value: go_calc_eval() says @code, naming field @field. */
static void fails(const char *expr, int code, int field)
{
	unsigned long long out = 0;
	int at, rc = eval("i64", expr, &out, &at);

	if (rc != -9 && (rc != code || at != field))
		fail(expr, "%d naming %d, not %d naming %d", rc, at, code, field);
	else if (rc != -9)
		pass(expr);
}

int main(void)
{
	/* Go's precedence: *, /, %, <<, >>, & before +, -, |, ^ */
	is("1 + 2 * 3", 7, 0);
	is("(1 + 2) * 3", 9, 0);
	is("10 - 3 - 2", 5, 0);
	is("100 / 10 / 5", 2, 0);
	is("u >> 4 & 0xf", 0xf, 0);
	is("u & 0xff | 1 << 8", 0x1f0, 0);
	is("u ^ 0xffff", 0x0f0f, 0);
	is("~u & 0xffff", 0x0f0f, 0);
	is("~~u", 0xf0f0, 0);
	is("u | b * 2", 0xf0f6, 0);
	is("a & 1 == 1", 1, 1);
	/* signed: truncated division, an arithmetic >> */
	is("a / 2", (unsigned long long)-3, 0);
	is("a % 3", (unsigned long long)-1, 0);
	is("a * 3 % 4", (unsigned long long)-1, 0);
	is("a / n", 7, 0);
	is("a >> 1", (unsigned long long)-4, 0);
	is("a << 62 >> 62", 1, 0);
	is("b << 62 >> 62", 3, 0);
	is("(0 - 8) / 3", 6148914691236517202ull, 0);   /* constants: unsigned */
	is("m / n", 1ull << 63, 0);                /* Go's: wraps to itself */
	is("m % n", 0, 0);
	/* counts of 64 or more shift every bit out */
	is("u >> 64", 0, 0);
	is("a >> 70", ~0ull, 0);
	is("1 << 64", 0, 0);
	is("1 << b", 8, 0);
	/* no value */
	fails("a / z", GO_CALC_ZERO, Z);
	fails("u % (b - 3)", GO_CALC_ZERO, -1);
	fails("1 << a", GO_CALC_NEGATIVE, A);
	fails("u >> (a + 1)", GO_CALC_NEGATIVE, -1);
	return unit_status();
}

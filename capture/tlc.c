// SPDX-License-Identifier: MIT
/*
 * TLC as capture grade --tlc runs it (tlc.h): TLA+ values of JSON, the
 * constants of a TLC configuration, one TLC run, its violations.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "die.h"
#include "proc.h"
#include "tlc.h"

/* TLA+'s reserved words: no record field may be one. */
static const char *const reserved[] = {
	"ACTION", "ASSUME", "ASSUMPTION", "AXIOM", "BOOLEAN", "BY", "CASE",
	"CHOOSE", "CONSTANT", "CONSTANTS", "COROLLARY", "DEF", "DEFINE",
	"DEFS", "DOMAIN", "ELSE", "ENABLED", "EXCEPT", "EXTENDS", "FALSE",
	"HAVE", "HIDE", "IF", "IN", "INSTANCE", "LAMBDA", "LEMMA", "LET",
	"LOCAL", "MODULE", "NEW", "OBVIOUS", "OMITTED", "ONLY", "OTHER",
	"PICK", "PROOF", "PROPOSITION", "PROVE", "QED", "RECURSIVE", "STATE",
	"STRING", "SUBSET", "SUFFICES", "TAKE", "TEMPORAL", "THEN", "THEOREM",
	"TRUE", "UNCHANGED", "UNION", "USE", "VARIABLE", "VARIABLES", "WITH",
	"WITNESS", NULL
};

/* Is @s a TLA+ identifier that names a record field? */
static int field_name(const char *s)
{
	int letter = 0;

	for (const char *p = s; *p; p++) {
		if (!isalnum((unsigned char)*p) && *p != '_')
			return 0;
		letter |= isalpha((unsigned char)*p);
	}
	if (!letter || !strncmp(s, "WF_", 3) || !strncmp(s, "SF_", 3))
		return 0;
	for (int i = 0; reserved[i]; i++)
		if (!strcmp(reserved[i], s))
			return 0;
	return 1;
}

static int tla_string(struct strbuf *sb, const char *s, struct cap_err *err)
{
	strbuf_addstr(sb, "\"");
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		const char *esc = *p == '"' ? "\\\"" : *p == '\\' ? "\\\\" :
				  *p == '\n' ? "\\n" : *p == '\t' ? "\\t" :
				  *p == '\r' ? "\\r" : *p == '\f' ? "\\f" : NULL;

		if (esc)
			strbuf_addstr(sb, esc);
		else if (*p >= 0x20 && *p < 0x7f)
			strbuf_put(sb, p, 1);
		else
			return cap_fail(err, EXIT_BAD_INPUT, "the string \"%s\" "
					"has a character TLA+ strings have not "
					"(byte 0x%02x)", s, *p);
	}
	strbuf_addstr(sb, "\"");
	return 0;
}

static int tla_object(struct strbuf *sb, const cJSON *v, struct cap_err *err)
{
	const cJSON *m;
	int record = 1, first = 1;

	if (!v->child) {
		strbuf_addstr(sb, "<<>>");
		return 0;
	}
	cJSON_ArrayForEach(m, v)
		record &= field_name(m->string);
	strbuf_addstr(sb, record ? "[" : "(");
	cJSON_ArrayForEach(m, v) {
		strbuf_addstr(sb, first ? "" : record ? ", " : " @@ ");
		first = 0;
		if (record)
			strbuf_addf(sb, "%s |-> ", m->string);
		else if (tla_string(sb, m->string, err))
			return -1;
		else
			strbuf_addstr(sb, " :> ");
		if (tla_value(sb, m, err))
			return -1;
	}
	strbuf_addstr(sb, record ? "]" : ")");
	return 0;
}

int tla_value(struct strbuf *sb, const cJSON *v, struct cap_err *err)
{
	const cJSON *m;
	long long n;
	int first = 1;

	switch (v->type & 0xff) {
	case cJSON_True: strbuf_addstr(sb, "TRUE"); return 0;
	case cJSON_False: strbuf_addstr(sb, "FALSE"); return 0;
	case cJSON_String: return tla_string(sb, v->valuestring, err);
	case cJSON_Object: return tla_object(sb, v, err);
	case cJSON_Number:
		if (json_int_value(v, &n))
			return cap_fail(err, EXIT_BAD_INPUT, "the number %g is "
					"no integer: TLA+ has no literal of it",
					v->valuedouble);
		/* Naturals has no unary minus: 0 - n is what Integers' -n is. */
		strbuf_addf(sb, n < 0 ? "(0 - %lld)" : "%lld", n < 0 ? -n : n);
		return 0;
	case cJSON_Array:
		strbuf_addstr(sb, "<<");
		cJSON_ArrayForEach(m, v) {
			strbuf_addstr(sb, first ? "" : ", ");
			first = 0;
			if (tla_value(sb, m, err))
				return -1;
		}
		strbuf_addstr(sb, ">>");
		return 0;
	}
	return cap_fail(err, EXIT_BAD_INPUT, "null has no TLA+ value");
}

/* The configuration's section keywords, which end a CONSTANT section. */
static const char *const sections[] = {
	"CONSTANT", "CONSTANTS", "INIT", "NEXT", "SPECIFICATION", "INVARIANT",
	"INVARIANTS", "PROPERTY", "PROPERTIES", "CONSTRAINT", "CONSTRAINTS",
	"ACTION_CONSTRAINT", "ACTION_CONSTRAINTS", "SYMMETRY", "VIEW",
	"CHECK_DEADLOCK", "POSTCONDITION", "POSTCONDITIONS", "ALIAS", NULL
};

struct cfg_lexer {
	const char *p, *path;
	long line;
	struct cap_err *err;
};

/* Skip blanks and comments; -1 at an unclosed (* comment. */
static int cfg_skip(struct cfg_lexer *l)
{
	for (;;) {
		if (*l->p == '\n')
			l->line++;
		if (isspace((unsigned char)*l->p)) {
			l->p++;
		} else if (l->p[0] == '\\' && l->p[1] == '*') {
			while (*l->p && *l->p != '\n')
				l->p++;
		} else if (l->p[0] == '(' && l->p[1] == '*') {
			long at = l->line;
			int depth = 0;

			do {
				if (l->p[0] == '(' && l->p[1] == '*')
					depth++, l->p++;
				else if (l->p[0] == '*' && l->p[1] == ')')
					depth--, l->p++;
				else if (*l->p == '\n')
					l->line++;
				else if (!*l->p)
					return cap_fail_at(l->err, EXIT_BAD_INPUT,
							   l->path, at,
							   "unclosed (* comment");
				l->p++;
			} while (depth);
		} else {
			return 0;
		}
	}
}

/* The length of the word at @p (letters, digits, _), 0 if none. */
static size_t word_len(const char *p)
{
	size_t n = 0;

	while (isalnum((unsigned char)p[n]) || p[n] == '_')
		n++;
	return n;
}

static int is_section(const char *p, size_t n)
{
	for (int i = 0; sections[i]; i++)
		if (strlen(sections[i]) == n && !strncmp(sections[i], p, n))
			return 1;
	return 0;
}

/* After the word at @p (@n long), blanks, then "=" or "<-"? */
static int starts_statement(const char *p, size_t n)
{
	p += n;
	while (*p == ' ' || *p == '\t')
		p++;
	return (p[0] == '=' && p[1] != '=') || (p[0] == '<' && p[1] == '-');
}

/*
 * One token of a value, a string, a word or one other character, onto
 * @sb: after a blank if blanks or comments (@gap) came before it.
 */
static int cfg_token(struct cfg_lexer *l, struct strbuf *sb, int gap)
{
	const char *s = l->p;
	size_t n = word_len(s);

	if (*s == '"') {
		do {
			l->p += l->p[0] == '\\' && l->p[1] ? 2 : 1;
		} while (*l->p && *l->p != '"' && *l->p != '\n');
		if (*l->p != '"')
			return cap_fail_at(l->err, EXIT_BAD_INPUT, l->path,
					   l->line, "unclosed string");
		l->p++;
	} else {
		l->p += n ? n : 1;
	}
	if (sb->len && gap)
		strbuf_addstr(sb, " ");
	strbuf_add(sb, s, l->p - s);
	return 0;
}

static void add_constant(struct tlc_constant **out, size_t *n, const char *name,
			 size_t len, struct strbuf *stmt)
{
	*out = xrealloc(*out, (*n + 1) * sizeof(**out));
	(*out)[*n].name = xasprintf("%.*s", (int)len, name);
	(*out)[*n].stmt = xstrdup(stmt->buf);
	(*n)++;
	strbuf_reset(stmt);
}

int tlc_cfg_constants(const char *text, const char *path,
		      struct tlc_constant **out, size_t *n, struct cap_err *err)
{
	struct cfg_lexer l = { text, path, 1, err };
	struct strbuf stmt = STRBUF_INIT, other = STRBUF_INIT;
	const char *name = NULL;
	size_t name_len = 0;
	int in_constants = 0;

	*out = NULL;
	*n = 0;
	for (;;) {
		const char *before = l.p;
		size_t w;

		if (cfg_skip(&l))
			goto fail;
		w = word_len(l.p);
		if (name && (!*l.p || (w && (is_section(l.p, w) ||
					     starts_statement(l.p, w))))) {
			add_constant(out, n, name, name_len, &stmt);
			name = NULL;
		}
		if (!*l.p)
			break;
		if (w && is_section(l.p, w)) {
			in_constants = !strncmp(l.p, "CONSTANT", 8);
			l.p += w;
			continue;
		}
		if (in_constants && !name) {
			if (!w || !starts_statement(l.p, w)) {
				cap_fail_at(err, EXIT_BAD_INPUT, path, l.line,
					    "a CONSTANT statement is NAME = VALUE "
					    "or NAME <- OPERATOR");
				goto fail;
			}
			name = l.p;
			name_len = w;
		}
		strbuf_reset(&other);
		if (cfg_token(&l, in_constants ? &stmt : &other, l.p != before))
			goto fail;
	}
	strbuf_release(&stmt);
	strbuf_release(&other);
	return 0;
fail:
	strbuf_release(&stmt);
	strbuf_release(&other);
	tlc_constants_free(*out, *n);
	*out = NULL;
	*n = 0;
	return -1;
}

void tlc_constants_free(struct tlc_constant *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(c[i].name);
		free(c[i].stmt);
	}
	free(c);
}

/* "/\ @var = N" at @line: 1 with *@v. */
static int var_line(const char *line, const char *var, long *v)
{
	size_t n = strlen(var);
	char *end;

	if (strncmp(line, "/\\ ", 3) || strncmp(line + 3, var, n) ||
	    strncmp(line + 3 + n, " = ", 3))
		return 0;
	*v = strtol(line + 6 + n, &end, 10);
	return *end == '\0' || *end == '\n';
}

/* The next line of @text at *@p (NUL-terminated in place), or NULL. */
static char *next_line(char **p)
{
	char *line = *p, *nl;

	if (!*line)
		return NULL;
	nl = strchr(line, '\n');
	*p = nl ? nl + 1 : line + strlen(line);
	if (nl)
		*nl = '\0';
	return line;
}

int tlc_printed(const char *out, const char *tag, struct tlc_hit **hits,
		size_t *n, struct cap_err *err)
{
	char *text = xstrdup(out), *p = text, *line;
	char *start = xasprintf("<<\"%s\", ", tag);
	size_t len = strlen(start);
	int rc = 0;

	*hits = NULL;
	*n = 0;
	while (!rc && (line = next_line(&p))) {
		struct tlc_hit h;
		char *end;

		if (strncmp(line, start, len))
			continue;
		h.index = strtol(line + len, &end, 10);
		if (strncmp(end, ", ", 2) || (h.step = strtol(end + 2, &end, 10),
					      strcmp(end, ">>"))) {
			rc = cap_fail(err, EXIT_CAPTURE_FAILED, "TLC printed "
				      "\"%s\", not <<\"%s\", WINDOW, STEP>>",
				      line, tag);
			continue;
		}
		*hits = xrealloc(*hits, (*n + 1) * sizeof(**hits));
		(*hits)[(*n)++] = h;
	}
	free(text);
	free(start);
	if (rc) {
		free(*hits);
		*hits = NULL;
		*n = 0;
	}
	return rc;
}

long tlc_last_value(const char *out, const char *var)
{
	char *text = xstrdup(out), *p = text, *line;
	long v = -1;

	while ((line = next_line(&p)))
		var_line(line, var, &v);
	free(text);
	return v;
}

/* Does @line start what TLC says of an error of the spec or model? */
static int error_line(const char *line)
{
	return (!strncmp(line, "Error: ", 7) &&
		strncmp(line, "Error: Invariant ", 17) &&
		strcmp(line, "Error: The behavior up to this point is:")) ||
	       !strcmp(line, "***Parse Error***") ||
	       !strcmp(line, "Semantic errors:") ||
	       !strncmp(line, "Exception in thread", 19);
}

/*
 * TLC's error in @out: its first lines (until the behavior it shows), and
 * the last value of @index_var after it into *@at; NULL if none.
 */
static char *tlc_error(const char *out, const char *index_var, long *at)
{
	char *text = xstrdup(out), *p = text, *line;
	struct strbuf sb = STRBUF_INIT;
	int lines = -1;

	while ((line = next_line(&p))) {
		if (lines < 0 && error_line(line))
			lines = 0;
		if (lines < 0)
			continue;
		var_line(line, index_var, at);
		if (!strcmp(line, "Error: The behavior up to this point is:") ||
		    !strcmp(line, "Residual stack trace follows:"))
			lines = 99;
		if (lines++ >= 12 || !*line)
			continue;
		strbuf_addstr(&sb, sb.len ? "\n  " : "");
		strbuf_addstr(&sb, line);
	}
	free(text);
	if (lines < 0) {
		strbuf_release(&sb);
		return NULL;
	}
	return sb.buf;
}

int tlc_run(const struct tlc_run *r, const char *index_var, long *at,
	    int *status, struct cap_err *err)
{
	char *tmp = xasprintf("%s/tmp", r->dir), *meta = xasprintf("%s/meta", r->dir);
	char *tmpdir = xasprintf("-Djava.io.tmpdir=%s", tmp);
	char *lib = xasprintf("-DTLA-Library=%s", r->library ? r->library : "");
	/* TLC 2.15 reads -config relative to the module's directory. */
	char *cfg = xasprintf("%s.cfg", r->module);
	char *tla = xasprintf("%s/%s.tla", r->dir, r->module);
	char *out_path = xasprintf("%s/tlc.out", r->dir);
	char *err_path = xasprintf("%s/tlc.err", r->dir);
	/*
	 * A TLC run here is seconds: C1 alone and the serial collector halve
	 * its CPU (bench/tlc-grade), one window's run as much as all's.
	 */
	const char *argv[] = {
		r->java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", tmpdir,
		lib, "-cp", r->jar,
		"tlc2.TLC", "-deadlock", "-workers", "1",
		"-nowarning", "-metadir", meta, "-config", cfg, tla, NULL
	};
	struct proc_result res;
	char *out = NULL, *why = NULL;
	int rc = -1;

	*at = 0;
	if (!have_program(r->java)) {
		cap_fail(err, EXIT_ENV_MISSING, "no %s to run TLC with (Debian "
			 "package openjdk-17-jre-headless: make deps)", r->java);
		goto done;
	}
	if (!file_exists(r->jar)) {
		cap_fail(err, EXIT_ENV_MISSING, "%s: no such file (TLC's "
			 "tla2tools.jar: make pydeps, scripts/tla2tools)", r->jar);
		goto done;
	}
	if (mkdir_ok(tmp, err))
		goto done;
	res = proc_run(argv, out_path, err_path, r->timeout);
	out = read_file(out_path, NULL);
	if (res.timed_out || !res.exited) {
		cap_fail(err, EXIT_CAPTURE_FAILED, "TLC %s; its output: %s",
			 res.timed_out ? "did not finish in time (killed)" :
			 "was killed by a signal", out_path);
		goto done;
	}
	why = out ? tlc_error(out, index_var, at) : NULL;
	if (res.status == 1 && !why) {
		char *e = read_file(err_path, NULL);

		cap_fail(err, EXIT_ENV_MISSING, "java could not run TLC from %s: %s",
			 r->jar, e ? e : "(no message)");
		free(e);
		goto done;
	}
	if (why || (res.status != 0 && res.status != 12)) {
		cap_fail(err, EXIT_BAD_INPUT, "TLC stopped (exit %d) on %s: %s",
			 res.status, tla, why ? why : "see its output, tlc.out there");
		goto done;
	}
	*status = res.status;
	rc = 0;
done:
	free(why);
	free(out);
	free(tmp);
	free(meta);
	free(tmpdir);
	free(lib);
	free(cfg);
	free(tla);
	free(out_path);
	free(err_path);
	return rc;
}

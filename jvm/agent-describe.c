// SPDX-License-Identifier: MIT
/*
 * What a class or a method offers a spec (agent.h), as the running JVM
 * has it: a class's fields and methods; a method's probe sites, its
 * arguments and locals (by its LocalVariableTable, each with the lines
 * where it holds a value), its source lines with code, and the fields
 * of its class.  Each type says how a spec reads it.  The text goes to
 * capture as JW_TEXT messages, which it prints.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent.h"
#include "wire.h"

#define ACC_STATIC 0x0008
#define ACC_ENUM 0x4000

static struct {
	char buf[JW_MAX - sizeof(struct jw_head)];
	size_t len;
} out;

static void flush(void)
{
	if (out.len)
		agent_send(JW_TEXT, out.buf, out.len);
	out.len = 0;
}

static __attribute__((format(printf, 1, 2))) void say(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line))
		n = sizeof(line) - 1;
	if (out.len + (size_t)n > sizeof(out.buf))
		flush();
	memcpy(out.buf + out.len, line, (size_t)n);
	out.len += (size_t)n;
}

static jvmtiEnv *J(void)
{
	return agent.jvmti;
}

static void jfree(void *p)
{
	if (p)
		(*J())->Deallocate(J(), p);
}

/* How a spec reads a value of descriptor @sig: "long (i64)", "java.lang.String (str)". */
static void as_spec(JNIEnv *jni, jobject loader, const char *sig, char *out_, size_t cap)
{
	static const struct { char letter; const char *text; } prim[] = {
		{ 'Z', "boolean (bool)" }, { 'B', "byte (i8)" }, { 'C', "char (u16)" },
		{ 'S', "short (i16)" }, { 'I', "int (i32)" }, { 'J', "long (i64)" },
		{ 'F', "float (not read)" }, { 'D', "double (not read)" },
	};
	static const struct { const char *sig, *text; } known[] = {
		{ "Ljava/lang/String;", "java.lang.String (str)" },
		{ "Ljava/lang/Long;", "java.lang.Long (i64: its value)" },
		{ "Ljava/lang/Integer;", "java.lang.Integer (i32: its value)" },
		{ "Ljava/lang/Boolean;", "java.lang.Boolean (bool: its value)" },
		{ "Ljava/util/concurrent/atomic/AtomicLong;", "java.util.concurrent.atomic.AtomicLong (i64: its value)" },
		{ "Ljava/util/concurrent/atomic/AtomicInteger;", "java.util.concurrent.atomic.AtomicInteger (i32: its value)" },
		{ "Ljava/util/concurrent/atomic/AtomicBoolean;", "java.util.concurrent.atomic.AtomicBoolean (bool: its value)" },
	};
	char name[512];
	jclass c;

	for (size_t i = 0; i < sizeof(prim) / sizeof(prim[0]); i++)
		if (sig[0] == prim[i].letter) {
			snprintf(out_, cap, "%s", prim[i].text);
			return;
		}
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(sig, known[i].sig)) {
			snprintf(out_, cap, "%s", known[i].text);
			return;
		}
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(sig + 1, ";"), sig + 1);
	for (char *p = name; *p; p++)
		if (*p == '/')
			*p = '.';
	if (sig[0] == '[') {
		as_spec(jni, loader, sig + 1, name, sizeof(name));
		name[strcspn(name, " ")] = 0;
		snprintf(out_, cap, "%s[] (an array: len(X), X[N])", name);
		return;
	}
	c = agent_load_class(jni, name, loader);
	if (c && (*jni)->IsAssignableFrom(jni, c, agent.enum_class))
		snprintf(out_, cap, "%s (an enum: a names table of its constants)", name);
	else if (c && ((*jni)->IsAssignableFrom(jni, c, agent.collection_class) ||
		       (*jni)->IsAssignableFrom(jni, c, agent.map_class)))
		snprintf(out_, cap, "%s (len(X))", name);
	else
		snprintf(out_, cap, "%s", name);
}

static void fields(JNIEnv *jni, jclass cls, const char *prefix)
{
	jobject loader = NULL;

	(*J())->GetClassLoader(J(), cls, &loader);
	for (jclass c = cls; c; c = (*jni)->GetSuperclass(jni, c)) {
		jfieldID *f = NULL;
		jint n = 0;
		char *owner = agent_class_name(c);

		if (!strcmp(owner, "java.lang.Object") ||
		    (*J())->GetClassFields(J(), c, &n, &f) != JVMTI_ERROR_NONE) {
			free(owner);
			break;
		}
		for (jint i = 0; i < n; i++) {
			char *name = NULL, *sig = NULL, type[1024];
			jint mod = 0;

			(*J())->GetFieldName(J(), c, f[i], &name, &sig, NULL);
			(*J())->GetFieldModifiers(J(), c, f[i], &mod);
			as_spec(jni, loader, sig, type, sizeof(type));
			say("    %s%-24s %s%s%s%s\n", prefix, name, type,
			    mod & ACC_STATIC ? "  static" : "", c == cls ? "" : "  from ",
			    c == cls ? "" : owner);
			jfree(name);
			jfree(sig);
		}
		jfree(f);
		free(owner);
	}
}

static void enum_constants(JNIEnv *jni, jclass cls)
{
	jfieldID *f = NULL;
	jint n = 0;

	if (!(*jni)->IsAssignableFrom(jni, cls, agent.enum_class))
		return;
	say("  constants (names TABLE");
	(*J())->GetClassFields(J(), cls, &n, &f);
	for (jint i = 0; i < n; i++) {
		char *name = NULL;
		jint mod = 0;

		(*J())->GetFieldModifiers(J(), cls, f[i], &mod);
		if (!(mod & ACC_ENUM))
			continue;
		(*J())->GetFieldName(J(), cls, f[i], &name, NULL, NULL);
		say(" %s", name);
		jfree(name);
	}
	jfree(f);
	say("):\n");
}

static void line_range(jmethodID m, long *lo, long *hi)
{
	jvmtiLineNumberEntry *lines = NULL;
	jint n = 0;

	*lo = *hi = 0;
	(*J())->GetLineNumberTable(J(), m, &n, &lines);
	for (jint i = 0; i < n; i++) {
		if (!*lo || lines[i].line_number < *lo)
			*lo = lines[i].line_number;
		if (lines[i].line_number > *hi)
			*hi = lines[i].line_number;
	}
	jfree(lines);
}

static void describe_class(JNIEnv *jni, jclass cls, const char *name)
{
	jmethodID *m = NULL;
	jint n = 0;

	say("class %s\n", name);
	enum_constants(jni, cls);
	say("  fields (X.NAME):\n");
	fields(jni, cls, "");
	say("  methods (func %s.NAME, and NAME(DESCRIPTOR) for an overloaded one):\n", name);
	(*J())->GetClassMethods(J(), cls, &n, &m);
	for (jint i = 0; i < n; i++) {
		char *mname = NULL, *desc = NULL;
		jint mod = 0;
		long lo, hi;

		(*J())->GetMethodName(J(), m[i], &mname, &desc, NULL);
		(*J())->GetMethodModifiers(J(), m[i], &mod);
		line_range(m[i], &lo, &hi);
		if (lo)
			say("    %s%s  lines %ld-%ld%s\n", mname, desc, lo, hi,
			    mod & ACC_STATIC ? "  static" : "");
		else
			say("    %s%s  no code%s\n", mname, desc, mod & ACC_STATIC ? "  static" : "");
		jfree(mname);
		jfree(desc);
	}
	jfree(m);
}

/* The source line of @loc: the entry that starts closest before it. */
static long line_of(jmethodID m, jlocation loc)
{
	jvmtiLineNumberEntry *lines = NULL;
	jint n = 0;
	long line = 0;
	jlocation best = -1;

	(*J())->GetLineNumberTable(J(), m, &n, &lines);
	for (jint i = 0; i < n; i++)
		if (lines[i].start_location <= loc && lines[i].start_location > best) {
			best = lines[i].start_location;
			line = lines[i].line_number;
		}
	jfree(lines);
	return line;
}

static void sites(jmethodID m)
{
	jvmtiLineNumberEntry *lines = NULL;
	jint nl = 0, len = 0;
	unsigned char *code = NULL;
	int at[64], loop0 = 0, n;

	(*J())->GetLineNumberTable(J(), m, &nl, &lines);
	if ((*J())->GetBytecodes(J(), m, &len, &code) != JVMTI_ERROR_NONE ||
	    (n = ap_returns(code, len, at, 64, &loop0)) < 0) {
		say("  no bytecode\n");
		jfree(lines);
		return;
	}
	say("  probe: entry (%s), %d return%s at line%s", loop0 ?
	    "refused: its first instruction is a loop's head" : "its first instruction",
	    n, n == 1 ? "" : "s", n == 1 ? "" : "s");
	for (int i = 0; i < n; i++)
		say(" %ld", line_of(m, at[i]));
	say("\n  lines with code (func ...:LINE):");
	for (jint i = 0; i < nl; i++) {
		int seen = 0;

		for (jint k = 0; k < i; k++)
			seen |= lines[k].line_number == lines[i].line_number;
		if (!seen)
			say(" %d", lines[i].line_number);
	}
	say("\n");
	jfree(lines);
	jfree(code);
}

static void locals(JNIEnv *jni, jclass cls, jmethodID m)
{
	jvmtiLocalVariableEntry *v = NULL;
	jint n = 0;
	jobject loader = NULL;

	(*J())->GetClassLoader(J(), cls, &loader);
	if ((*J())->GetLocalVariableTable(J(), m, &n, &v) != JVMTI_ERROR_NONE) {
		say("  no LocalVariableTable (compiled without -g): this and goid only\n");
		return;
	}
	say("  arguments and locals (NAME, at the lines where each holds one):\n");
	for (jint i = 0; i < n; i++) {
		char type[1024];

		as_spec(jni, loader, v[i].signature, type, sizeof(type));
		if (v[i].start_location == 0)
			say("    %-24s %s  argument\n", v[i].name, type);
		else
			say("    %-24s %s  lines %ld-%ld\n", v[i].name, type,
			    line_of(m, v[i].start_location),
			    line_of(m, v[i].start_location + v[i].length - 1));
		jfree(v[i].name);
		jfree(v[i].signature);
		jfree(v[i].generic_signature);
	}
	jfree(v);
}

static int describe_method(JNIEnv *jni, jclass cls, const struct ap_func *f)
{
	jmethodID *m = NULL;
	jint n = 0;
	int found = 0;

	(*J())->GetClassMethods(J(), cls, &n, &m);
	for (jint i = 0; i < n; i++) {
		char *name = NULL, *desc = NULL;

		(*J())->GetMethodName(J(), m[i], &name, &desc, NULL);
		if (!strcmp(name, f->method) && (!f->desc[0] || !strcmp(f->desc, desc))) {
			say("%sfunc %s.%s%s\n", found++ ? "\n" : "", f->cls, name, desc);
			sites(m[i]);
			locals(jni, cls, m[i]);
		}
		jfree(name);
		jfree(desc);
	}
	jfree(m);
	if (found) {
		say("  fields of this (%s):\n", f->cls);
		fields(jni, cls, "this.");
	}
	return found ? 0 : -1;
}

int agent_describe(JNIEnv *jni, const char *what)
{
	struct ap_func f;
	char why[AP_WHY];
	jclass cls;
	int rc;

	agent.enum_class = (*jni)->FindClass(jni, "java/lang/Enum");
	agent.string_class = (*jni)->FindClass(jni, "java/lang/String");
	agent.collection_class = (*jni)->FindClass(jni, "java/util/Collection");
	agent.map_class = (*jni)->FindClass(jni, "java/util/Map");
	/* A class alone, or CLASS.METHOD: the class is tried whole first. */
	if ((cls = agent_load_class(jni, what, NULL))) {
		describe_class(jni, cls, what);
		flush();
		return 0;
	}
	if (ap_func_parse(what, &f, why, sizeof(why))) {
		agent_say(JW_REFUSE, 0, "no class %s on the JVM's class path", what);
		return -1;
	}
	if (!(cls = agent_load_class(jni, f.cls, NULL))) {
		agent_say(JW_REFUSE, 0, "no class %s (nor %s) on the JVM's class path", what, f.cls);
		return -1;
	}
	rc = describe_method(jni, cls, &f);
	flush();
	if (rc)
		agent_say(JW_REFUSE, 0, "%s: no method %s%s in %s", what, f.method, f.desc, f.cls);
	return rc;
}

// SPDX-License-Identifier: MIT
/*
 * The plan resolved in the running JVM (agent.h): each site's method by
 * its class and name, its locations (the first instruction, every
 * return, or a source line's code), and each read's path from `this`, a
 * local variable (by the method's LocalVariableTable at that location)
 * or the thread, through fields, array elements and casts, to a value
 * of the field's type.  Everything is typed by the declarations, as
 * javac would: a refusal names the spec's line and why.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent.h"
#include "wire.h"

#define ACC_STATIC 0x0008
#define ACC_NATIVE 0x0100
#define ACC_ABSTRACT 0x0400
#define ACC_ENUM 0x4000
#define MAX_LOCS 64

/* The method a site probes and what the reads there need of it. */
struct where {
	jmethodID method;
	jclass cls;
	jobject loader;
	int is_static;
	jvmtiLocalVariableEntry *vars;
	jint nvars;
	jlocation loc;
	long line;              /* the source line of @loc, for a message */
};

static jvmtiEnv *J(void)
{
	return agent.jvmti;
}

static void jfree(void *p)
{
	if (p)
		(*J())->Deallocate(J(), p);
}

jclass agent_load_class(JNIEnv *jni, const char *name, jobject loader)
{
	static jclass Class, Loader;
	static jmethodID for_name, system_loader, fields;
	jstring s;
	jclass c;

	if (!Class) {
		Class = (*jni)->NewGlobalRef(jni, (*jni)->FindClass(jni, "java/lang/Class"));
		Loader = (*jni)->NewGlobalRef(jni, (*jni)->FindClass(jni, "java/lang/ClassLoader"));
		for_name = (*jni)->GetStaticMethodID(jni, Class, "forName",
			"(Ljava/lang/String;ZLjava/lang/ClassLoader;)Ljava/lang/Class;");
		system_loader = (*jni)->GetStaticMethodID(jni, Loader, "getSystemClassLoader",
			"()Ljava/lang/ClassLoader;");
		fields = (*jni)->GetMethodID(jni, Class, "getDeclaredFields",
					     "()[Ljava/lang/reflect/Field;");
	}
	if (!loader)
		loader = (*jni)->CallStaticObjectMethod(jni, Loader, system_loader);
	s = (*jni)->NewStringUTF(jni, name);
	c = (*jni)->CallStaticObjectMethod(jni, Class, for_name, s, JNI_FALSE, loader);
	if ((*jni)->ExceptionCheck(jni)) {
		(*jni)->ExceptionClear(jni);
		return NULL;
	}
	/* Reflection links the class (JVMTI needs it prepared); nothing initializes it. */
	(*jni)->CallObjectMethod(jni, c, fields);
	if ((*jni)->ExceptionCheck(jni))
		(*jni)->ExceptionClear(jni);
	return c;
}

char *agent_class_name(jclass cls)
{
	char *sig = NULL, *name;
	size_t n;

	if ((*J())->GetClassSignature(J(), cls, &sig, NULL) != JVMTI_ERROR_NONE)
		return strdup("?");
	n = strlen(sig);
	name = sig[0] == 'L' ? strndup(sig + 1, n - 2) : strdup(sig);
	for (char *p = name; *p; p++)
		if (*p == '/')
			*p = '.';
	jfree(sig);
	return name;
}

/* A descriptor's type as Java writes it: J long, Ljava/lang/String; java.lang.String. */
static void type_name(const char *sig, char *out, size_t cap)
{
	static const char *const prim[] = { "Zboolean", "Bbyte", "Cchar", "Sshort", "Iint",
					    "Jlong", "Ffloat", "Ddouble", "Vvoid" };
	int dims = 0;
	size_t k;

	while (sig[dims] == '[')
		dims++;
	out[0] = 0;
	for (size_t i = 0; i < sizeof(prim) / sizeof(prim[0]); i++)
		if (sig[dims] == prim[i][0])
			snprintf(out, cap, "%s", prim[i] + 1);
	if (sig[dims] == 'L') {
		snprintf(out, cap, "%.*s", (int)strcspn(sig + dims + 1, ";"), sig + dims + 1);
		for (char *p = out; *p; p++)
			if (*p == '/')
				*p = '.';
	}
	for (int i = 0; i < dims && (k = strlen(out)) + 2 < cap; i++)
		memcpy(out + k, "[]", 3);
}

/* Edit distance of @a and @b, for "did you mean". */
static int distance(const char *a, const char *b)
{
	size_t n = strlen(b);
	int row[257], prev;

	if (n > 256 || strlen(a) > 256)
		return 1 << 20;
	for (size_t j = 0; j <= n; j++)
		row[j] = (int)j;
	for (size_t i = 1; a[i - 1]; i++) {
		prev = row[0];
		row[0] = (int)i;
		for (size_t j = 1; j <= n; j++) {
			int here = row[j];
			int best = prev + (a[i - 1] != b[j - 1]);

			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			prev = here;
		}
	}
	return row[n];
}

/* Names near @want among @names (n of them), as " (did you mean A or B?)", or "". */
static void nearest(const char *want, char **names, int n, char *out, size_t cap)
{
	int limit = (int)strlen(want) / 3 > 1 ? (int)strlen(want) / 3 : 1, k = 0;
	size_t len;

	out[0] = 0;
	for (int d = 1; d <= limit && k < 3; d++)
		for (int i = 0; i < n && k < 3; i++) {
			int seen = 0;

			for (int j = 0; j < i; j++)
				seen |= !strcmp(names[j], names[i]);
			if (seen || distance(want, names[i]) != d)
				continue;
			len = strlen(out);
			snprintf(out + len, cap - len, "%s%s", k ? " or " : " (did you mean ", names[i]);
			k++;
		}
	if (k && (len = strlen(out)) + 2 < cap)
		memcpy(out + len, "?)", 3);
}

static __attribute__((format(printf, 2, 3)))
int refuse(long line, const char *fmt, ...)
{
	char text[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	agent_say(JW_REFUSE, line, "%s", text);
	agent.refused++;
	return -1;
}

/* @cls's instance and static field @name, searched up its superclasses. */
static jfieldID find_field(JNIEnv *jni, jclass cls, const char *name, char **sig,
			   jclass *owner, int *is_static)
{
	for (jclass c = cls; c; c = (*jni)->GetSuperclass(jni, c)) {
		jfieldID *f = NULL;
		jint n = 0;

		if ((*J())->GetClassFields(J(), c, &n, &f) != JVMTI_ERROR_NONE)
			return NULL;
		for (jint i = 0; i < n; i++) {
			char *fname = NULL;
			jint mod = 0;

			(*J())->GetFieldName(J(), c, f[i], &fname, sig, NULL);
			if (!strcmp(fname, name)) {
				jfieldID id = f[i];

				(*J())->GetFieldModifiers(J(), c, id, &mod);
				*is_static = !!(mod & ACC_STATIC);
				*owner = c;
				jfree(fname);
				jfree(f);
				return id;
			}
			jfree(fname);
			jfree(*sig);
			*sig = NULL;
		}
		jfree(f);
	}
	return NULL;
}

/* Field names of @cls and its superclasses, for a message (caller frees). */
static int field_names(JNIEnv *jni, jclass cls, char ***out)
{
	int n = 0;

	*out = NULL;
	for (jclass c = cls; c; c = (*jni)->GetSuperclass(jni, c)) {
		jfieldID *f = NULL;
		jint k = 0;

		if ((*J())->GetClassFields(J(), c, &k, &f) != JVMTI_ERROR_NONE)
			break;
		*out = realloc(*out, (size_t)(n + k + 1) * sizeof(char *));
		for (jint i = 0; i < k; i++) {
			char *name = NULL;

			(*J())->GetFieldName(J(), c, f[i], &name, NULL, NULL);
			(*out)[n++] = strdup(name);
			jfree(name);
		}
		jfree(f);
	}
	return n;
}

static void free_names(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* The class a descriptor "Lpkg/C;" names, loaded through @w's loader. */
static jclass sig_class(JNIEnv *jni, const struct where *w, const char *sig)
{
	char name[512];

	type_name(sig, name, sizeof(name));
	return agent_load_class(jni, name, w->loader);
}

/* The names the LocalVariableTable gives at @w->loc, for a message. */
static void locals_there(const struct where *w, char *out, size_t cap)
{
	size_t len = 0;

	snprintf(out, cap, "%s", w->is_static ? "" : "this");
	for (jint i = 0; i < w->nvars; i++) {
		const jvmtiLocalVariableEntry *v = &w->vars[i];

		if (w->loc < v->start_location || w->loc >= v->start_location + v->length ||
		    !strcmp(v->name, "this"))
			continue;
		len = strlen(out);
		snprintf(out + len, cap - len, "%s%s", len ? ", " : "", v->name);
	}
}

/* The path's root: this, goid, or a local valid at @w->loc; its type in @sig. */
static int root(JNIEnv *jni, const struct where *w, struct jv_read *r,
		const struct ap_expr *x, char *sig, size_t cap)
{
	char there[1024];

	(void)jni;
	if (!strcmp(x->root, "goid")) {
		r->root_goid = 1;
		return x->n ? refuse(r->rd->line, "%s: goid is the thread's index, it has no fields",
				     r->rd->expr) : 0;
	}
	if (!strcmp(x->root, "this")) {
		char *name = NULL;

		if (w->is_static)
			return refuse(r->rd->line, "%s: the method is static: it has no this", r->rd->expr);
		r->root_this = 1;
		(*J())->GetClassSignature(J(), w->cls, &name, NULL);
		snprintf(sig, cap, "%s", name);
		jfree(name);
		return 0;
	}
	for (jint i = 0; i < w->nvars; i++) {
		const jvmtiLocalVariableEntry *v = &w->vars[i];

		if (strcmp(v->name, x->root) || w->loc < v->start_location ||
		    w->loc >= v->start_location + v->length)
			continue;
		r->slot = v->slot;
		snprintf(sig, cap, "%s", v->signature);
		return 0;
	}
	locals_there(w, there, sizeof(there));
	if (!w->vars)
		return refuse(r->rd->line, "%s: the class has no LocalVariableTable (compiled "
			      "without -g): only this and goid have names", r->rd->expr);
	return refuse(r->rd->line, "%s: no local %s at line %ld (there: %s)", r->rd->expr,
		      x->root, w->line, there);
}

static int field_step(JNIEnv *jni, const struct where *w, struct jv_read *r,
		      struct jv_step *st, const char *name, char *sig, size_t cap)
{
	char type[512], near[512], *fsig = NULL, **names;
	jclass cls, owner = NULL;
	int n;

	type_name(sig, type, sizeof(type));
	if (sig[0] != 'L')
		return refuse(r->rd->line, "%s: %s is a %s: it has no field %s%s", r->rd->expr,
			      type, type, name, sig[0] == '[' ? " (its length is len(X))" : "");
	if (!(cls = sig_class(jni, w, sig)))
		return refuse(r->rd->line, "%s: class %s not found", r->rd->expr, type);
	st->kind = AP_FIELD;
	st->fid = find_field(jni, cls, name, &fsig, &owner, &st->is_static);
	if (!st->fid) {
		n = field_names(jni, cls, &names);
		nearest(name, names, n, near, sizeof(near));
		free_names(names, n);
		return refuse(r->rd->line, "%s: %s has no field %s%s", r->rd->expr, type, name, near);
	}
	if (st->is_static)
		st->owner = (*jni)->NewGlobalRef(jni, owner);
	snprintf(sig, cap, "%s", fsig);
	jfree(fsig);
	st->sig = sig[0];
	return 0;
}

static int path(JNIEnv *jni, const struct where *w, struct jv_read *r,
		const struct ap_expr *x, char *sig, size_t cap)
{
	char type[512];

	for (int i = 0; i < x->n; i++) {
		struct jv_step *st = &r->step[r->nsteps++];

		if (x->step[i].kind == AP_FIELD) {
			if (field_step(jni, w, r, st, x->step[i].name, sig, cap))
				return -1;
			continue;
		}
		type_name(sig, type, sizeof(type));
		st->kind = x->step[i].kind;
		if (st->kind == AP_INDEX) {
			if (sig[0] != '[')
				return refuse(r->rd->line, "%s: %s is no array: it has no element [%ld]",
					      r->rd->expr, type, x->step[i].index);
			st->index = x->step[i].index;
			memmove(sig, sig + 1, strlen(sig));
			st->sig = sig[0];
			continue;
		}
		if (sig[0] != 'L' && sig[0] != '[')
			return refuse(r->rd->line, "%s: %s is no object to cast", r->rd->expr, type);
		st->owner = agent_load_class(jni, x->step[i].name, w->loader);
		if (!st->owner)
			return refuse(r->rd->line, "%s: .(%s): no such class", r->rd->expr,
				      x->step[i].name);
		st->owner = (*jni)->NewGlobalRef(jni, st->owner);
		snprintf(sig, cap, "L%s;", x->step[i].name);
		for (char *p = sig; *p; p++)
			if (*p == '.')
				*p = '/';
		st->sig = 'L';
	}
	return 0;
}

/* The spec's type of a read, as a message names it (i64, u16, bool). */
static void want_name(const struct ap_read *rd, char *out, size_t cap)
{
	if (rd->kind == 'b')
		snprintf(out, cap, "bool");
	else
		snprintf(out, cap, "%c%d", rd->kind == 's' ? 'i' : 'u', 8 * rd->size);
}

/* A primitive's letter as the spec's types: its kind and size. */
static int prim_fits(char p, const struct ap_read *rd)
{
	switch (p) {
	case 'Z': return rd->kind == 'b';
	case 'B': return rd->kind != 'b' && rd->size == 1;
	case 'C': return rd->kind == 'u' && rd->size == 2;
	case 'S': return rd->kind == 's' && rd->size == 2;
	case 'I': return rd->kind == 's' && rd->size == 4;
	case 'J': return rd->kind == 's' && rd->size == 8;
	default: return 0;
	}
}

static const char *prim_as(char p)
{
	switch (p) {
	case 'Z': return "bool";
	case 'B': return "i8";
	case 'C': return "u16";
	case 'S': return "i16";
	case 'I': return "i32";
	case 'J': return "i64";
	default: return "no integer";
	}
}

/* The classes read by their value field, and that field's letter. */
static const struct { const char *cls; char letter; } boxes[] = {
	{ "java/lang/Boolean", 'Z' }, { "java/lang/Byte", 'B' }, { "java/lang/Character", 'C' },
	{ "java/lang/Short", 'S' }, { "java/lang/Integer", 'I' }, { "java/lang/Long", 'J' },
	{ "java/util/concurrent/atomic/AtomicBoolean", 'Z' },
	{ "java/util/concurrent/atomic/AtomicInteger", 'I' },
	{ "java/util/concurrent/atomic/AtomicLong", 'J' },
};

/* An enum's every constant must be one of the table's names. */
static int enum_table(JNIEnv *jni, jclass cls, struct jv_read *r, const char *type)
{
	const struct ap_read *rd = r->rd;
	jfieldID *f = NULL;
	jint n = 0;
	int rc = 0;

	(*J())->GetClassFields(J(), cls, &n, &f);
	for (jint i = 0; i < n && !rc; i++) {
		char *name = NULL;
		jint mod = 0;
		int k;

		(*J())->GetFieldModifiers(J(), cls, f[i], &mod);
		if (!(mod & ACC_ENUM))
			continue;
		(*J())->GetFieldName(J(), cls, f[i], &name, NULL, NULL);
		for (k = 0; k < rd->nnames && (!rd->names[k] || strcmp(rd->names[k], name)); k++)
			;
		if (k == rd->nnames)
			rc = refuse(rd->line, "%s: constant %s of enum %s is not in the field's names table",
				    rd->expr, name, type);
		jfree(name);
	}
	jfree(f);
	r->final = JV_ENUM;
	r->enum_name = (*jni)->GetFieldID(jni, agent.enum_class, "name", "Ljava/lang/String;");
	return rc;
}

/* An object at the end of the path: its length, a String, a box, an enum, nil. */
static int object_final(JNIEnv *jni, const struct where *w, struct jv_read *r,
			const struct ap_expr *x, const char *sig)
{
	const struct ap_read *rd = r->rd;
	char type[512], want[16];
	jclass cls = sig[0] == 'L' ? sig_class(jni, w, sig) : NULL;

	type_name(sig, type, sizeof(type));
	want_name(rd, want, sizeof(want));
	if (rd->flags & (JW_READ_NIL | JW_READ_NOT_NIL)) {
		r->final = JV_NIL;
		return 0;
	}
	if (x->is_len) {
		if (rd->kind == 'b' || (!(rd->flags & JW_READ_LEN) && (rd->kind != 's' || rd->size != 8)))
			return refuse(rd->line, "%s is an i64, as Go's len, not %s", rd->expr, want);
		if (sig[0] == '[')
			r->final = JV_ARRAY_LEN;
		else if (cls && (*jni)->IsAssignableFrom(jni, cls, agent.string_class))
			r->final = JV_STR_LEN;
		else if (cls && (*jni)->IsAssignableFrom(jni, cls, agent.collection_class))
			r->final = JV_SIZE, r->size = agent.collection_size;
		else if (cls && (*jni)->IsAssignableFrom(jni, cls, agent.map_class))
			r->final = JV_SIZE, r->size = agent.map_size;
		else
			return refuse(rd->line, "%s: %s has no length (an array, a String, a "
				      "Collection or a Map has)", rd->expr, type);
		return 0;
	}
	if (rd->word >= 0) {
		if (!cls || !(*jni)->IsAssignableFrom(jni, cls, agent.string_class))
			return refuse(rd->line, "%s is %s: a str field reads a String", rd->expr, type);
		r->final = JV_STR_WORD;
		return 0;
	}
	if (cls && (*jni)->IsAssignableFrom(jni, cls, agent.enum_class) && rd->names)
		return enum_table(jni, cls, r, type);
	if (rd->names)
		return refuse(rd->line, "%s is %s: a names table names an enum's constants or an integer",
			      rd->expr, type);
	for (size_t i = 0; cls && i < sizeof(boxes) / sizeof(boxes[0]); i++) {
		jclass b = (*jni)->FindClass(jni, boxes[i].cls);

		if (!b || !(*jni)->IsSameObject(jni, b, cls))
			continue;
		r->final = JV_BOXED;
		r->prim = boxes[i].letter;
		r->box = (*jni)->GetFieldID(jni, cls, "value",
					    boxes[i].letter == 'Z' && strstr(boxes[i].cls, "atomic") ? "I" :
					    (char[]){ boxes[i].letter, 0 });
		if (!prim_fits(r->prim, rd))
			return refuse(rd->line, "%s is %s (as %s), not %s: the sizes or kinds differ",
				      rd->expr, type, prim_as(r->prim), want);
		return 0;
	}
	if (cls && (*jni)->IsAssignableFrom(jni, cls, agent.string_class))
		return refuse(rd->line, "%s is a String: read it as str", rd->expr);
	return refuse(rd->line, "%s is an object (%s): read a field of it, its len() or "
		      "whether it is nil; an address is never a value", rd->expr, type);
}

static int final(JNIEnv *jni, const struct where *w, struct jv_read *r,
		 const struct ap_expr *x, const char *sig)
{
	const struct ap_read *rd = r->rd;
	char type[512], want[16];

	if (r->root_goid) {
		r->final = JV_GOID;
		return rd->kind == 'b' || rd->size != 8 ?
		       refuse(rd->line, "goid is a u64 or i64") : 0;
	}
	if (sig[0] == 'L' || sig[0] == '[')
		return object_final(jni, w, r, x, sig);
	type_name(sig, type, sizeof(type));
	want_name(rd, want, sizeof(want));
	if (x->is_len || rd->word >= 0 || rd->flags & (JW_READ_NIL | JW_READ_NOT_NIL))
		return refuse(rd->line, "%s: a %s has no length, bytes or nil", rd->expr, type);
	r->final = JV_PRIM;
	r->prim = sig[0];
	if (sig[0] == 'F' || sig[0] == 'D')
		return refuse(rd->line, "%s is a %s: floats are not read", rd->expr, type);
	if (rd->names && sig[0] != 'Z')
		return 0;   /* a table takes an integer of any size */
	if (!prim_fits(sig[0], rd))
		return refuse(rd->line, "%s is %s (as %s), not %s: the sizes or kinds differ",
			      rd->expr, type, prim_as(sig[0]), want);
	return 0;
}

static int resolve_read(JNIEnv *jni, const struct where *w, struct jv_read *r)
{
	struct ap_expr x;
	char why[AP_WHY], sig[1024] = "";

	if (!strncmp(r->rd->expr, "~r", 2) || strstr(r->rd->expr, "(~r"))
		return refuse(r->rd->line, "%s: a Java method's result is on the operand stack at "
			      "its return, which JVMTI does not read: read what it leaves in "
			      "fields, or its caller at the next line", r->rd->expr);
	if (ap_expr_parse(r->rd->expr, &x, why, sizeof(why)))
		return refuse(r->rd->line, "%s", why);
	if (x.star)
		return refuse(r->rd->line, "%s: Java has no pointers to read through: read "
			      "the object's fields", r->rd->expr);
	if (root(jni, w, r, &x, sig, sizeof(sig)))
		return -1;
	r->root_sig = sig[0];
	if (path(jni, w, r, &x, sig, sizeof(sig)))
		return -1;
	return final(jni, w, r, &x, sig);
}

/* The method of @f in @cls: by name, and by descriptor when given. */
static jmethodID find_method(const struct ap_func *f, jclass cls, const struct ap_site *s)
{
	jmethodID *m = NULL, found = NULL;
	jint n = 0;
	char list[2048] = "", near[512], **names;
	int nfound = 0;

	if ((*J())->GetClassMethods(J(), cls, &n, &m) != JVMTI_ERROR_NONE) {
		refuse(s->func_line, "%s: class %s is not prepared", s->func, f->cls);
		return NULL;
	}
	names = calloc((size_t)n + 1, sizeof(char *));
	for (jint i = 0; i < n; i++) {
		char *name = NULL, *desc = NULL;
		size_t len = strlen(list);

		(*J())->GetMethodName(J(), m[i], &name, &desc, NULL);
		names[i] = strdup(name);
		if (!strcmp(name, f->method) && (!f->desc[0] || !strcmp(desc, f->desc))) {
			found = m[i];
			nfound++;
		}
		if (!strcmp(name, f->method))
			snprintf(list + len, sizeof(list) - len, "%s%s%s", len ? ", " : "", name, desc);
		jfree(name);
		jfree(desc);
	}
	nearest(f->method, names, n, near, sizeof(near));
	free_names(names, n);
	jfree(m);
	if (nfound == 1)
		return found;
	if (nfound > 1)
		refuse(s->func_line, "%s: %s is overloaded: name one by its descriptor (%s)",
		       s->func, f->method, list);
	else if (list[0])
		refuse(s->func_line, "%s: no %s%s in %s (it has %s)", s->func, f->method, f->desc,
		       f->cls, list);
	else
		refuse(s->func_line, "%s: no method %s in %s%s", s->func, f->method, f->cls, near);
	return NULL;
}

/* The source line of @loc: the entry that starts closest before it. */
static long line_at(jvmtiLineNumberEntry *lines, jint n, jlocation loc)
{
	long line = 0;
	jlocation best = -1;

	for (jint i = 0; i < n; i++)
		if (lines[i].start_location <= loc && lines[i].start_location > best) {
			best = lines[i].start_location;
			line = lines[i].line_number;
		}
	return line;
}

/* The locations of @s in @m: its first instruction, its returns, or a line's code. */
static int locations(const struct ap_site *s, const struct ap_func *f, jmethodID m,
		     jlocation *locs, long *lines_of)
{
	jvmtiLineNumberEntry *lines = NULL;
	jint nlines = 0, len = 0;
	unsigned char *code = NULL;
	int n = 0, loop0 = 0, at[MAX_LOCS];
	long lo = 0, hi = 0;

	(*J())->GetLineNumberTable(J(), m, &nlines, &lines);
	if ((*J())->GetBytecodes(J(), m, &len, &code) != JVMTI_ERROR_NONE ||
	    (n = ap_returns(code, len, at, MAX_LOCS, &loop0)) < 0) {
		jfree(lines);
		jfree(code);
		return refuse(s->func_line, "%s: its bytecode cannot be read", s->func);
	}
	jfree(code);
	if (f->line && s->at_exit) {
		n = refuse(s->site_line, "%s: a line is a place, not a call: it has entry events only",
			   s->func);
	} else if (f->line) {
		n = 0;
		for (jint i = 0; i < nlines; i++) {
			if (lines[i].line_number == f->line && n < MAX_LOCS)
				locs[n++] = lines[i].start_location;
			lo = !lo || lines[i].line_number < lo ? lines[i].line_number : lo;
			hi = lines[i].line_number > hi ? lines[i].line_number : hi;
		}
		if (!n)
			n = refuse(s->func_line, "%s: no code at line %ld of %s (its lines: %ld to %ld)",
				   s->func, f->line, f->method, lo, hi);
	} else if (s->at_exit) {
		for (int i = 0; i < n; i++)
			locs[i] = at[i];
	} else if (loop0) {
		n = refuse(s->func_line, "%s: its first instruction is a loop's head, run again "
			   "without a call: probe a line of it (%s:LINE)", s->func, s->func);
	} else {
		locs[0] = 0;
		n = 1;
	}
	for (int i = 0; i < n; i++)
		lines_of[i] = line_at(lines, nlines, locs[i]);
	jfree(lines);
	return n;
}

static struct jv_bp *bp_at(jmethodID m, jlocation loc)
{
	for (int i = 0; i < agent.nbps; i++)
		if (agent.bps[i].method == m && agent.bps[i].loc == loc)
			return &agent.bps[i];
	agent.bps = realloc(agent.bps, (size_t)(agent.nbps + 1) * sizeof(*agent.bps));
	agent.bps[agent.nbps] = (struct jv_bp){ .method = m, .loc = loc };
	return &agent.bps[agent.nbps++];
}

static int resolve_site(JNIEnv *jni, const struct ap_site *s)
{
	struct ap_func f;
	struct where w = { 0 };
	jlocation locs[MAX_LOCS];
	long lines[MAX_LOCS];
	char why[AP_WHY];
	jint mod = 0;
	int n, rc = 0;

	if (ap_func_parse(s->func, &f, why, sizeof(why)))
		return refuse(s->func_line, "%s", why);
	if (!(w.cls = agent_load_class(jni, f.cls, NULL)))
		return refuse(s->func_line, "%s: no class %s on the JVM's class path", s->func, f.cls);
	if (!(w.method = find_method(&f, w.cls, s)))
		return -1;
	(*J())->GetMethodModifiers(J(), w.method, &mod);
	if (mod & (ACC_NATIVE | ACC_ABSTRACT))
		return refuse(s->func_line, "%s: a %s method has no bytecode to probe", s->func,
			      mod & ACC_NATIVE ? "native" : "abstract");
	w.is_static = !!(mod & ACC_STATIC);
	(*J())->GetClassLoader(J(), w.cls, &w.loader);
	if ((*J())->GetLocalVariableTable(J(), w.method, &w.nvars, &w.vars) != JVMTI_ERROR_NONE)
		w.vars = NULL, w.nvars = 0;
	if ((n = locations(s, &f, w.method, locs, lines)) < 0)
		rc = -1;
	for (int i = 0; !rc && i < n; i++) {
		struct jv_bp *bp = bp_at(w.method, locs[i]);
		struct jv_hit *h;

		bp->hits = realloc(bp->hits, (size_t)(bp->nhits + 1) * sizeof(*bp->hits));
		h = &bp->hits[bp->nhits++];
		h->site = s;
		h->reads = calloc((size_t)s->nreads + 1, sizeof(*h->reads));
		w.loc = locs[i];
		w.line = lines[i];
		for (int k = 0; k < s->nreads && !rc; k++) {
			h->reads[k].rd = &s->reads[k];
			rc = resolve_read(jni, &w, &h->reads[k]);
		}
		if (!rc && bp->nhits == 1 &&
		    (*J())->SetBreakpoint(J(), w.method, locs[i]) != JVMTI_ERROR_NONE)
			rc = refuse(s->func_line, "%s: the JVM refused a breakpoint at %ld",
				    s->func, (long)locs[i]);
	}
	for (jint i = 0; i < w.nvars; i++) {
		jfree(w.vars[i].name);
		jfree(w.vars[i].signature);
		jfree(w.vars[i].generic_signature);
	}
	jfree(w.vars);
	return rc;
}

static jclass global_class(JNIEnv *jni, const char *name)
{
	return (*jni)->NewGlobalRef(jni, (*jni)->FindClass(jni, name));
}

int agent_resolve(JNIEnv *jni)
{
	agent.enum_class = global_class(jni, "java/lang/Enum");
	agent.string_class = global_class(jni, "java/lang/String");
	agent.collection_class = global_class(jni, "java/util/Collection");
	agent.map_class = global_class(jni, "java/util/Map");
	agent.collection_size = (*jni)->GetMethodID(jni, agent.collection_class, "size", "()I");
	agent.map_size = (*jni)->GetMethodID(jni, agent.map_class, "size", "()I");
	/* Every site, so that a check says every refusal, not only the first. */
	for (int i = 0; i < agent.plan.nsites; i++) {
		(*jni)->PushLocalFrame(jni, 256);
		resolve_site(jni, &agent.plan.sites[i]);
		(*jni)->PopLocalFrame(jni, NULL);
	}
	return agent.refused ? -1 : 0;
}

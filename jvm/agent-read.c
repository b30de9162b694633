// SPDX-License-Identifier: MIT
/*
 * A breakpoint hit (agent.h): every site at that location reads its
 * values, as its reads were resolved there, into one record in the eBPF
 * engine's format (bpf/goprobe.h: a value per slot, a nil bit for a
 * null met on the way or an index past an array's end), and writes it.
 * A value the JVM refuses to give (a JVMTI error) fails the record: the
 * agent says so (JW_FAIL) and capture fails the run.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../bpf/goprobe.h"
#include "agent.h"
#include "wire.h"

#define STR_CACHE 8
#define STR_BYTES 128           /* bpf/gospec-spec.h: STR_MAX_BYTES */

/* Strings met at one hit, each made UTF-8 once for its length and words. */
struct str_cache {
	jobject obj[STR_CACHE];
	unsigned char bytes[STR_CACHE][STR_BYTES + 8];
	size_t len[STR_CACHE];
	int n;
};

enum { NIL = 0, HAVE = 1, FAILED = -1 };

static pthread_mutex_t enum_lock = PTHREAD_MUTEX_INITIALIZER;

static struct jv_bp *find_bp(jmethodID m, jlocation loc)
{
	for (int i = 0; i < agent.nbps; i++)
		if (agent.bps[i].method == m && agent.bps[i].loc == loc)
			return &agent.bps[i];
	return NULL;
}

static int failed(const struct jv_read *r, const char *what, jvmtiError e)
{
	char *name = NULL;

	(*agent.jvmti)->GetErrorName(agent.jvmti, e, &name);
	agent_say(JW_FAIL, r->rd->line, "%s: %s: %s", r->rd->expr, what, name ? name : "?");
	if (name)
		(*agent.jvmti)->Deallocate(agent.jvmti, (unsigned char *)name);
	return FAILED;
}

/* A primitive field of @obj (or static of @owner), by its letter, as 64 bits. */
static uint64_t prim_field(JNIEnv *jni, jobject obj, jclass owner, jfieldID f, char letter)
{
	switch (letter) {
	case 'Z': return owner ? (*jni)->GetStaticBooleanField(jni, owner, f) : (*jni)->GetBooleanField(jni, obj, f);
	case 'B': return (uint64_t)(int64_t)(owner ? (*jni)->GetStaticByteField(jni, owner, f) : (*jni)->GetByteField(jni, obj, f));
	case 'C': return owner ? (*jni)->GetStaticCharField(jni, owner, f) : (*jni)->GetCharField(jni, obj, f);
	case 'S': return (uint64_t)(int64_t)(owner ? (*jni)->GetStaticShortField(jni, owner, f) : (*jni)->GetShortField(jni, obj, f));
	case 'I': return (uint64_t)(int64_t)(owner ? (*jni)->GetStaticIntField(jni, owner, f) : (*jni)->GetIntField(jni, obj, f));
	default: return (uint64_t)(owner ? (*jni)->GetStaticLongField(jni, owner, f) : (*jni)->GetLongField(jni, obj, f));
	}
}

static uint64_t prim_element(JNIEnv *jni, jarray a, jsize i, char letter)
{
	union { jboolean z; jbyte b; jchar c; jshort s; jint n; jlong j; } v = { 0 };

	switch (letter) {
	case 'Z': (*jni)->GetBooleanArrayRegion(jni, a, i, 1, &v.z); return v.z;
	case 'B': (*jni)->GetByteArrayRegion(jni, a, i, 1, &v.b); return (uint64_t)(int64_t)v.b;
	case 'C': (*jni)->GetCharArrayRegion(jni, a, i, 1, &v.c); return v.c;
	case 'S': (*jni)->GetShortArrayRegion(jni, a, i, 1, &v.s); return (uint64_t)(int64_t)v.s;
	case 'I': (*jni)->GetIntArrayRegion(jni, a, i, 1, &v.n); return (uint64_t)(int64_t)v.n;
	default: (*jni)->GetLongArrayRegion(jni, a, i, 1, &v.j); return (uint64_t)v.j;
	}
}

/*
 * The roots read at one hit, each once: HotSpot 17 reads a frame's local
 * (GetLocalObject, GetLocalInstance...) by a VM operation at a safepoint,
 * by far the dearest part of a record.
 */
#define ROOTS 16
struct roots {
	int n;
	struct {
		int is_this;
		jint slot;
		jobject obj;
		uint64_t v;
		int rc;
	} at[ROOTS];
};

static int root_read(JNIEnv *jni, jthread t, const struct jv_read *r, jobject *obj, uint64_t *v);

/* The root: the thread's index, or this or a local, read once a hit. */
static int root(JNIEnv *jni, jthread t, const struct jv_read *r, unsigned long long goid,
		struct roots *c, jobject *obj, uint64_t *v)
{
	int i;

	if (r->root_goid) {
		*v = goid;
		return HAVE;
	}
	for (i = 0; i < c->n; i++)
		if (c->at[i].is_this == r->root_this && (r->root_this || c->at[i].slot == r->slot))
			break;
	if (i == c->n) {
		int rc = root_read(jni, t, r, obj, v);

		if (c->n == ROOTS)
			return rc;
		c->at[i].is_this = r->root_this;
		c->at[i].slot = r->slot;
		c->at[i].obj = *obj;
		c->at[i].v = *v;
		c->at[i].rc = rc;
		c->n++;
	}
	*obj = c->at[i].obj;
	*v = c->at[i].v;
	return c->at[i].rc;
}

/* this, or a local of the frame at depth 0. */
static int root_read(JNIEnv *jni, jthread t, const struct jv_read *r, jobject *obj, uint64_t *v)
{
	jvmtiEnv *J = agent.jvmti;
	jvmtiError e;
	jint n = 0;
	jlong l = 0;

	(void)jni;
	if (r->root_this)
		e = (*J)->GetLocalInstance(J, t, 0, obj);
	else if (r->root_sig == 'L' || r->root_sig == '[')
		e = (*J)->GetLocalObject(J, t, 0, r->slot, obj);
	else if (r->root_sig == 'J')
		e = (*J)->GetLocalLong(J, t, 0, r->slot, &l), *v = (uint64_t)l;
	else
		e = (*J)->GetLocalInt(J, t, 0, r->slot, &n), *v = (uint64_t)(int64_t)n;
	if (e != JVMTI_ERROR_NONE)
		return failed(r, "the frame's local", e);
	if (r->root_sig == 'Z' || r->root_sig == 'C')
		*v &= r->root_sig == 'Z' ? 0xff : 0xffff;
	return HAVE;
}

/* Follow the path's steps from @obj: the object (or primitive in @v) it ends on. */
static int steps(JNIEnv *jni, const struct jv_read *r, jobject *obj, uint64_t *v)
{
	for (int i = 0; i < r->nsteps; i++) {
		const struct jv_step *st = &r->step[i];
		int last_obj = st->sig == 'L' || st->sig == '[';

		if (st->kind == AP_FIELD && st->is_static) {
			if (last_obj)
				*obj = (*jni)->GetStaticObjectField(jni, st->owner, st->fid);
			else
				*v = prim_field(jni, NULL, st->owner, st->fid, st->sig);
			continue;
		}
		if (!*obj)
			return NIL;
		if (st->kind == AP_CAST) {
			if (!(*jni)->IsInstanceOf(jni, *obj, st->owner))
				return NIL;
		} else if (st->kind == AP_FIELD && last_obj) {
			*obj = (*jni)->GetObjectField(jni, *obj, st->fid);
		} else if (st->kind == AP_FIELD) {
			*v = prim_field(jni, *obj, NULL, st->fid, st->sig);
		} else if (st->index >= (*jni)->GetArrayLength(jni, *obj)) {
			return NIL;
		} else if (last_obj) {
			*obj = (*jni)->GetObjectArrayElement(jni, *obj, (jsize)st->index);
		} else {
			*v = prim_element(jni, *obj, (jsize)st->index, st->sig);
		}
	}
	return HAVE;
}

/* @s as UTF-8, once per hit: its index in @c. */
static int utf8_of(JNIEnv *jni, jstring s, struct str_cache *c)
{
	jchar buf[STR_BYTES + 8];
	jsize n = (*jni)->GetStringLength(jni, s);
	int i;

	for (i = 0; i < c->n; i++)
		if ((*jni)->IsSameObject(jni, c->obj[i], s))
			return i;
	if (c->n == STR_CACHE)
		i = 0;   /* more strings than slots: made again */
	else
		i = c->n++;
	c->obj[i] = s;
	memset(c->bytes[i], 0, sizeof(c->bytes[i]));
	if (n <= STR_BYTES + 8) {
		(*jni)->GetStringRegion(jni, s, 0, n, buf);
		c->len[i] = ap_utf8(buf, (size_t)n, c->bytes[i], STR_BYTES);
		return i;
	}
	/* A long string: its first characters' bytes, and its whole length. */
	const jchar *all = (*jni)->GetStringCritical(jni, s, NULL);

	c->len[i] = ap_utf8(all, (size_t)n, c->bytes[i], STR_BYTES);
	(*jni)->ReleaseStringCritical(jni, s, all);
	return i;
}

static int enum_index(JNIEnv *jni, struct jv_read *r, jobject obj, uint64_t *v)
{
	const struct ap_read *rd = r->rd;
	jstring name;
	const char *text;
	int k = -1;

	pthread_mutex_lock(&enum_lock);
	for (int i = 0; i < r->nconsts && k < 0; i++)
		if ((*jni)->IsSameObject(jni, r->consts[i].obj, obj))
			k = r->consts[i].index;
	if (k < 0) {
		name = (*jni)->GetObjectField(jni, obj, r->enum_name);
		text = (*jni)->GetStringUTFChars(jni, name, NULL);
		for (k = 0; k < rd->nnames && (!rd->names[k] || strcmp(rd->names[k], text)); k++)
			;
		(*jni)->ReleaseStringUTFChars(jni, name, text);
		r->consts = realloc(r->consts, (size_t)(r->nconsts + 1) * sizeof(*r->consts));
		r->consts[r->nconsts++] = (struct jv_const){ (*jni)->NewGlobalRef(jni, obj), k };
	}
	pthread_mutex_unlock(&enum_lock);
	*v = (uint64_t)k;
	return HAVE;
}

static int eval(JNIEnv *jni, jthread t, struct jv_read *r, unsigned long long goid,
		struct roots *roots, struct str_cache *c, uint64_t *v)
{
	jobject obj = NULL;
	int rc = root(jni, t, r, goid, roots, &obj, v), k;

	if (rc != HAVE || r->final == JV_GOID)
		return rc;
	if ((rc = steps(jni, r, &obj, v)) != HAVE)
		return rc;
	/* a null met before the object tested is nil; the object itself, 0 */
	if (r->final == JV_NIL) {
		*v = obj != NULL;
		return HAVE;
	}
	if (r->final == JV_PRIM)
		return HAVE;
	if (!obj)
		return NIL;
	switch (r->final) {
	case JV_BOXED:
		*v = prim_field(jni, obj, NULL, r->box, r->prim == 'Z' ? 'I' : r->prim);
		if (r->prim == 'Z')
			*v = *v != 0;
		return HAVE;
	case JV_ENUM:
		return enum_index(jni, r, obj, v);
	case JV_ARRAY_LEN:
		*v = (uint64_t)(*jni)->GetArrayLength(jni, obj);
		return HAVE;
	case JV_SIZE:
		*v = (uint64_t)(int64_t)(*jni)->CallIntMethod(jni, obj, r->size);
		if ((*jni)->ExceptionCheck(jni)) {
			(*jni)->ExceptionClear(jni);
			agent_say(JW_FAIL, r->rd->line, "%s: its size() threw", r->rd->expr);
			return FAILED;
		}
		return HAVE;
	case JV_STR_LEN:
		*v = c->len[utf8_of(jni, obj, c)];
		return HAVE;
	default:   /* JV_STR_WORD */
		k = utf8_of(jni, obj, c);
		memcpy(v, c->bytes[k] + 8 * r->rd->word, 8);
		return HAVE;
	}
}

static void record(JNIEnv *jni, jthread t, struct jv_hit *h, unsigned long long goid)
{
	struct gp_record rec = { .site = (unsigned)h->site->id, .goid = goid,
				 .pid = (unsigned)getpid() };
	struct str_cache c = { .n = 0 };
	struct roots roots = { .n = 0 };
	int nslots = 0;

	for (int i = 0; i < h->site->nreads; i++) {
		struct jv_read *r = &h->reads[i];
		int slot = r->rd->slot;
		uint64_t v = 0;
		int rc = eval(jni, t, r, goid, &roots, &c, &v);

		if (rc == FAILED)
			return;
		if (rc == NIL)
			rec.nil_mask |= 1u << slot;
		else
			rec.val[slot] = v;
		nslots = slot + 1 > nslots ? slot + 1 : nslots;
	}
	agent_send(JW_RECORD, &rec, GP_REC_BYTES(nslots));
}

void agent_hit(JNIEnv *jni, jthread thread, jmethodID method, jlocation loc)
{
	struct jv_bp *bp = find_bp(method, loc);
	unsigned long long goid;

	if (!bp)
		return;
	goid = agent_thread_index(thread);
	(*jni)->PushLocalFrame(jni, 64);
	for (int i = 0; i < bp->nhits; i++)
		record(jni, thread, &bp->hits[i], goid);
	(*jni)->PopLocalFrame(jni, NULL);
}

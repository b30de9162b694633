/* SPDX-License-Identifier: MIT */
/*
 * What the JVM agent's files share (jvm/agent*.c): the plan resolved in
 * the running JVM (classes, methods, fields by their JVMTI and JNI ids),
 * the breakpoints that stand for its sites, and the one writer of
 * messages.  Not capture's: the agent is a shared object of its own,
 * loaded by java -agentpath (docs/zookeeper.md, "The agent").
 */
#ifndef JVM_AGENT_H
#define JVM_AGENT_H

#include <jni.h>
#include <jvmti.h>
#include <stddef.h>
#include "agent-plan.h"

/* How a read's value is taken from where its path ends. */
enum jv_final {
	JV_PRIM,        /* the primitive the path ends on */
	JV_BOXED,       /* a box's or an atomic's value field (Long, AtomicLong, ...) */
	JV_ENUM,        /* an enum constant, as its index in the read's names table */
	JV_STR_LEN,     /* a String's length in UTF-8 bytes */
	JV_STR_WORD,    /* word W of a String's UTF-8 bytes */
	JV_ARRAY_LEN,   /* an array's length */
	JV_SIZE,        /* a Collection's or Map's size() */
	JV_NIL,         /* whether the object is null (1: not) */
	JV_GOID,        /* the thread's index in its JVM */
};

struct jv_step {
	enum ap_step_kind kind;
	jfieldID fid;           /* AP_FIELD */
	int is_static;
	jclass owner;           /* a static field's class; a cast's class (global refs) */
	long index;             /* AP_INDEX */
	char sig;               /* the JVM type letter after this step: ZBCSIJFD, L or [ */
	char elem;              /* AP_INDEX: the array's element letter */
};

/* One enum constant met at a site: its object and its table index. */
struct jv_const {
	jobject obj;            /* a global ref */
	int index;
};

/* A read resolved at one breakpoint: where its value is found. */
struct jv_read {
	const struct ap_read *rd;
	int root_goid, root_this;
	jint slot;              /* a local's */
	char root_sig;
	struct jv_step step[AP_MAX_STEPS];
	int nsteps;
	enum jv_final final;
	char prim;              /* JV_PRIM, JV_BOXED: the value's letter */
	jfieldID box;           /* JV_BOXED */
	jmethodID size;         /* JV_SIZE */
	/* JV_ENUM: the constants seen so far, by object */
	struct jv_const *consts;
	int nconsts;
	jfieldID enum_name;     /* java.lang.Enum.name */
};

/* The reads of one site at one location. */
struct jv_hit {
	const struct ap_site *site;
	struct jv_read *reads;
};

struct jv_bp {
	jmethodID method;
	jlocation loc;
	struct jv_hit *hits;
	int nhits;
};

struct agent {
	jvmtiEnv *jvmti;
	int fd;                 /* the FIFO */
	char *mode, *plan_path, *out, *what;
	struct ap_plan plan;
	struct jv_bp *bps;
	int nbps;
	jclass enum_class, string_class;
	jmethodID collection_size, map_size;
	jclass collection_class, map_class;
	unsigned long long refused;
};

extern struct agent agent;

/* Write a message (jvm/wire.h): numbered, whole, in the order written. */
int agent_send(unsigned kind, const void *payload, size_t len);
/* A refusal or failure at the spec's @line: "LINE\tWHY". */
void agent_say(unsigned kind, long line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The thread's index in this JVM, from 1 in the order threads first record. */
unsigned long long agent_thread_index(jthread t);

/* Load CLASS (dots) through @loader (NULL: the system's), not initialized, linked. */
jclass agent_load_class(JNIEnv *jni, const char *name, jobject loader);
/* "Lpkg/C;" of @cls's name, "pkg.C" for a message (caller frees). */
char *agent_class_name(jclass cls);

/* Resolve the plan and set its breakpoints: 0, or -1 having refused (JW_REFUSE). */
int agent_resolve(JNIEnv *jni);
/* A breakpoint hit: every site at it makes a record. */
void agent_hit(JNIEnv *jni, jthread thread, jmethodID method, jlocation loc);
/* describe: what a class or method offers a spec, as JW_TEXT messages. */
int agent_describe(JNIEnv *jni, const char *what);

#endif

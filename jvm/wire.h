/* SPDX-License-Identifier: MIT */
/*
 * What capture and its JVM agent (jvm/agent.c, loaded by -agentpath)
 * say to each other: the agent's options, the plan capture writes (a
 * probe spec laid out as the eBPF engine lays it, bpf/gospec.h) and the
 * messages every agent writes on one FIFO.
 *
 * A message is a head and @len bytes.  Each JVM numbers its messages
 * from 0 (its HELLO) without a gap: capture checks the numbers per
 * process, so a message lost or cut is seen.  A message is at most
 * JW_MAX bytes, under PIPE_BUF, so that it reaches the FIFO whole
 * between the messages of the other JVMs writing to it.
 */
#ifndef JVM_WIRE_H
#define JVM_WIRE_H

#include <stdint.h>

#define JW_MAGIC 0x316d766aU    /* "jvm1" */
#define JW_MAX 4000             /* bytes of a message, head included */
#define JW_PLAN_HEAD "capture-jvm-plan 1"

enum jw_kind {
	JW_HELLO = 1,   /* the agent runs: its process's pid, the plan resolved */
	JW_RECORD,      /* a site was hit: a struct gp_record (bpf/goprobe.h) */
	JW_REFUSE,      /* a plan line does not resolve: "LINE\tWHY" (check, run) */
	JW_FAIL,        /* a record could not be made: "LINE\tWHY" (the run fails) */
	JW_END,         /* the JVM ends: uint64 messages before this one */
	JW_TEXT,        /* describe's text, a piece at a time */
	JW_STOP,        /* capture's own, to end its reader (never an agent's) */
};

struct jw_head {
	uint32_t magic, kind;
	uint32_t pid, len;      /* the JVM's pid; bytes after the head */
	uint64_t seq;           /* the JVM's message number, from 0 */
};

/*
 * The agent's options, -agentpath:LIB=KEY=VALUE,...: mode=run|check|
 * describe, plan=FILE (run, check), out=FIFO (every mode), what=CLASS or
 * CLASS.METHOD (describe).  check and describe resolve at VM start, say
 * so on the FIFO and end the JVM before its program runs.
 *
 * The plan, one line each, fields by tabs:
 *   capture-jvm-plan 1
 *   site ID AT_EXIT FUNC_LINE SITE_LINE FUNC
 *   read SITE SLOT LINE KIND SIZE FLAGS WORD EXPR [NAME...]
 * KIND s, u or b (signed, unsigned, bool), FLAGS the sum of JW_READ_*,
 * WORD a str's word (-1: none), the NAMEs a names table's ("-": none).
 */
enum jw_read_flags {
	JW_READ_LEN = 1,        /* a length */
	JW_READ_NIL = 2,        /* EXPR == nil */
	JW_READ_NOT_NIL = 4,    /* EXPR != nil */
};

#endif

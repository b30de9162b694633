// SPDX-License-Identifier: MIT
/*
 * capture's JVM agent: loaded by java -agentpath:LIB=OPTIONS (jvm/wire.h),
 * it reads the plan capture laid out from a probe spec, resolves each
 * site's method and each read's path when the VM has started (classes
 * loaded through the system class loader, linked, never initialized),
 * puts a JVMTI breakpoint at each site (a method's first instruction,
 * each of its returns, or the code of a source line), and at each hit
 * writes one record of the values read, in the eBPF engine's record
 * format, on the FIFO capture reads.  Only the probed methods pay: no
 * method entry or exit event is enabled, and a method with a breakpoint
 * runs in the interpreter while every other is compiled as usual.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../bpf/goprobe.h"
#include "agent.h"
#include "wire.h"

struct agent agent = { .fd = -1 };

static pthread_mutex_t send_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long long sent, threads;

int agent_send(unsigned kind, const void *payload, size_t len)
{
	char buf[JW_MAX];
	struct jw_head h = { .magic = JW_MAGIC, .kind = kind, .pid = (uint32_t)getpid(),
			     .len = (uint32_t)len };
	size_t n = sizeof(h) + len, off = 0;
	int rc = 0;

	if (n > sizeof(buf))
		return -1;
	memcpy(buf + sizeof(h), payload, len);
	pthread_mutex_lock(&send_lock);
	h.seq = sent++;
	memcpy(buf, &h, sizeof(h));
	/* Under PIPE_BUF: one write, whole, or none when capture is gone. */
	while (off < n) {
		ssize_t w = write(agent.fd, buf + off, n - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			rc = -1;
			break;
		}
		off += (size_t)w;
	}
	pthread_mutex_unlock(&send_lock);
	return rc;
}

void agent_say(unsigned kind, long line, const char *fmt, ...)
{
	char text[JW_MAX - sizeof(struct jw_head)];
	int k = snprintf(text, sizeof(text), "%ld\t", line);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text + k, sizeof(text) - (size_t)k, fmt, ap);
	va_end(ap);
	agent_send(kind, text, strlen(text));
}

unsigned long long agent_thread_index(jthread t)
{
	void *p = NULL;
	unsigned long long i;

	(*agent.jvmti)->GetThreadLocalStorage(agent.jvmti, t, &p);
	if (p)
		return (unsigned long long)(uintptr_t)p;
	/* Numbered in the order threads first record: under the writer's lock. */
	pthread_mutex_lock(&send_lock);
	i = ++threads;
	pthread_mutex_unlock(&send_lock);
	(*agent.jvmti)->SetThreadLocalStorage(agent.jvmti, t, (void *)(uintptr_t)i);
	return i;
}

/* KEY=VALUE,... into the agent's options; 0, or -1 (a word it does not know). */
static int parse_options(const char *options)
{
	char *copy = strdup(options ? options : ""), *save = NULL;

	for (char *kv = strtok_r(copy, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '='), **slot;

		if (!eq)
			goto bad;
		*eq = 0;
		slot = !strcmp(kv, "mode") ? &agent.mode : !strcmp(kv, "plan") ? &agent.plan_path :
		       !strcmp(kv, "out") ? &agent.out : !strcmp(kv, "what") ? &agent.what : NULL;
		if (!slot)
			goto bad;
		*slot = strdup(eq + 1);
	}
	free(copy);
	return agent.mode && agent.out ? 0 : -1;
bad:
	free(copy);
	return -1;
}

static void JNICALL on_breakpoint(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread,
				  jmethodID method, jlocation loc)
{
	(void)jvmti;
	agent_hit(jni, thread, method, loc);
}

/* A JVM that must not run its program (a check, a describe, a refusal). */
static void end_now(int status)
{
	unsigned long long n = sent;

	agent_send(JW_END, &n, sizeof(n));
	_exit(status);
}

static void JNICALL on_vm_init(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
	(void)thread;
	if (!strcmp(agent.mode, "describe"))
		end_now(agent_describe(jni, agent.what ? agent.what : "") ? 3 : 0);
	if (agent_resolve(jni))
		end_now(3);
	if (!strcmp(agent.mode, "check"))
		end_now(0);
	(*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_BREAKPOINT, NULL);
}

static void JNICALL on_vm_death(jvmtiEnv *jvmti, JNIEnv *jni)
{
	unsigned long long n;

	(void)jvmti;
	(void)jni;
	pthread_mutex_lock(&send_lock);
	n = sent;
	pthread_mutex_unlock(&send_lock);
	agent_send(JW_END, &n, sizeof(n));
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
	jvmtiCapabilities caps = { 0 };
	jvmtiEventCallbacks cb = { 0 };
	jvmtiEnv *jvmti;
	char why[AP_WHY];
	uint32_t pid = (uint32_t)getpid();

	(void)reserved;
	if (parse_options(options)) {
		fprintf(stderr, "capture-jvm: bad options '%s': mode=run|check|describe,out=FIFO,...\n",
			options ? options : "");
		return JNI_ERR;
	}
	agent.fd = open(agent.out, O_WRONLY | O_CLOEXEC);
	if (agent.fd < 0) {
		fprintf(stderr, "capture-jvm: %s: %s\n", agent.out, strerror(errno));
		return JNI_ERR;
	}
	if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_11) != JNI_OK) {
		fprintf(stderr, "capture-jvm: no JVMTI 11 in this JVM\n");
		return JNI_ERR;
	}
	agent.jvmti = jvmti;
	caps.can_generate_breakpoint_events = 1;
	caps.can_access_local_variables = 1;
	caps.can_get_bytecodes = 1;
	caps.can_get_line_numbers = 1;
	if ((*jvmti)->AddCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE) {
		fprintf(stderr, "capture-jvm: the JVM refuses breakpoints or local variables\n");
		return JNI_ERR;
	}
	if (strcmp(agent.mode, "describe") &&
	    ap_plan_read(agent.plan_path ? agent.plan_path : "", &agent.plan, why, sizeof(why))) {
		agent_say(JW_REFUSE, 0, "%s", why);
		return JNI_ERR;
	}
	cb.VMInit = on_vm_init;
	cb.VMDeath = on_vm_death;
	cb.Breakpoint = on_breakpoint;
	(*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof(cb));
	(*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, NULL);
	(*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_DEATH, NULL);
	agent_send(JW_HELLO, &pid, sizeof(pid));
	return JNI_OK;
}

/* SPDX-License-Identifier: MIT */
/*
 * One QEMU process for a guest boot, of the runner's set of them
 * (qemu/run.c).  Not part of the guest runner's interface.
 */
#ifndef QEMU_ATTEMPT_H
#define QEMU_ATTEMPT_H

#include "../capture/proc.h"
#include "accel.h"
#include "guest.h"

/* One boot of a guest: the caller's request, its tries, its outcome. */
struct boot_run {
	const struct guest_boot *b;
	int tries;
	int done;
	int full;           /* boot in full: no snapshot, or it failed */
	enum accel accel;   /* of the attempt that counted */
	char key[17];       /* its snapshot's key, "" if it booted in full */
	char *error;        /* the guest's CAPTURE ERROR text */
};

/* One QEMU process for a boot. */
struct attempt {
	struct boot_run *run;
	enum accel accel;
	int racing;         /* the KVM probe's TCG twin, or the probe itself */
	char *snapshot;     /* the snapshot it restores or saves, NULL for a full boot */
	char key[17];       /* that snapshot's key */
	int saving;         /* boots to /init's ready point to save @snapshot */
	char *head;         /* saving: its trace channel, @snapshot's trace part */
	int head_cleanup;   /* removes @head if we die */
	char *qmp_dir;      /* the saving QEMU's QMP socket is qmp in there */
	int qmp_cleanup;    /* removes @qmp_dir if we die */
	char *events;       /* this attempt's event channel, renamed on success */
	char *trace;        /* its trace channel, or NULL; renamed on success */
	char *console;      /* the guest's ttyS0 */
	char *qemu_err;     /* QEMU's own stderr */
	struct proc proc;
	int cleanup;        /* removes @events if we die */
	int trace_cleanup;  /* removes @trace if we die */
	/*
	 * Times on the guest's clock (attempt.c, guest_clock): launch, last
	 * progress, first life, last report of silence.
	 */
	double started, changed, life, said;
	double owed;        /* seconds QEMU waited for a CPU, left off its clock */
	double pending;     /* of which owed while the wait went on, uncounted */
	double waited, ran; /* its threads' wait and CPU time at the last look */
	double looked;      /* monotonic time of the last look */
	long long seen;     /* console + events bytes at the last look */
	char *problem;      /* why it does not count, NULL if it does */
};
/* Boot @a in full, or restore its snapshot and hand it its words. */
void attempt_launch(struct attempt *a);
/* QEMU exited: does the boot count?  Sets a->problem when it does not. */
void attempt_judge(struct attempt *a, struct proc_result r);
/* Does @a's console show @marker? */
int attempt_console_says(const struct attempt *a, const char *marker);
/*
 * A running guest's evidence at monotonic time @wall: any byte on its
 * console or event channel is progress.  Returns a problem once it has
 * been silent too long or ran out of time, both on the guest's clock (the
 * time the host gave it, attempt.c), else NULL.
 */
char *attempt_watch(struct attempt *a, double wall);
/* Seconds since @a's launch on its clock, at monotonic time @wall. */
double attempt_elapsed(const struct attempt *a, double wall);
/* Free what @a holds; its snapshot's trace part and QMP directory go. */
void attempt_free(struct attempt *a);
/* Remove what @a wrote to its channels. */
void attempt_remove_channels(const struct attempt *a);
#endif

// SPDX-License-Identifier: MIT
/* The exploration's harness runs, in batches (tries.h). */
#include <stdlib.h>
#include <unistd.h>
#include "../../capture/die.h"
#include "../../capture/proc.h"
#include "tries.h"

#define RUN_TIMEOUT 60.0

static struct try_files try_files(const char *work, const char *name)
{
	return (struct try_files){
		.scen = xasprintf("%s/%s", work, name),
		.trace = xasprintf("%s/%s.trace", work, name),
		.steps = xasprintf("%s/%s.steps", work, name),
	};
}

static void try_files_free(struct try_files *t)
{
	free(t->scen);
	free(t->trace);
	free(t->steps);
}

static void job_done(struct job *j, struct proc_result r)
{
	if (r.exited && (r.status == 0 || r.status == EXIT_BAD_INPUT)) {
		j->status = r.status;
		return;
	}
	die(EXIT_CAPTURE_FAILED, "%s %s: %s %d", j->argv[0], j->argv[1],
	    r.exited ? "exit status" : r.timed_out ? "timed out after" : "signal",
	    r.timed_out ? (int)RUN_TIMEOUT : r.status);
}

void run_batch(struct job *jobs, int n)
{
	double deadline = monotonic_seconds() + RUN_TIMEOUT;
	int left = n;

	for (int i = 0; i < n; i++) {
		/* the child inherits it: set only around its start */
		if (jobs[i].coverdir)
			setenv("GOCOVERDIR", jobs[i].coverdir, 1);
		proc_start(&jobs[i].p, jobs[i].argv, jobs[i].files->trace,
			   jobs[i].quiet ? "/dev/null" : NULL);
		if (jobs[i].coverdir)
			unsetenv("GOCOVERDIR");
		jobs[i].status = -1;
	}
	while (left) {
		struct proc_result r;

		for (int i = 0; i < n; i++)
			if (jobs[i].status < 0 && proc_poll(&jobs[i].p, &r, 0)) {
				job_done(&jobs[i], r);
				left--;
			}
		if (left && monotonic_seconds() > deadline) {
			for (int i = 0; i < n; i++)
				if (jobs[i].status < 0)
					proc_stop(&jobs[i].p);
			die(EXIT_CAPTURE_FAILED, "the harness timed out "
			    "after %d s", (int)RUN_TIMEOUT);
		}
		if (left)
			usleep(2000);
	}
}

void slots_init(struct slot *slots, const char *work)
{
	for (int i = 0; i < BATCH; i++) {
		char *name = xasprintf("candidate-%d", i + 1);

		slots[i] = (struct slot){ .f = try_files(work, name),
					  .parent = xasprintf("%s/parent-%d",
							      work, i + 1),
					  .cover = xasprintf("%s/cover-%d",
							     work, i + 1) };
		slots[i].job.files = &slots[i].f;
		/* in the work directory, as scenario_write()'s files are */
		cleanups_hold();
		mkdir_p(slots[i].cover);
		cleanups_release();
		free(name);
	}
}

void slots_free(struct slot *slots)
{
	for (int i = 0; i < BATCH; i++) {
		try_files_free(&slots[i].f);
		free(slots[i].parent);
		free(slots[i].cover);
	}
}

char *work_dir(int *cleanup)
{
	char *work = owned_tmp_in(temp_dir(), "capture-explore");

	*cleanup = mkdtemp_on_failure(work);
	if (*cleanup < 0)
		die(EXIT_CAPTURE_FAILED, "%s: cannot create", work);
	return work;
}


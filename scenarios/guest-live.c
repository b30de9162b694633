// SPDX-License-Identifier: MIT
/* Live-entry helpers of the kernel-module systems (see guest-live.h). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../capture/corpus.h"
#include "../capture/die.h"
#include "../capture/json.h"
#include "../capture/proc.h"
#include "guest-live.h"

int guest_live_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > GUEST_LIVE_MAX_JOBS ? GUEST_LIVE_MAX_JOBS : (int)n;
}

void guest_live_vary_ftrace(struct live_capture *lc)
{
	for (size_t i = 0; i < lc->n; i++) {
		char *rel = xasprintf("raw/%s.ftrace", lc->sc[i].run);
		char *path = corpus_path(lc->corpus, rel);

		if (file_exists(path))
			corpus_vary(lc->corpus, rel, "ftrace ring-buffer pages: their "
				    "time stamps differ from run to run; raw/RUN.log "
				    "is their decoding");
		free(path);
		free(rel);
	}
}

cJSON *guest_live_scenario(const struct scenario_file *f, const char *sha256,
			   const char *generated, size_t nsteps)
{
	cJSON *e = json_obj();
	char hex[65];

	if (!sha256 && sha256_file(f->path, hex))
		die_at(EXIT_BAD_INPUT, f->path, 0, "cannot read");
	json_add(e, "name", json_str(f->name));
	json_add(e, "file", json_str(f->run));
	if (generated)
		json_add(e, "generated", json_str(generated));
	json_add(e, "sha256", json_str(sha256 ? sha256 : hex));
	json_add(e, "steps", json_int((long long)nsteps));
	return e;
}

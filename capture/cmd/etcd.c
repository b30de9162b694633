// SPDX-License-Identifier: MIT
/*
 * The etcd system's eBPF driver (scenarios/etcd/driver/harness.h): the harness
 * run under the Go uprobe engine (bpf/) with the raft probe plan of
 * etcd-probes.c, which writes upstream's with_tla event stream.  It sits
 * here, beside that plan, until the plan becomes a probe spec (issue 13);
 * the rest of etcd's live side is scenarios/etcd/driver/harness.c.  So is
 * what capture etcd --live (etcd-live.c) shares with it.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../../bpf/engine.h"
#include "../../scenarios/etcd/driver/harness.h"
#include "../corpus.h"
#include "../die.h"
#include "../json.h"
#include "../live.h"
#include "../options.h"
#include "../proc.h"
#include "goprobe.skel.h"
#include "etcd-live.h"
#include "etcd-probes.h"
#include "fold-inputs.h"

enum { O_RING = 0x1300, O_HOLD, O_RESOLVE };

static const struct option ebpf_options[] = {
	{ "ring-bytes", required_argument, NULL, O_RING },
	{ "hold-ring", no_argument, NULL, O_HOLD },
	{ "resolve", required_argument, NULL, O_RESOLVE },
	{ 0 }
};

static struct {
	unsigned long ring_bytes;
	int hold_ring;
	const char *resolve;
} ebpf;

static void ebpf_option(int opt, const char *arg)
{
	if (opt == O_RING)
		ebpf.ring_bytes = option_ring_bytes(arg);
	else if (opt == O_HOLD)
		ebpf.hold_ring = 1;
	else
		ebpf.resolve = arg;
}

/* --resolve FUNC: where the engine would probe FUNC. */
static int ebpf_instead(struct live_capture *lc)
{
	struct go_binary *b;
	struct go_func f;

	(void)lc;
	if (!ebpf.resolve)
		return -1;
	b = go_open(etcd_harness(0));
	go_func(b, ebpf.resolve, &f);
	printf("%s: entry %#lx, stack check %s, %d RET site(s)\n", ebpf.resolve,
	       f.entry, f.check ? "probed at its JBE" : "none", f.nret);
	go_close(b);
	return EXIT_OK;
}

static void ebpf_prepare(struct live_capture *lc)
{
	(void)lc;
	gp_require_permission();
	etcd_harness(0);
}

/* Run the harness under the probes; its events go to @raw. */
static void run_probed(const char *bin, const char *scenario, const char *raw,
		       const char *tmp_out)
{
	struct gp_engine *e = gp_open(bin);
	FILE *out = fopen(raw, "w");
	char *argv[] = { (char *)bin, (char *)scenario, NULL };
	struct etcd_trace *t;
	size_t len = 0;
	char *stdout_text;
	int rc;

	if (!out)
		die(EXIT_CAPTURE_FAILED, "%s: cannot create", raw);
	gp_set_ring(e, ebpf.ring_bytes, ebpf.hold_ring);
	t = etcd_probes(e, out);
	rc = gp_run(e, argv, tmp_out, ETCD_HARNESS_TIMEOUT, etcd_record, t);
	etcd_harness_status(bin, scenario, rc);
	etcd_trace_end(t);
	if (fclose(out))
		die(EXIT_CAPTURE_FAILED, "%s: write error", raw);
	stdout_text = read_file(tmp_out, &len);
	if (!stdout_text || len)
		die(EXIT_CAPTURE_FAILED,
		    "%s printed %zu bytes: the probed harness must print nothing (built with with_tla?)",
		    bin, len);
	free(stdout_text);
	gp_close(e);
}

/* What was probed: the harness's build id and the BPF object's digest. */
static void describe_probes(const char *bin, cJSON *env)
{
	struct go_binary *b = go_open(bin);
	size_t sz;
	const void *obj = goprobe__elf_bytes(&sz);
	char hex[65];

	json_add(env, "harness_build_id", json_str(go_build_id(b)));
	go_close(b);
	sha256_hex(obj, sz, hex);
	json_add(env, "bpf_object_sha256", json_str(hex));
}

static void ebpf_run(struct live_capture *lc)
{
	const char *bin = etcd_harness(0);
	char *tmp_out = corpus_path(lc->corpus, ".harness-stdout");

	for (size_t i = 0; i < lc->n; i++) {
		progress("etcd %s (ebpf)", lc->sc[i].run);
		run_probed(bin, lc->sc[i].path, lc->raw[i], tmp_out);
	}
	unlink(tmp_out);
	free(tmp_out);
}

static void ebpf_describe(struct live_capture *lc)
{
	describe_probes(etcd_harness(0), lc->environment);
}

cJSON *etcd_environment(cJSON *m, const char *src, const char *bin, int probed)
{
	cJSON *env = json_add(m, "environment", json_obj());

	etcd_describe_harness(env, src, bin);
	if (probed)
		describe_probes(bin, env);
	return env;
}

void etcd_require_every_action(const struct folder *f, const cJSON *runs)
{
	/* In memory: reachable when the check dies (LeakSanitizer). */
	cJSON *volatile counts = run_counts(runs);

	etcd_require_actions(f, counts);
	cJSON_Delete(counts);
}

int etcd_takeover(int argc, char **argv)
{
	return etcd_live_wanted(argc, argv) ? cmd_etcd_live(argc, argv) : -1;
}

const struct live_driver etcd_ebpf_driver = {
	.name = "ebpf",
	.options = ebpf_options,
	.option = ebpf_option,
	.instead = ebpf_instead,
	.prepare = ebpf_prepare,
	.run = ebpf_run,
	.describe = ebpf_describe,
};

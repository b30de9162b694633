// SPDX-License-Identifier: MIT
/*
 * The eBPF driver of a raft harness (ebpf.h): the harness run under the Go
 * uprobe engine (bpf/) with its raft's probe spec (etcd's
 * scenarios/etcd/raft.probes, read by bpf/gospec.c, writes upstream's
 * with_tla event stream; another raft's spec writes the same schema).
 * What capture etcd --live (scenarios/etcd/driver/cluster.c) shares with
 * it is declared in ebpf.h.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../../bpf/engine.h"
#include "../../bpf/gospec.h"
#include "../../capture/corpus.h"
#include "../../capture/die.h"
#include "../../capture/err.h"
#include "../../capture/home.h"
#include "../../capture/json.h"
#include "../../capture/live.h"
#include "../../capture/options.h"
#include "../../capture/proc.h"
#include "../../capture/system.h"
#include "args.h"
#include "ebpf.h"
#include "goprobe.skel.h"
#include "harness.h"

struct opt *raft_ebpf_table(void *opts)
{
	struct raft_ebpf_opts *o = opts;

	return opt_table_dup((const struct opt[]){
		RAFT_EBPF_ROWS(o, "the harness"), OPT_END() });
}

/*
 * The harness a capture probes: --binary FILE, else built (reproducibly)
 * from the driver's harness; made once, kept as lc->data.
 */
static const char *probed_harness(struct live_capture *lc)
{
	const struct raft_ebpf_opts *o = lc->sel.driver_opts;
	const struct raft_args *e = lc->sel.opts;

	if (!lc->data)
		lc->data = e->binary ? xstrdup(e->binary) : raft_build_harness(o->h);
	return lc->data;
}

char *raft_build_harness(const struct raft_harness *h)
{
	char *what, *bin;

	if (h->build)
		return h->build(h);
	what = xasprintf("the %s harness", h->name);
	bin = raft_go_build(h->src, h->bin, "", NULL, what);
	free(what);
	return bin;
}

const struct raft_harness *raft_driver_harness(const struct live_capture *lc)
{
	const struct raft_ebpf_opts *o = lc->sel.driver_opts;

	if (lc->driver->run != raft_ebpf_run)
		die(EXIT_CAPTURE_FAILED, "%s: not an eBPF driver's capture",
		    lc->driver->name);
	return o->h;
}

/* --resolve FUNC: where the engine would probe FUNC. */
int raft_ebpf_instead(struct live_capture *lc, struct cap_err *err)
{
	const struct raft_ebpf_opts *o = lc->sel.driver_opts;
	struct probe_binary *b;
	struct probe_func f;

	if (!o->resolve)
		return LIVE_CAPTURE;
	b = probe_open(probed_harness(lc), err);
	if (!b || probe_func(b, o->resolve, &f, err))
		die_err(err);
	printf("%s: entry %#lx, stack check %s, %d RET site(s)\n", o->resolve,
	       f.entry, f.check ? "probed at its JBE" : "none", f.nret);
	probe_close(b);
	return EXIT_OK;
}

void raft_ebpf_prepare(struct live_capture *lc)
{
	struct cap_err err;

	if (gp_may_probe(&err))
		die_err(&err);
	probed_harness(lc);
}

/*
 * A probe spec of raft (docs/probe-spec.md), @spec next to the harness's source:
 * the toolkit's, as its BPF program, even where CAPTURE_HOME points the
 * scenarios elsewhere.
 */
static char *probe_spec(const char *spec)
{
	return xasprintf("%s/%s", toolkit_tree(), spec);
}

void raft_probed_open(struct raft_probed *p, const char *bin, const char *spec,
		      const char *raw, const struct ring_options *ring)
{
	char *path = probe_spec(spec);
	struct cap_err err;

	p->raw = raw;
	p->e = gp_open(bin, &err);
	if (!p->e)
		die_err(&err);
	p->out = fopen(raw, "w");
	if (!p->out)
		die(EXIT_CAPTURE_FAILED, "%s: cannot create", raw);
	gp_set_ring(p->e, ring->bytes, ring->hold);
	p->spec = go_spec_parse(path, &err);
	if (!p->spec || go_spec_probe(p->spec, p->e, &err))
		die_err(&err);
	go_spec_output(p->spec, NULL, p->out);
	free(path);
}

long raft_probed_end(struct raft_probed *p)
{
	struct cap_err err;
	long events;

	if (go_spec_end(p->spec, NULL, &err))
		die_err(&err);
	events = go_spec_events(p->spec);
	go_spec_free(p->spec);
	if (fclose(p->out))
		die(EXIT_CAPTURE_FAILED, "%s: write error", p->raw);
	return events;
}

/*
 * The probed harness @bin ended with @rc, @scenario the last it ran: its
 * status, every record translated, nothing printed (stdout to @tmp_out).
 */
static void probed_done(struct raft_probed *p, const char *bin, const char *scenario,
			int rc, const char *tmp_out)
{
	size_t len = 0;
	char *stdout_text;

	raft_harness_status(bin, scenario, rc);
	raft_probed_end(p);
	stdout_text = read_file(tmp_out, &len);
	if (!stdout_text || len)
		die(EXIT_CAPTURE_FAILED,
		    "%s printed %zu bytes: the probed harness must print nothing (built with with_tla?)",
		    bin, len);
	free(stdout_text);
	gp_close(p->e);
}

/* Run the harness under the probes; its events go to @raw. */
static void run_probed(const char *bin, const char *spec, const char *scenario,
		       const char *raw, const char *tmp_out,
		       const struct ring_options *ring)
{
	struct cap_err err;
	struct raft_probed p;
	char *argv[] = { (char *)bin, (char *)scenario, NULL };
	int rc;

	raft_probed_open(&p, bin, spec, raw, ring);
	rc = gp_run(p.e, argv, tmp_out, RAFT_HARNESS_TIMEOUT, go_spec_record,
		    p.spec, &err);
	if (rc < 0)
		die_err(&err);
	probed_done(&p, bin, scenario, rc, tmp_out);
}

/*
 * Every scenario of @lc through one probed harness ("-batch"): the probes
 * attach and detach once.  Each scenario's events go to its own raw file:
 * the harness calls scenarioStart before each, whose probe (a site
 * of no reads, not the spec's) switches the file.
 */
struct batch {
	struct live_capture *lc;
	struct raft_probed p;
	int start_site;     /* scenarioStart's */
	size_t started;
};

static void batch_record(const struct gp_record *r, void *arg)
{
	struct batch *b = arg;
	struct live_capture *lc = b->lc;

	if (r->site != (unsigned)b->start_site) {
		go_spec_record(r, b->p.spec);
		return;
	}
	if (b->started == lc->n)
		die(EXIT_CAPTURE_FAILED, "the harness started more than %zu scenarios", lc->n);
	if (b->started) {
		if (fclose(b->p.out))
			die(EXIT_CAPTURE_FAILED, "%s: write error", b->p.raw);
		b->p.raw = lc->raw[b->started];
		b->p.out = fopen(b->p.raw, "w");
		if (!b->p.out)
			die(EXIT_CAPTURE_FAILED, "%s: cannot create", b->p.raw);
		go_spec_output(b->p.spec, NULL, b->p.out);
	}
	go_spec_forget(b->p.spec);   /* each scenario on a cluster of its own */
	progress("%s %s (ebpf)", lc->sys->folder->name, lc->sc[b->started++].run);
}

/* 0, or -1 if @bin has no scenarioStart (a harness without -batch). */
static int run_batch(struct live_capture *lc, const char *bin, const char *tmp_out)
{
	const struct raft_ebpf_opts *o = lc->sel.driver_opts;
	struct gp_site none = { 0 };
	struct cap_err err;
	struct batch b = { .lc = lc };
	char **argv = xcalloc(lc->n + 3, sizeof(*argv));
	int rc;

	raft_probed_open(&b.p, bin, o->h->spec, lc->raw[0], &o->ring);
	b.start_site = gp_probe(b.p.e, o->h->start ? o->h->start :
				RAFT_LANG ".scenarioStart", &none, NULL, &err);
	if (b.start_site < 0) {
		raft_probed_end(&b.p);
		gp_close(b.p.e);
		free(argv);
		return -1;
	}
	progress("%s: %zu scenarios through one probed harness",
		 lc->sys->folder->name, lc->n);
	argv[0] = (char *)bin;
	argv[1] = "-batch";
	for (size_t i = 0; i < lc->n; i++)
		argv[i + 2] = lc->sc[i].path;
	rc = gp_run(b.p.e, argv, tmp_out, RAFT_HARNESS_TIMEOUT * (double)lc->n,
		    batch_record, &b, &err);
	if (rc < 0)
		die_err(&err);
	probed_done(&b.p, bin, lc->sc[b.started ? b.started - 1 : 0].path, rc, tmp_out);
	if (b.started != lc->n)
		die(EXIT_CAPTURE_FAILED, "%s -batch started %zu of %zu scenarios", bin,
		    b.started, lc->n);
	free(argv);
	return 0;
}

/*
 * What was probed: the harness's build id, the BPF object's digest, the
 * probe spec's and how the probes attached.
 */
void raft_describe_probes(const char *bin, const char *spec_path, cJSON *env)
{
	struct cap_err err;
	struct probe_binary *b = probe_open(bin, &err);
	size_t sz;
	const void *obj = goprobe__elf_bytes(&sz);
	char *spec = probe_spec(spec_path);
	char hex[65];
	enum gp_attach how;

	if (!b || gp_attach_path(&how, &err))
		die_err(&err);
	json_add(env, "harness_build_id", json_str(go_build_id(b)));
	probe_close(b);
	sha256_hex(obj, sz, hex);
	json_add(env, "bpf_object_sha256", json_str(hex));
	if (sha256_file(spec, hex))
		die(EXIT_ENV_MISSING, "%s: cannot read the probe spec", spec);
	json_add(env, "spec_sha256", json_str(hex));
	json_add(env, "attach", json_str(gp_attach_name(how)));
	free(spec);
}

void raft_ebpf_run(struct live_capture *lc)
{
	const struct raft_ebpf_opts *o = lc->sel.driver_opts;
	const char *bin = probed_harness(lc);
	char *tmp_out = corpus_path(lc->corpus, ".harness-stdout");

	if (lc->n < 2 || run_batch(lc, bin, tmp_out))
		for (size_t i = 0; i < lc->n; i++) {
			progress("%s %s (ebpf)", lc->sys->folder->name, lc->sc[i].run);
			run_probed(bin, o->h->spec, lc->sc[i].path, lc->raw[i],
				   tmp_out, &o->ring);
		}
	unlink(tmp_out);
	free(tmp_out);
}

void raft_ebpf_describe(struct live_capture *lc)
{
	const struct raft_ebpf_opts *o = lc->sel.driver_opts;

	raft_describe_probes(probed_harness(lc), o->h->spec, lc->environment);
}

void raft_live_describe(struct live_capture *lc, cJSON *m, const struct raft_harness *h)
{
	json_add(m, "scenario", json_str(lc->sel.scenario));
	json_add(m, "via", json_str(lc->driver->name));
	if (h->describe)
		h->describe(lc->environment, h, lc->data);
	else
		raft_describe_harness(lc->environment, h->src, h->module, lc->data);
}

void raft_live_finish(struct live_capture *lc, const cJSON *counts)
{
	if (!strcmp(lc->sel.scenario, "all"))
		raft_require_actions(lc->sys->folder, counts);
}

void raft_live_release(struct live_capture *lc)
{
	free(lc->data);
}

// SPDX-License-Identifier: MIT
/*
 * Driver of bench/ebpf-overhead: run BINARY N under the full `capture etcd`
 * probe set (its spec, scenarios/etcd/raft.probes: every site with its
 * field reads), records translated to events that go to /dev/null, and
 * print what the target and the engine measured:
 *   <target's ns per call> <records> <drops> <morestack entries skipped>
 *   <BPF program runs> <BPF program ns> <consumer CPU ns>
 * The program's runs and time are 0 unless --bpf-stats enables the
 * kernel's BPF run-time statistics for the run (they cost a clock read per
 * run, so the timed runs leave them off).  --count-only consumes the
 * records without translating them (the engine counts them): the probe's
 * cost without the consumer's, which a busy machine takes from the target;
 * --bpf-stats-count does both.
 * The consumer's CPU time is this process's, the target's excluded (the
 * bench subtracts a run with N = 0).  The probes attach as the engine
 * decides (CAPTURE_UPROBE forces a path, docs/engine.md).  --bare instead
 * attaches a program that returns at once at the probe's own site in
 * (*raft).Step, on the same path, and prints the target's ns per call
 * alone: the trap without the probe.  --reads K does the same with a
 * program that makes K bpf_probe_read_user calls of 64 bytes at the raft
 * Step's receiver (RAX) into its stack and nothing else: the trap and
 * the user-memory reads alone, the floor of a probe that makes K reads.
 * With BENCH_BPF_STATS=1 in the environment these two enable the BPF
 * run-time statistics and print the program's runs and ns after the
 * target's ns per call.
 *
 * --none runs the target with no probe.
 *
 * Usage: ebpf-overhead-probe BINARY N [--bpf-stats | --count-only |
 *                                      --bpf-stats-count | --bare | --none |
 *                                      --reads K]
 * (run from the top of the tree: the spec is read from there).  Another
 * target than etcd's: BENCH_PROBES names its spec, BENCH_FUNC the
 * function --bare and --reads trap, and BENCH_MODE a word the target
 * takes before N (bench/ebpf-overhead-rust: the till's "bench").
 * BENCH_CLOCK=cpu prints the target's CPU time per call instead of its
 * own figure; BENCH_RING sets the ring's bytes, and BENCH_HOLD with it
 * leaves the records in the ring until the target is done.
 */
#include <bpf/bpf.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "../bpf/attach.h"
#include "../bpf/gospec.h"
#include "../capture/die.h"
#include "../capture/err.h"
#include "../capture/proc.h"

static void count_only(const struct gp_record *r, void *arg)
{
	(void)r;
	(void)arg;
}

/* CPU time of this process (RUSAGE_SELF) or its reaped children. */
static unsigned long long cpu_ns(int who)
{
	struct rusage u;

	getrusage(who, &u);
	return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1000000000ull +
	       (u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1000ull;
}

/*
 * The target's ns per call as it printed it (the first line of @out), or
 * with BENCH_CLOCK=cpu its CPU time per call (the reaped children's, the
 * trap and the program included: they run in its context), which a busy
 * machine's preemption does not inflate as it does the wall clock.
 */
static void print_target(const char *out, const char *n)
{
	char *text = read_file(out, NULL);
	const char *clock = getenv("BENCH_CLOCK");

	if (clock && !strcmp(clock, "cpu"))
		printf("%.1f", (double)cpu_ns(RUSAGE_CHILDREN) / (atof(n) > 0 ? atof(n) : 1));
	else
		printf("%s", text ? strtok(text, "\n") : "?");
	free(text);
}

/* The target's function and spec: etcd's (*raft).Step unless the environment says. */
static const char *env_or(const char *name, const char *def)
{
	const char *v = getenv(name);

	return v && *v ? v : def;
}

#define STEP env_or("BENCH_FUNC", "go.etcd.io/raft/v3.(*raft).Step")
#define PROBES env_or("BENCH_PROBES", "scenarios/etcd/raft.probes")

/* The target's command line: BINARY [BENCH_MODE] N. */
static void target_args(char *const argv[], char *args[4])
{
	char *mode = getenv("BENCH_MODE");
	int n = 0;

	args[n++] = argv[1];
	if (mode && *mode)
		args[n++] = mode;
	args[n++] = argv[2];
	args[n] = NULL;
}

/* A perf-event uprobe at @off of @path in every process, running @prog. */
static int perf_uprobe(int prog, const char *path, unsigned long off)
{
	char *text = read_file("/sys/bus/event_source/devices/uprobe/type", NULL);
	struct perf_event_attr a;
	int fd;

	if (!text)
		die(EXIT_ENV_MISSING, "no uprobe PMU (/sys/bus/event_source/devices/uprobe/type)");
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = (__u32)atoi(text);
	a.config1 = (__u64)(unsigned long)path;
	a.config2 = off;
	free(text);
	fd = (int)syscall(__NR_perf_event_open, &a, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 || ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog) ||
	    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
		die(EXIT_CAPTURE_FAILED, "cannot attach a perf-event uprobe at %#lx", off);
	return fd;
}

/*
 * A program of @k bpf_probe_read_user(fp - 64, 64, ctx->ax) calls for
 * path @how (the empty program if 0).
 */
static int reads_program(enum gp_attach how, int k)
{
	struct bpf_insn insns[2 + 5 * 16 + 2] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = BPF_REG_6,
		  .src_reg = BPF_REG_1 },
	};
	int n = 1;
	LIBBPF_OPTS(bpf_prog_load_opts, o);

	if (!k)
		return gp_empty_program(how);
	for (int i = 0; i < k; i++) {
		insns[n++] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_X,
						.dst_reg = BPF_REG_1, .src_reg = BPF_REG_10 };
		insns[n++] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_ADD | BPF_K,
						.dst_reg = BPF_REG_1, .imm = -64 };
		insns[n++] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_K,
						.dst_reg = BPF_REG_2, .imm = 64 };
		/* struct pt_regs: ax at 80 */
		insns[n++] = (struct bpf_insn){ .code = BPF_LDX | BPF_MEM | BPF_DW,
						.dst_reg = BPF_REG_3, .src_reg = BPF_REG_6,
						.off = 80 };
		insns[n++] = (struct bpf_insn){ .code = BPF_JMP | BPF_CALL,
						.imm = BPF_FUNC_probe_read_user };
	}
	insns[n++] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_K,
					.dst_reg = BPF_REG_0 };
	insns[n++] = (struct bpf_insn){ .code = BPF_JMP | BPF_EXIT };
	if (how == GP_ATTACH_MULTI)
		o.expected_attach_type = (enum bpf_attach_type)GP_TRACE_UPROBE_MULTI;
	return bpf_prog_load(BPF_PROG_TYPE_KPROBE, "gp_reads", "GPL", insns,
			     (size_t)n, &o);
}

/* --bare, --reads K: BINARY N under such a program at Step's probe site. */
static int bare(char *const argv[], int k)
{
	char out[] = "/tmp/ebpf-overhead-XXXXXX";
	char *args[4];
	struct cap_err err;
	struct probe_binary *b = probe_open(argv[1], &err);
	struct probe_func f;
	enum gp_attach how;
	unsigned long off;
	unsigned long long cookie = 0;
	int prog, link, fd = mkstemp(out), stats = getenv("BENCH_BPF_STATS") != NULL;
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info);

	target_args(argv, args);
	if (!b || probe_func(b, STEP, &f, &err) || gp_attach_path(&how, &err))
		die_err(&err);
	if (stats && bpf_enable_stats(BPF_STATS_RUN_TIME) < 0)
		die(EXIT_ENV_MISSING, "cannot enable BPF statistics");
	off = f.check ? f.check : f.entry;
	prog = reads_program(how, k);
	if (fd < 0 || prog < 0)
		die(EXIT_CAPTURE_FAILED, "cannot load the empty program");
	link = how == GP_ATTACH_MULTI ?
	       gp_uprobe_multi_link(prog, argv[1], &off, &cookie, 1, 0, 0) :
	       perf_uprobe(prog, argv[1], off);
	if (link < 0)
		die(EXIT_CAPTURE_FAILED, "cannot attach the empty program");
	proc_must(EXIT_CAPTURE_FAILED, (const char *const *)args, out);
	if (bpf_obj_get_info_by_fd(prog, &info, &len))
		die(EXIT_CAPTURE_FAILED, "cannot read the program's statistics");
	close(link);
	close(prog);
	print_target(out, argv[2]);
	unlink(out);
	if (stats)
		printf(" %llu %llu", (unsigned long long)info.run_cnt,
		       (unsigned long long)info.run_time_ns);
	printf("\n");
	probe_close(b);
	return 0;
}

/* --none: BINARY N with no probe, measured as the probed runs are. */
static int none(char *const argv[])
{
	char out[] = "/tmp/ebpf-overhead-XXXXXX";
	char *args[4];
	int fd = mkstemp(out);

	if (fd < 0)
		die(EXIT_CAPTURE_FAILED, "cannot create a temporary file");
	target_args(argv, args);
	proc_must(EXIT_CAPTURE_FAILED, (const char *const *)args, out);
	print_target(out, argv[2]);
	printf("\n");
	unlink(out);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	char out[] = "/tmp/ebpf-overhead-XXXXXX";
	char *args[4];
	const struct gp_stats *st;
	struct gp_engine *e;
	struct go_spec *spec;
	const char *opt = argc >= 4 ? argv[3] : "";
	int stats = !strcmp(opt, "--bpf-stats") || !strcmp(opt, "--bpf-stats-count");
	int translate = strcmp(opt, "--count-only") && strcmp(opt, "--bpf-stats-count");
	FILE *devnull;
	struct cap_err err;
	int fd, rc;

	if (argc == 5 && !strcmp(opt, "--reads") && atoi(argv[4]) >= 1 &&
	    atoi(argv[4]) <= 16)
		return bare(argv, atoi(argv[4]));
	if (argc != 3 && argc != 4)
		die(EXIT_USAGE, "usage: ebpf-overhead-probe BINARY N [--bpf-stats | --count-only | "
		    "--bpf-stats-count | --bare | --none | --reads K]");
	if (!strcmp(opt, "--bare"))
		return bare(argv, 0);
	if (!strcmp(opt, "--none"))
		return none(argv);
	if (stats && bpf_enable_stats(BPF_STATS_RUN_TIME) < 0)
		die(EXIT_ENV_MISSING, "cannot enable BPF statistics");
	else if (*opt && !stats && translate)
		die(EXIT_USAGE, "ebpf-overhead-probe: unknown option %s", opt);
	target_args(argv, args);
	fd = mkstemp(out);
	devnull = fopen("/dev/null", "w");
	if (fd < 0 || !devnull)
		die(EXIT_CAPTURE_FAILED, "cannot create temporary files");
	spec = go_spec_parse(PROBES, &err);
	if (!spec)
		die_err(&err);
	e = gp_open(argv[1], &err);
	if (!e || go_spec_probe(spec, e, &err))
		die_err(&err);
	go_spec_output(spec, NULL, devnull);
	if (getenv("BENCH_RING"))
		gp_set_ring(e, strtoul(getenv("BENCH_RING"), NULL, 0), getenv("BENCH_HOLD") != NULL);
	rc = gp_run(e, args, out, 600, translate ? go_spec_record : count_only,
		    spec, &err);
	if (rc < 0)
		die_err(&err);
	if (rc)
		die(EXIT_CAPTURE_FAILED, "%s exited with an error", argv[1]);
	if (go_spec_end(spec, NULL, &err))
		die_err(&err);
	go_spec_free(spec);
	st = gp_stats(e);
	print_target(out, argv[2]);
	unlink(out);
	printf(" %llu %llu %llu %llu %llu %llu\n", st->records, st->drops, st->skipped_morestack, st->prog_runs,
	       st->prog_ns, cpu_ns(RUSAGE_SELF));
	gp_close(e);
	fclose(devnull);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * Driver of bench/ebpf-overhead: run BINARY N under the full `capture etcd`
 * probe set (every site with its field reads, records translated to events
 * that go to /dev/null), and print what the target and the engine measured:
 *   <target's ns per call> <records> <drops> <morestack entries skipped>
 *
 * Usage: ebpf-overhead-probe BINARY N
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../capture/cmd/etcd-probes.h"
#include "../capture/die.h"
#include "../capture/proc.h"

int main(int argc, char **argv)
{
	char out[] = "/tmp/ebpf-overhead-XXXXXX";
	char *args[] = { argv[1], argv[2], NULL }, *text;
	const struct gp_stats *st;
	struct gp_engine *e;
	struct etcd_trace *t;
	FILE *devnull;
	int fd;

	if (argc != 3)
		die(EXIT_USAGE, "usage: ebpf-overhead-probe BINARY N");
	fd = mkstemp(out);
	devnull = fopen("/dev/null", "w");
	if (fd < 0 || !devnull)
		die(EXIT_CAPTURE_FAILED, "cannot create temporary files");
	e = gp_open(argv[1]);
	t = etcd_probes(e, devnull);
	if (gp_run(e, args, out, 600, etcd_record, t))
		die(EXIT_CAPTURE_FAILED, "%s exited with an error", argv[1]);
	etcd_trace_end(t);
	st = gp_stats(e);
	text = read_file(out, NULL);
	unlink(out);
	printf("%s %llu %llu %llu\n", text ? strtok(text, "\n") : "?",
	       st->records, st->drops, st->skipped_morestack);
	free(text);
	gp_close(e);
	fclose(devnull);
	return 0;
}

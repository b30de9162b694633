/* SPDX-License-Identifier: MIT */
/*
 * A probe spec (docs/go.md): which functions of a Go binary `capture go`
 * probes, what each entry or return reads (Go expressions over arguments,
 * receivers and results, resolved through DWARF), and the event each
 * record becomes.  Every refusal names the spec's file:line (EXIT_BAD_INPUT).
 */
#ifndef CAPTURE_GO_SPEC_H
#define CAPTURE_GO_SPEC_H

#include <stdio.h>
#include <cJSON.h>
#include "../../bpf/engine.h"

struct go_spec;

/* Parse @path (copied); dies with file:line on a malformed line. */
struct go_spec *go_spec_parse(const char *path);
/* Resolve every function and expression in @e's binary and register the probes. */
void go_spec_probe(struct go_spec *s, struct gp_engine *e);
/* Where records (raw, NULL: not written) and events go. */
void go_spec_output(struct go_spec *s, FILE *raw, FILE *events);
/* gp_run() callback: a raw line per record, an event line per event record. */
void go_spec_record(const struct gp_record *r, void *spec);
/* Dies if a record could not be translated; adds counts to @manifest (unless NULL). */
void go_spec_end(struct go_spec *s, cJSON *manifest);
/* Events written so far. */
long go_spec_events(const struct go_spec *s);
void go_spec_free(struct go_spec *s);

#endif

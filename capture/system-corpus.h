/* SPDX-License-Identifier: MIT */
/*
 * What every corpus-writing command and live system shares (fold, go,
 * the live loop, etcd's --live): starting and finishing a system's corpus
 * and the windows per action of its runs.
 */
#ifndef CAPTURE_SYSTEM_CORPUS_H
#define CAPTURE_SYSTEM_CORPUS_H

#include <cJSON.h>

struct folder;
struct corpus;

/* Windows per action, summed over @runs. */
cJSON *run_counts(const cJSON *runs);

/* Start the corpus @dir; its manifest opens with toolkit and command. */
struct corpus *command_corpus_begin(const char *dir, int argc, char **argv);
/* The same for a corpus of @f's windows: toolkit, system, command; audited. */
struct corpus *system_corpus_begin(const char *dir, const struct folder *f,
				   int argc, char **argv);
/* Counts and @runs into the manifest, audit.json, commit, print @dir. */
void system_corpus_commit(struct corpus *c, cJSON *runs, const char *dir);

#endif

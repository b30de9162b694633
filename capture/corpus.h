/* SPDX-License-Identifier: MIT */
/*
 * Atomic corpus writer.
 *
 * A corpus is assembled in a temporary directory beside its destination
 * (DEST.tmp-XXXXXX) and renamed into place by corpus_commit(), which first
 * writes MANIFEST.json with the sha256 of every file.  If the process dies
 * before that, the temporary directory is removed: a failed run leaves
 * nothing behind.  An existing DEST is replaced only at commit time, in
 * one step (RENAME_EXCHANGE): DEST always names a whole corpus.
 */
#ifndef CAPTURE_CORPUS_H
#define CAPTURE_CORPUS_H

#include <stdio.h>
#include <cJSON.h>

struct corpus;
struct audit_pass;

/* Does @dir hold a corpus (a MANIFEST.json)? */
int corpus_exists(const char *dir);

/*
 * Start a corpus that will become @dest.  Missing parent directories are
 * created, and removed again if the run fails; a @dest whose directory
 * cannot be made or written is a usage error (EXIT_USAGE).
 */
struct corpus *corpus_begin(const char *dest);

/* Path of @rel inside the temporary directory (caller frees). */
char *corpus_path(struct corpus *c, const char *rel);

/* @path relative to the corpus if it lies inside it, else NULL. */
const char *corpus_rel(struct corpus *c, const char *path);

/* Create @rel (and its parent directories) for writing. */
FILE *corpus_create(struct corpus *c, const char *rel);
/* Close a file from corpus_create(); dies on a write error. */
void corpus_close(struct corpus *c, FILE *f, const char *rel);

/*
 * The manifest under construction: an object whose keys the caller fills
 * (system, scenario, command, inputs, environment, counts, repairs...).
 * corpus_commit() adds "files": {rel: sha256} for every file, sorted by path.
 */
cJSON *corpus_manifest(struct corpus *c);

/*
 * The audit the corpus's window files feed as they are written (audit.h;
 * NULL: none).  The corpus only keeps it: audit_corpus() uses it up.
 */
void corpus_set_audit(struct corpus *c, struct audit_pass *a);
struct audit_pass *corpus_audit(const struct corpus *c);

/*
 * What a writer of files that span the corpus's runs keeps (the canonical
 * form's one file per action, windows.h): @ctx, handed to @close by
 * corpus_commit() before it hashes the files.  NULL until set.
 */
void corpus_set_shared(struct corpus *c, void *ctx, void (*close)(void *ctx));
void *corpus_shared(const struct corpus *c);

/*
 * The runs of manifest @m read from @path: a non-empty array, else it dies
 * with EXIT_BAD_INPUT naming @path.
 */
const cJSON *manifest_runs(const cJSON *m, const char *path);

/* The bytes of MANIFEST.json for manifest @m, appended to @sb. */
struct strbuf;
void manifest_text(struct strbuf *sb, const cJSON *m);

/*
 * @rel holds bytes that differ from run to run (@why says what varies: a
 * binary stream with time stamps).  The manifest lists it under "varying"
 * with @why instead of its sha256 under "files"; verify checks that it is
 * there and compares what was derived from it instead.
 */
void corpus_vary(struct corpus *c, const char *rel, const char *why);

/*
 * A run whose raw bytes are worth more than its corpus (a live capture
 * that cannot be repeated) keeps them when it fails: the temporary
 * directory, its files written out, becomes DEST.failed/ (an older one
 * replaced, if capture kept it), with FAILURE holding the failure's
 * message, and a line on stderr names it and its files.  A run that
 * captured nothing (every file empty) keeps nothing and leaves an older
 * one as it was.  An interrupt (SIGINT, SIGTERM, SIGHUP) still removes
 * everything.  Call it once the
 * files it must keep are created (the cleanup then runs before the
 * thread writing them stops).
 */
void corpus_keep_failed(struct corpus *c);
/* DEST.failed, where a failure keeps the run's files; NULL: not kept. */
const char *corpus_kept(const struct corpus *c);
/*
 * Where a failure keeps @path, a file inside the corpus (for a message
 * naming a line of it), allocated; NULL if it would not be kept.
 */
char *corpus_kept_path(struct corpus *c, const char *path);

/* Write MANIFEST.json, rename into place, free @c. */
void corpus_commit(struct corpus *c);

#endif

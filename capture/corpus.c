// SPDX-License-Identifier: MIT
#include <errno.h>
#include <ftw.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "corpus.h"
#include "die.h"
#include "json.h"
#include "proc.h"

struct corpus {
	char *dest;
	char *tmp;
	int cleanup;
	cJSON *manifest;
};

static void remove_tmp(void *arg)
{
	remove_tree(arg);
}

static int is_corpus(const char *dir)
{
	char *m = xasprintf("%s/MANIFEST.json", dir);
	int yes = file_exists(m);

	free(m);
	return yes;
}

struct corpus *corpus_begin(const char *dest)
{
	struct corpus *c = xcalloc(1, sizeof(*c));
	char *parent = xstrdup(dest);
	size_t n = strlen(dest);

	while (n > 1 && dest[n - 1] == '/')
		n--;
	c->dest = xstrdup(dest);
	c->dest[n] = '\0';
	if (file_exists(c->dest) && !is_corpus(c->dest))
		die(EXIT_USAGE, "%s exists and is not a corpus (no MANIFEST.json): "
		    "not replacing it", c->dest);
	mkdir_p(dirname(parent));
	free(parent);
	c->tmp = xasprintf("%s.tmp-XXXXXX", c->dest);
	if (!mkdtemp(c->tmp))
		die(EXIT_CAPTURE_FAILED, "cannot create %s: %s", c->tmp, strerror(errno));
	c->cleanup = on_failure(remove_tmp, c->tmp);
	c->manifest = json_obj();
	return c;
}

char *corpus_path(struct corpus *c, const char *rel)
{
	return xasprintf("%s/%s", c->tmp, rel);
}

const char *corpus_rel(struct corpus *c, const char *path)
{
	size_t n = strlen(c->tmp);

	if (strncmp(path, c->tmp, n) || path[n] != '/')
		return NULL;
	return path + n + 1;
}

FILE *corpus_create(struct corpus *c, const char *rel)
{
	char *path = corpus_path(c, rel);
	char *dir = xstrdup(path);
	FILE *f;

	mkdir_p(dirname(dir));
	free(dir);
	f = fopen(path, "w");
	if (!f)
		die(EXIT_CAPTURE_FAILED, "cannot create %s: %s", path, strerror(errno));
	free(path);
	return f;
}

void corpus_close(struct corpus *c, FILE *f, const char *rel)
{
	(void)c;
	if (ferror(f) | fclose(f))
		die(EXIT_CAPTURE_FAILED, "write error on %s", rel);
}

void corpus_copy(struct corpus *c, const char *src, const char *rel)
{
	size_t len;
	char *data = read_file(src, &len);
	FILE *f;

	if (!data)
		die(EXIT_BAD_INPUT, "cannot read %s: %s", src, strerror(errno));
	f = corpus_create(c, rel);
	fwrite(data, 1, len, f);
	corpus_close(c, f, rel);
	free(data);
}

cJSON *corpus_manifest(struct corpus *c)
{
	return c->manifest;
}

/* nftw has no user pointer: collect into these while walking. */
static char **walk_paths;
static size_t walk_n, walk_alloc;

static int collect(const char *path, const struct stat *st, int type,
		   struct FTW *ftw)
{
	(void)st; (void)ftw;
	if (type != FTW_F)
		return 0;
	if (walk_n == walk_alloc) {
		walk_alloc = walk_alloc * 2 + 16;
		walk_paths = xrealloc(walk_paths, walk_alloc * sizeof(*walk_paths));
	}
	walk_paths[walk_n++] = xstrdup(path);
	return 0;
}

static int path_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static cJSON *file_digests(struct corpus *c)
{
	cJSON *files = json_obj();
	size_t skip = strlen(c->tmp) + 1;

	walk_n = 0;
	if (nftw(c->tmp, collect, 16, FTW_PHYS))
		die(EXIT_CAPTURE_FAILED, "cannot list %s", c->tmp);
	qsort(walk_paths, walk_n, sizeof(*walk_paths), path_cmp);
	for (size_t i = 0; i < walk_n; i++) {
		char hex[65];

		if (sha256_file(walk_paths[i], hex))
			die(EXIT_CAPTURE_FAILED, "cannot read %s", walk_paths[i]);
		json_add(files, walk_paths[i] + skip, json_str(hex));
		free(walk_paths[i]);
	}
	free(walk_paths);
	walk_paths = NULL;
	walk_alloc = 0;
	return files;
}

void corpus_commit(struct corpus *c)
{
	struct strbuf text = STRBUF_INIT;
	char *old = NULL;
	FILE *f;

	json_add(c->manifest, "files", file_digests(c));
	json_write_indented(&text, c->manifest, 0);
	f = corpus_create(c, "MANIFEST.json");
	fwrite(text.buf, 1, text.len, f);
	fputc('\n', f);
	corpus_close(c, f, "MANIFEST.json");
	strbuf_release(&text);

	/* Replace an existing corpus only now, when the new one is whole. */
	if (file_exists(c->dest)) {
		old = xasprintf("%s.old-XXXXXX", c->dest);
		if (!mkdtemp(old) || rename(c->dest, old))
			die(EXIT_CAPTURE_FAILED, "cannot move old %s aside: %s",
			    c->dest, strerror(errno));
	}
	if (rename(c->tmp, c->dest))
		die(EXIT_CAPTURE_FAILED, "cannot rename %s to %s: %s", c->tmp,
		    c->dest, strerror(errno));
	cancel_on_failure(c->cleanup);
	if (old) {
		remove_tree(old);
		free(old);
	}
	cJSON_Delete(c->manifest);
	free(c->tmp);
	free(c->dest);
	free(c);
}

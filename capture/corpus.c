// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <openssl/evp.h>
#include "corpus.h"
#include "die.h"
#include "json.h"
#include "proc.h"
#include "write-behind.h"

/*
 * The sha256 of a file written through corpus_create(), taken as it was
 * written: re-reading every output at commit cost as much as writing it.
 * The file's identity as it was closed (inode, size, mtime) tells whether
 * it is still what was hashed; if not, commit hashes it from disk.
 */
struct written {
	char *path;
	char hex[65];
	struct stat st;
};

struct corpus {
	char *dest;
	char *tmp;
	int tmp_made;     /* tmp exists: the cleanup removes it */
	int cleanup;
	char **made;      /* parent directories we created, deepest first */
	size_t nmade;
	cJSON *manifest;
	struct written *written;
	size_t nwritten;
	struct audit_pass *audit;
	void *shared;                 /* corpus_set_shared() */
	void (*shared_close)(void *ctx);
	struct write_behind *behind;  /* writes and hashes the files' bytes */
	/*
	 * The files not closed yet.  Only stdio's FILE (not on our heap) points
	 * at them otherwise: a run that dies keeps them reachable from here.
	 */
	struct hashing_file *open;
	char *kept;       /* corpus_keep_failed()'s directory, or NULL */
	int keep_cleanup;
};

/* A file being written and hashed (the cookie of its FILE). */
struct hashing_file {
	struct corpus *c;
	FILE *f;          /* what corpus_create() returned */
	char *path;
	int fd;
	EVP_MD_CTX *md;
	struct write_behind_file *out;
	struct hashing_file **prev, *next;  /* in the corpus's open files */
};

/* Only ever empty directories we made: rmdir removes nothing else. */
static void remove_made(struct corpus *c)
{
	for (size_t i = 0; i < c->nmade; i++)
		rmdir(c->made[i]);
}

/* Errors that mean the output path itself is wrong, not the run. */
static int bad_output_path(int err)
{
	return err == ENOENT || err == ENOTDIR || err == EACCES ||
	       err == EPERM || err == EROFS;
}

/*
 * Create the missing parents of @dest, remembering them so that a failed
 * run removes them again.
 */
static char *parent_of(const char *path)
{
	char *copy = xstrdup(path);
	char *parent = xstrdup(dirname(copy));

	free(copy);
	return parent;
}

static void make_parents(struct corpus *c)
{
	char *p;

	for (p = parent_of(c->dest); !file_exists(p); p = parent_of(p)) {
		c->made = xrealloc(c->made, (c->nmade + 1) * sizeof(*c->made));
		c->made[c->nmade++] = p;
	}
	free(p);
	for (size_t i = c->nmade; i-- > 0;)
		if (mkdir(c->made[i], 0777) && errno != EEXIST)
			die(bad_output_path(errno) ? EXIT_USAGE : EXIT_CAPTURE_FAILED,
			    "output %s: cannot create the directory %s: %s",
			    c->dest, c->made[i], strerror(errno));
}

/* nftw has no user pointer: collect into these while walking. */
static char **walk_paths;
static size_t walk_n, walk_alloc;
static int walk_unreadable;  /* a directory or entry that could not be read */

/* Every entry but directories: files, and whatever else lies there. */
static int collect(const char *path, const struct stat *st, int type,
		   struct FTW *ftw)
{
	(void)st; (void)ftw;
	if (type == FTW_DNR || type == FTW_NS)
		walk_unreadable = 1;
	if (type == FTW_D || type == FTW_DP || type == FTW_DNR)
		return 0;
	if (walk_n == walk_alloc) {
		walk_alloc = walk_alloc * 2 + 16;
		walk_paths = xrealloc(walk_paths, walk_alloc * sizeof(*walk_paths));
	}
	walk_paths[walk_n++] = xstrdup(path);
	return 0;
}

static void walk_free(void)
{
	for (size_t i = 0; i < walk_n; i++)
		free(walk_paths[i]);
	free(walk_paths);
	walk_paths = NULL;
	walk_n = walk_alloc = 0;
	walk_unreadable = 0;
}

int corpus_exists(const char *dir)
{
	char *m = xasprintf("%s/MANIFEST.json", dir);
	int yes = file_exists(m);

	free(m);
	return yes;
}

/* The manifest of @dir if it is capture's (its marker), else NULL and @why. */
static cJSON *our_manifest(const char *dir, const char **why)
{
	char *path = xasprintf("%s/MANIFEST.json", dir);
	char *text = read_file(path, NULL);
	int err = errno;
	cJSON *m = text ? cJSON_Parse(text) : NULL;
	const char *toolkit = json_get_str(m, "toolkit");

	free(text);
	if (!text && err != ENOENT)
		die(EXIT_USAGE, "output %s: cannot read %s: %s", dir, path,
		    strerror(err));
	free(path);
	*why = !text ? "no MANIFEST.json" :
	       !toolkit || strncmp(toolkit, "capture ", 8) ?
	       "its MANIFEST.json is not one capture writes" :
	       !cJSON_IsObject(json_get(m, "files")) ?
	       "its MANIFEST.json lists no files" : NULL;
	if (!*why)
		return m;
	cJSON_Delete(m);
	return NULL;
}

/* What in @dir its manifest @m does not list (into @name), or a listed file it lacks. */
static const char *unlisted(const char *dir, const cJSON *m, char name[PATH_MAX])
{
	const cJSON *files = json_get(m, "files"), *varying = json_get(m, "varying");
	size_t skip = strlen(dir) + 1;
	int listed = cJSON_GetArraySize(files) + cJSON_GetArraySize(varying);
	const char *why = NULL;

	if (nftw(dir, collect, 16, FTW_PHYS) || walk_unreadable) {
		walk_free();
		die(EXIT_USAGE, "output %s: cannot read all of it: not replacing it",
		    dir);
	}
	for (size_t i = 0; i < walk_n && !why; i++) {
		const char *rel = walk_paths[i] + skip;

		if (!strcmp(rel, "MANIFEST.json"))
			continue;
		if (json_get(files, rel) || json_get(varying, rel)) {
			listed--;
			continue;
		}
		why = "holds a file its MANIFEST.json does not list: ";
		snprintf(name, PATH_MAX, "%s", rel);
	}
	walk_free();
	if (!why && listed)
		why = "lacks files its MANIFEST.json lists";
	return why;
}

/*
 * Only a corpus capture wrote may be replaced, and all of it is then
 * removed: DEST's MANIFEST.json must carry capture's marker (its first
 * key, "toolkit": "capture VERSION") and list exactly the files DEST
 * holds.  A directory with an unrelated MANIFEST.json, or a corpus
 * someone added a file to, is not ours.
 */
static void refuse_unless_ours(const char *dest)
{
	static char name[PATH_MAX];
	const char *why = "not a directory";
	struct stat st;
	cJSON *m = NULL;

	if (stat(dest, &st))
		return;   /* a parent that is wrong is told by make_parents() */
	if (S_ISDIR(st.st_mode))
		m = our_manifest(dest, &why);
	if (m) {
		why = unlisted(dest, m, name);
		cJSON_Delete(m);
	}
	if (why)
		die(EXIT_USAGE, "%s exists and is not a corpus capture wrote (%s%s): "
		    "not replacing it", dest, why, name);
}

/*
 * The cleanup holds @c itself, from the start: what a dying run had
 * allocated or open stays reachable.  The temporary directory goes
 * first, then the parents made for it.
 */
static void remove_tmp(void *arg)
{
	struct corpus *c = arg;

	if (c->tmp_made)
		remove_tree(c->tmp);
	remove_made(c);
}

struct corpus *corpus_begin(const char *dest)
{
	struct corpus *c = xcalloc(1, sizeof(*c));
	size_t n = strlen(dest);
	struct stat st;
	int err;

	c->cleanup = on_failure(remove_tmp, c);
	while (n > 1 && dest[n - 1] == '/')
		n--;
	c->dest = xstrdup(dest);
	c->dest[n] = '\0';
	/* the swap at commit would replace the link, not what it names */
	if (!lstat(c->dest, &st) && S_ISLNK(st.st_mode))
		die(EXIT_USAGE, "output %s is a symbolic link: not replacing it",
		    c->dest);
	refuse_unless_ours(c->dest);
	make_parents(c);
	remove_stale_tmps(c->dest);
	c->tmp = owned_tmp_name(c->dest);
	/* made and marked as one step: a signal's remove_tmp() sees it */
	cleanups_hold();
	c->tmp_made = mkdtemp(c->tmp) != NULL;
	err = errno;
	cleanups_release();
	if (!c->tmp_made)
		die(bad_output_path(err) ? EXIT_USAGE : EXIT_CAPTURE_FAILED,
		    "output %s: cannot create %s: %s", c->dest, c->tmp,
		    strerror(err));
	/*
	 * mkdtemp's 0700 would keep the corpus from whoever may read its
	 * directory: a new corpus gets the umask's mode, a replaced one keeps
	 * the mode it had.
	 */
	if (chmod(c->tmp, !stat(c->dest, &st) ? st.st_mode & 07777 : umasked(0777)))
		die(EXIT_CAPTURE_FAILED, "cannot chmod %s: %s", c->tmp,
		    strerror(errno));
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

/* A write error comes back when the file is closed (write-behind.h). */
static ssize_t hashing_write(void *cookie, const char *buf, size_t len)
{
	struct hashing_file *h = cookie;

	write_behind_queue(h->out, buf, len);
	return (ssize_t)len;
}

static void remember(struct corpus *c, struct hashing_file *h)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned n = 0;
	struct written *w;

	c->written = xrealloc(c->written, (c->nwritten + 1) * sizeof(*w));
	w = &c->written[c->nwritten];
	if (fstat(h->fd, &w->st) || !EVP_DigestFinal_ex(h->md, md, &n))
		return;   /* not remembered: commit hashes it from disk */
	hex_digest(md, n, w->hex);
	w->path = h->path;
	h->path = NULL;
	c->nwritten++;
}

static void link_open(struct corpus *c, struct hashing_file *h)
{
	h->next = c->open;
	if (h->next)
		h->next->prev = &h->next;
	h->prev = &c->open;
	c->open = h;
}

static void unlink_open(struct hashing_file *h)
{
	*h->prev = h->next;
	if (h->next)
		h->next->prev = h->prev;
}

static int hashing_close(void *cookie)
{
	struct hashing_file *h = cookie;
	int err = write_behind_close(h->out);

	unlink_open(h);

	if (err) {
		close(h->fd);
		EVP_MD_CTX_free(h->md);
		free(h->path);
		free(h);
		errno = err;
		return -1;
	}
	remember(h->c, h);
	err = close(h->fd);
	EVP_MD_CTX_free(h->md);
	free(h->path);
	free(h);
	return err;
}

FILE *corpus_create(struct corpus *c, const char *rel)
{
	static const cookie_io_functions_t io = {
		.write = hashing_write, .close = hashing_close,
	};
	struct hashing_file *h = xcalloc(1, sizeof(*h));
	char *dir;
	FILE *f;

	h->c = c;
	link_open(c, h);
	h->path = corpus_path(c, rel);
	dir = xstrdup(h->path);
	/* Not while a signal's cleanups walk the temporary directory. */
	cleanups_hold();
	mkdir_p(dirname(dir));
	free(dir);
	h->fd = open(h->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (h->fd < 0)
		die(EXIT_CAPTURE_FAILED, "cannot create %s: %s", h->path,
		    strerror(errno));
	cleanups_release();
	h->md = EVP_MD_CTX_new();
	if (!h->md || !EVP_DigestInit_ex(h->md, EVP_sha256(), NULL))
		die(EXIT_CAPTURE_FAILED, "sha256 failed");
	if (!c->behind)
		c->behind = write_behind_start();
	h->out = write_behind_open(c->behind, h->fd, h->md);
	f = fopencookie(h, "w", io);
	if (!f)
		die(EXIT_CAPTURE_FAILED, "out of memory");
	h->f = f;
	return f;
}

void corpus_close(struct corpus *c, FILE *f, const char *rel)
{
	int failed = ferror(f);

	(void)c;
	errno = 0;
	if (fclose(f) || failed)
		die(EXIT_CAPTURE_FAILED, "write error on %s%s%s", rel,
		    errno ? ": " : "", errno ? strerror(errno) : "");
}

cJSON *corpus_manifest(struct corpus *c)
{
	return c->manifest;
}

void corpus_set_audit(struct corpus *c, struct audit_pass *a)
{
	c->audit = a;
}

struct audit_pass *corpus_audit(const struct corpus *c)
{
	return c->audit;
}

void corpus_set_shared(struct corpus *c, void *ctx, void (*close)(void *ctx))
{
	c->shared = ctx;
	c->shared_close = close;
}

void *corpus_shared(const struct corpus *c)
{
	return c->shared;
}

static int path_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The digest taken while @path was written, if it is unchanged since. */
static const char *written_digest(struct corpus *c, const char *path)
{
	struct stat st;

	for (size_t i = c->nwritten; i-- > 0;) {
		const struct stat *w = &c->written[i].st;

		if (strcmp(c->written[i].path, path))
			continue;
		if (stat(path, &st) || st.st_ino != w->st_ino ||
		    st.st_dev != w->st_dev || st.st_size != w->st_size ||
		    st.st_mtim.tv_sec != w->st_mtim.tv_sec ||
		    st.st_mtim.tv_nsec != w->st_mtim.tv_nsec)
			return NULL;
		return c->written[i].hex;
	}
	return NULL;
}

void corpus_vary(struct corpus *c, const char *rel, const char *why)
{
	cJSON *varying = cJSON_GetObjectItemCaseSensitive(c->manifest, "varying");

	if (!varying) {
		varying = json_obj();
		json_add(c->manifest, "varying", varying);
	}
	json_add(varying, rel, json_str(why));
}

static cJSON *file_digests(struct corpus *c)
{
	cJSON *files = json_obj();
	const cJSON *varying = json_get(c->manifest, "varying");
	size_t skip = strlen(c->tmp) + 1;

	if (nftw(c->tmp, collect, 16, FTW_PHYS))
		die(EXIT_CAPTURE_FAILED, "cannot list %s", c->tmp);
	if (walk_n)   /* else walk_paths is NULL, which qsort may not take */
		qsort(walk_paths, walk_n, sizeof(*walk_paths), path_cmp);
	for (size_t i = 0; i < walk_n; i++) {
		const char *known = written_digest(c, walk_paths[i]);
		char hex[65];

		if (json_get(varying, walk_paths[i] + skip))
			continue;
		if (!known && sha256_file(walk_paths[i], hex))
			die(EXIT_CAPTURE_FAILED, "cannot read %s", walk_paths[i]);
		json_add(files, walk_paths[i] + skip, json_str(known ? known : hex));
	}
	walk_free();
	return files;
}

/*
 * Swap the new corpus with the old one in one step, so that DEST always
 * names a whole corpus, then remove the old one (now at the temporary
 * name).  Only a file system without RENAME_EXCHANGE takes two renames.
 */
static void replace(struct corpus *c)
{
	char *old;

	if (!renameat2(AT_FDCWD, c->tmp, AT_FDCWD, c->dest, RENAME_EXCHANGE)) {
		remove_tree(c->tmp);
		return;
	}
	if (errno != EINVAL && errno != ENOSYS)
		die(EXIT_CAPTURE_FAILED, "cannot exchange %s and %s: %s", c->tmp,
		    c->dest, strerror(errno));
	old = xasprintf("%s.old-XXXXXX", c->dest);
	if (!mkdtemp(old) || rename(c->dest, old))
		die(EXIT_CAPTURE_FAILED, "cannot move old %s aside: %s",
		    c->dest, strerror(errno));
	if (rename(c->tmp, c->dest))
		die(EXIT_CAPTURE_FAILED, "cannot rename %s to %s: %s", c->tmp,
		    c->dest, strerror(errno));
	remove_tree(old);
	free(old);
}

/* The first line of a directory corpus_keep_failed() kept. */
#define KEPT_MARK "capture: "

/* Is @dir one a failed run kept (its FAILURE file is capture's)? */
static int kept_by_us(const char *dir)
{
	char *path = xasprintf("%s/FAILURE", dir);
	char *text = read_file(path, NULL);
	int ours = text && !strncmp(text, KEPT_MARK, strlen(KEPT_MARK));

	free(text);
	free(path);
	return ours;
}

static long count_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	long n = 0;
	int ch;

	while (f && (ch = getc(f)) != EOF)
		n += ch == '\n';
	if (f)
		fclose(f);
	return n;
}

/* The kept files, each with its number of lines, on one line of stderr. */
static void say_kept(const char *kept)
{
	size_t skip = strlen(kept) + 1;

	int first = 1;

	fprintf(stderr, "capture: what the run wrote is kept in %s/ (FAILURE says why):", kept);
	if (!nftw(kept, collect, 16, FTW_PHYS)) {
		if (walk_n)
			qsort(walk_paths, walk_n, sizeof(*walk_paths), path_cmp);
		for (size_t i = 0; i < walk_n; i++) {
			long n = count_lines(walk_paths[i]);

			if (!strcmp(walk_paths[i] + skip, "FAILURE"))
				continue;
			fprintf(stderr, "%s %s (%ld line%s)", first ? "" : ",",
				walk_paths[i] + skip, n, n == 1 ? "" : "s");
			first = 0;
		}
	}
	walk_free();
	fputc('\n', stderr);
}

/*
 * Did the run capture anything: is a file of @dir not empty?  (A walk
 * that fails says yes: keeping is what a failed run did before.)
 */
static int captured_some(const char *dir)
{
	struct stat st;
	int some = 0;

	if (nftw(dir, collect, 16, FTW_PHYS) || walk_unreadable)
		some = 1;
	for (size_t i = 0; i < walk_n && !some; i++)
		some = lstat(walk_paths[i], &st) || st.st_size > 0;
	walk_free();
	return some;
}

/*
 * The failure's cleanup (registered after the files it keeps were
 * created, so it runs before the write-behind thread stops): the files
 * still open are written out, the message goes into FAILURE, and the
 * temporary directory becomes @c->kept, which remove_tmp() then leaves.
 * A run that captured nothing (every file empty: it failed before its
 * target gave anything) keeps nothing, so never replaces what an earlier
 * failure kept, which cannot be had again.
 */
static void keep_tmp(void *arg)
{
	struct corpus *c = arg;
	char *mark;
	FILE *f;

	if (!c->tmp_made || cleanups_by_signal())
		return;   /* an interrupted run leaves nothing (robustness.md) */
	while (c->open)
		fclose(c->open->f);
	if (!captured_some(c->tmp)) {
		fprintf(stderr, "capture: the run captured nothing: nothing kept\n");
		if (file_exists(c->kept))
			fprintf(stderr, "capture: %s/, an earlier failure's, is left as it was\n",
				c->kept);
		return;
	}
	if (file_exists(c->kept) && !kept_by_us(c->kept)) {
		fprintf(stderr, "capture: %s exists and is not what capture kept "
			"of a failed run: not keeping this run's files\n", c->kept);
		return;
	}
	mark = xasprintf("%s/FAILURE", c->tmp);
	f = fopen(mark, "w");
	if (f) {
		fprintf(f, KEPT_MARK "%s%s\n", die_location(),
			die_message() ? die_message() : "the run failed");
		fclose(f);
	}
	free(mark);
	if (file_exists(c->kept))
		remove_tree(c->kept);
	if (rename(c->tmp, c->kept)) {
		fprintf(stderr, "capture: cannot keep %s as %s: %s\n", c->tmp,
			c->kept, strerror(errno));
		return;
	}
	c->tmp_made = 0;
	say_kept(c->kept);
}

void corpus_keep_failed(struct corpus *c)
{
	c->kept = xasprintf("%s.failed", c->dest);
	c->keep_cleanup = on_failure(keep_tmp, c);
}

const char *corpus_kept(const struct corpus *c)
{
	return c->kept;
}

char *corpus_kept_path(struct corpus *c, const char *path)
{
	const char *inside = corpus_rel(c, path);

	return inside && c->kept ? xasprintf("%s/%s", c->kept, inside) : NULL;
}

const cJSON *manifest_runs(const cJSON *m, const char *path)
{
	const cJSON *runs = json_get(m, "runs");

	if (!cJSON_IsArray(runs) || !cJSON_GetArraySize(runs))
		die_at(EXIT_BAD_INPUT, path, 0,
		       "\"runs\" is not an array of at least one run");
	return runs;
}

void manifest_text(struct strbuf *sb, const cJSON *m)
{
	json_write_indented(sb, m, 0);
	strbuf_add(sb, "\n", 1);
}

void corpus_commit(struct corpus *c)
{
	struct strbuf text = STRBUF_INIT;
	FILE *f;

	if (c->shared_close)
		c->shared_close(c->shared);
	json_add(c->manifest, "files", file_digests(c));
	manifest_text(&text, c->manifest);
	f = corpus_create(c, "MANIFEST.json");
	fwrite(text.buf, 1, text.len, f);
	corpus_close(c, f, "MANIFEST.json");
	strbuf_release(&text);
	write_behind_stop(c->behind);

	/*
	 * Replace an existing corpus only now, when the new one is whole, and
	 * not while a signal's cleanups are removing the temporary directory.
	 */
	cleanups_hold();
	if (file_exists(c->dest))
		replace(c);
	else if (rename(c->tmp, c->dest))
		die(EXIT_CAPTURE_FAILED, "cannot rename %s to %s: %s", c->tmp,
		    c->dest, strerror(errno));
	cancel_on_failure(c->cleanup);
	if (c->kept)
		cancel_on_failure(c->keep_cleanup);
	cleanups_release();
	free(c->kept);
	for (size_t i = 0; i < c->nmade; i++)
		free(c->made[i]);
	free(c->made);
	for (size_t i = 0; i < c->nwritten; i++)
		free(c->written[i].path);
	free(c->written);
	cJSON_Delete(c->manifest);
	free(c->tmp);
	free(c->dest);
	free(c);
}

// SPDX-License-Identifier: MIT
/*
 * The write-behind thread (capture/write-behind.h): files written through
 * it in interleaved pieces of every size hold exactly their bytes, in
 * order, and their digests are those of the bytes; a failing write is
 * reported for its own file only; and a process that dies while a corpus
 * file is open exits (exit() flushes stdio into a stopped thread, which
 * must not wait for it), also when the ring was full.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "capture/corpus.h"
#include "capture/die.h"
#include "capture/proc.h"
#include "capture/write-behind.h"
#include "unit.h"

static char dir[] = "/tmp/test-write-behind-XXXXXX";

/* A deterministic byte stream per file (the data is checked, not looked at). */
static unsigned char byte_at(int file, size_t i)
{
	return (unsigned char)((i * 131 + (i >> 9) * 7 + file * 61) & 0xff);
}

static EVP_MD_CTX *sha256_start(void)
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();

	if (!md || !EVP_DigestInit_ex(md, EVP_sha256(), NULL))
		exit(1);
	return md;
}

static void sha256_hex_of(EVP_MD_CTX *md, char hex[65])
{
	unsigned char d[EVP_MAX_MD_SIZE];
	unsigned n = 0;

	EVP_DigestFinal_ex(md, d, &n);
	hex_digest(d, n, hex);
}

/*
 * Two files written in turns, pieces of 1 byte to 600 KB (across block
 * boundaries and larger than a block), then compared with what they should
 * hold, bytes and digests.
 */
static void interleaved_files_hold_their_bytes(void)
{
	static const size_t sizes[] = { 1, 7, 4096, 8192, 262143, 262144,
					262145, 600000, 3, 100000 };
	struct write_behind *w = write_behind_start();
	struct write_behind_file *f[2];
	EVP_MD_CTX *md[2];
	size_t written[2] = { 0 };
	unsigned char *piece = xmalloc(600000);
	char path[2][64];
	int fd[2], ok = 1;

	for (int k = 0; k < 2; k++) {
		snprintf(path[k], sizeof(path[k]), "%s/f%d", dir, k);
		fd[k] = open(path[k], O_WRONLY | O_CREAT | O_TRUNC, 0644);
		md[k] = sha256_start();
		f[k] = write_behind_open(w, fd[k], md[k]);
	}
	for (int round = 0; round < 3; round++)
		for (size_t s = 0; s < sizeof(sizes) / sizeof(*sizes); s++)
			for (int k = 0; k < 2; k++) {
				size_t n = sizes[(s + (size_t)k * 3) %
						 (sizeof(sizes) / sizeof(*sizes))];

				for (size_t i = 0; i < n; i++)
					piece[i] = byte_at(k, written[k] + i);
				write_behind_queue(f[k], piece, n);
				written[k] += n;
			}
	for (int k = 0; k < 2; k++) {
		char got[65], want[65];
		EVP_MD_CTX *expect = sha256_start();
		struct stat st;

		ok &= write_behind_close(f[k]) == 0;
		close(fd[k]);
		sha256_hex_of(md[k], got);
		for (size_t i = 0; i < written[k]; i++) {
			unsigned char b = byte_at(k, i);

			EVP_DigestUpdate(expect, &b, 1);
		}
		sha256_hex_of(expect, want);
		ok &= !strcmp(got, want);
		ok &= !stat(path[k], &st) && (size_t)st.st_size == written[k];
		ok &= sha256_file(path[k], got) == 0 && !strcmp(got, want);
		EVP_MD_CTX_free(expect);
		EVP_MD_CTX_free(md[k]);
	}
	write_behind_stop(w);
	free(piece);
	check("interleaved files hold their bytes, and digests of them", ok,
	      "a byte lost, reordered or hashed otherwise");
}

/* /dev/full fails every write: its file says ENOSPC, the other nothing. */
static void a_failing_write_is_its_own_files(void)
{
	struct write_behind *w = write_behind_start();
	int full = open("/dev/full", O_WRONLY), fine = open("/dev/null", O_WRONLY);
	EVP_MD_CTX *m1 = sha256_start(), *m2 = sha256_start();
	struct write_behind_file *a = write_behind_open(w, full, m1);
	struct write_behind_file *b = write_behind_open(w, fine, m2);
	char *block = xcalloc(1, WRITE_BEHIND_BLOCK);
	int ea, eb;

	for (int i = 0; i < 3; i++) {
		write_behind_queue(a, block, WRITE_BEHIND_BLOCK);
		write_behind_queue(b, block, WRITE_BEHIND_BLOCK);
	}
	ea = write_behind_close(a);
	eb = write_behind_close(b);
	write_behind_stop(w);
	check("a failed write is reported for its file (ENOSPC)", ea == ENOSPC,
	      strerror(ea));
	check("and not for the file written beside it", eb == 0, strerror(eb));
	free(block);
	close(full);
	close(fine);
	EVP_MD_CTX_free(m1);
	EVP_MD_CTX_free(m2);
}

/*
 * The child that dies leaves what it allocated, as die() does: LeakSanitizer
 * must not turn that into exit code 23 (its documented switch, read at exit).
 */
static int dying;
int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void)
{
	return dying;
}

/*
 * Child: die() with two corpus files open and unflushed; exit() then
 * flushes them into a write-behind the failure stopped.
 */
static _Noreturn void die_with_open_files(void)
{
	char *dest = xasprintf("%s/corpus", dir);
	struct corpus *c = corpus_begin(dest);
	FILE *a = corpus_create(c, "a"), *b = corpus_create(c, "b");
	char *block = xcalloc(1, WRITE_BEHIND_BLOCK);

	if (!freopen("/dev/null", "w", stderr))
		_exit(1);
	dying = 1;
	alarm(20);
	for (int i = 0; i < 20; i++) {
		fwrite(block, 1, WRITE_BEHIND_BLOCK - 3000, a);
		fwrite(block, 1, WRITE_BEHIND_BLOCK - 5000, b);
	}
	die(EXIT_CHECK_FAILED, "stopping with files open");
}

static void dying_with_open_files_exits(void)
{
	int status;
	pid_t pid;
	char *left = xasprintf("%s/corpus", dir);

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		exit(1);
	if (!pid)
		die_with_open_files();
	waitpid(pid, &status, 0);
	check("dying with corpus files open exits with its code",
	      WIFEXITED(status) && WEXITSTATUS(status) == EXIT_CHECK_FAILED,
	      WIFSIGNALED(status) ? "killed (hung, the alarm fired?)" :
	      "another exit code");
	check("and leaves no corpus", access(left, F_OK) != 0, left);
	free(left);
}

/*
 * Child: the writer stuck on a pipe nobody reads yet, three blocks queued
 * behind it and a fourth being filled; then die().  The failure stops the
 * writer once the parent drains the pipe, and at exit two more blocks come
 * (as exit() flushes stdio into open corpus files): with one slot free,
 * the second found the ring full and used to wait for a writer that was
 * gone.
 */
static struct write_behind_file *late;
static char *late_block;

static void flush_at_exit(void)
{
	write_behind_queue(late, late_block, WRITE_BEHIND_BLOCK);
	write_behind_queue(late, late_block, WRITE_BEHIND_BLOCK);
}

static _Noreturn void die_with_the_ring_full(int data, int go)
{
	struct write_behind *w = write_behind_start();

	dying = 1;
	alarm(20);
	late_block = xcalloc(1, WRITE_BEHIND_BLOCK);
	late = write_behind_open(w, data, sha256_start());
	for (int i = 0; i < 4; i++)
		write_behind_queue(late, late_block, WRITE_BEHIND_BLOCK);
	write_behind_queue(late, late_block, 100);
	atexit(flush_at_exit);
	if (write(go, "!", 1) != 1)
		_exit(1);
	die(EXIT_CHECK_FAILED, "stopping with the ring full");
}

static void exit_after_a_failure_does_not_wait(void)
{
	int data[2], go[2], status;
	char buf[65536], c;
	pid_t pid;

	if (pipe(data) || pipe(go))
		exit(1);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		exit(1);
	if (!pid) {
		close(data[0]);
		close(go[0]);
		if (!freopen("/dev/null", "w", stderr))
			_exit(1);
		die_with_the_ring_full(data[1], go[1]);
	}
	close(data[1]);
	close(go[1]);
	if (read(go[0], &c, 1) != 1)
		c = 0;
	while (read(data[0], buf, sizeof(buf)) > 0)
		;
	waitpid(pid, &status, 0);
	check("exit after a failure does not wait for the stopped writer",
	      c == '!' && WIFEXITED(status) &&
	      WEXITSTATUS(status) == EXIT_CHECK_FAILED,
	      WIFSIGNALED(status) ? "killed: it hung until the alarm" :
	      "another exit code");
	close(data[0]);
	close(go[0]);
}

int main(void)
{
	char cmd[64];

	if (!mkdtemp(dir)) {
		perror(dir);
		return 1;
	}
	interleaved_files_hold_their_bytes();
	a_failing_write_is_its_own_files();
	dying_with_open_files_exits();
	exit_after_a_failure_does_not_wait();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		return 1;
	return unit_status();
}

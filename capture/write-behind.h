/* SPDX-License-Identifier: MIT */
/*
 * Write-behind: a thread that writes files' bytes and hashes them, in the
 * order they are handed over, while the caller goes on making the next
 * ones.  For a large fold, writing and hashing its output costs about as
 * much as making it (sha256, and new page-cache pages on these VMs); on a
 * thread of its own it runs on the other core.
 *
 * Each file gathers its bytes in a buffer of WRITE_BEHIND_BLOCK bytes that
 * goes to the thread when full (stdio hands its cookie a few KB at a time:
 * a wake-up and a write(2) for each cost more than a copy).  At most
 * WRITE_BEHIND_QUEUE buffers wait at a time; the caller blocks beyond
 * that, so memory stays bounded.  A failed write is kept and returned
 * when its file is closed: the thread never dies, the caller does,
 * naming the file.
 */
#ifndef CAPTURE_WRITE_BEHIND_H
#define CAPTURE_WRITE_BEHIND_H

#include <stddef.h>
#include <openssl/evp.h>

#define WRITE_BEHIND_QUEUE 4
#define WRITE_BEHIND_BLOCK (1 << 18)

struct write_behind;
struct write_behind_file;

/* Start the thread (stopped by write_behind_stop(), or on failure). */
struct write_behind *write_behind_start(void);
/* Write to @fd through @w, hashing the bytes into @md. */
struct write_behind_file *write_behind_open(struct write_behind *w, int fd,
					    EVP_MD_CTX *md);
/* @len bytes of @data (copied), after those queued before. */
void write_behind_queue(struct write_behind_file *f, const void *data,
			size_t len);
/*
 * Wait until everything queued (@f's bytes and any other file's before
 * them) is written, and free @f (not the fd, nor the digest): 0, or the
 * errno of @f's first write that failed (what came after it was dropped),
 * or ECANCELED once the thread was stopped.
 */
int write_behind_close(struct write_behind_file *f);
/* Stop the thread; what is still queued is dropped. */
void write_behind_stop(struct write_behind *w);

#endif

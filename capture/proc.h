/* SPDX-License-Identifier: MIT */
/* Running other programs (apt-get, make, qemu, docker) and small file helpers. */
#ifndef CAPTURE_PROC_H
#define CAPTURE_PROC_H

#include <stdatomic.h>
#include <stddef.h>
#include <sys/types.h>
#include "err.h"

struct proc_result {
	int exited;      /* 1 if it exited, 0 if killed by a signal or timed out */
	int status;      /* exit status, or the signal */
	int timed_out;
};

/*
 * Run argv[0] (searched in PATH) with @argv; stdout goes to @out_path and
 * stderr to @err_path (NULL: inherit; "/dev/null" to discard).  A @timeout_s
 * above 0 kills the process group after that many seconds.
 */
struct proc_result proc_run(const char *const argv[], const char *out_path,
			    const char *err_path, double timeout_s);
/* A child started by proc_start(): killed with its group if we die. */
struct proc {
	int pid;
	int cleanup;
};

/* Start @argv as proc_run() does, without waiting for it. */
void proc_start(struct proc *p, const char *const argv[], const char *out_path,
		const char *err_path);
/* 1 with *@r filled once @p has ended (waiting for it if @block), else 0. */
int proc_poll(struct proc *p, struct proc_result *r, int block);
/* SIGTERM its group, SIGKILL after a grace period; reaped. */
void proc_stop(struct proc *p);

/* Run and require exit 0, else die with @code naming the command. */
void proc_must(int code, const char *const argv[], const char *out_path);
/* The same for a library: -1 and @err (of kind @code) instead of dying. */
int proc_ok(enum exit_code code, const char *const argv[],
	    const char *out_path, struct cap_err *err);

/* Is @prog on PATH? */
int have_program(const char *prog);

/* Write all of @p to @fd, on through short writes and EINTR: 0, else errno. */
int write_all(int fd, const void *p, size_t len);
/* Whole file into memory (NUL-terminated); NULL if it cannot be read. */
char *read_file(const char *path, size_t *len);
void write_file(const char *path, const void *data, size_t len);
/* Copy @src to @dst; -1 (errno set) if @src cannot be read. */
int copy_file(const char *src, const char *dst);
/*
 * @path can be written by write_file_atomic(): it is not "-" (standard
 * output, which a caller takes before), its directory exists and is
 * writable, and it is missing or a regular file (never a directory,
 * device, FIFO, socket or symbolic link) that is none of the @n @inputs
 * and may be replaced (@replace: --force).  Dies with EXIT_USAGE naming
 * it, and the input it would replace.
 */
void check_output_file(const char *path, char *const inputs[], int n,
		       int replace);
/*
 * @dir can take the files write_files_atomic() writes into it (@what
 * converts into it, for the message): "-" (standard output holds no
 * files), a symbolic link, anything but a directory, one that cannot be
 * written, a missing one whose directory is not there, and one that is or
 * lies inside one of the @n @inputs die with EXIT_USAGE naming it.
 */
void check_output_dir_of_files(const char *dir, char *const inputs[], int n,
			       const char *what);
/*
 * Why @name, which came from input (a trace's id, an action), cannot be
 * a file's name in an output directory, naming no other place and seen
 * by a listing: it is empty, starts with a dot (".", "..", a hidden
 * file), holds a '/' or is too long; NULL if it can.
 */
#define FILE_NAME_MAX 200
#define FILE_NAME_MAX_TEXT "200"
const char *file_name_refused(const char *name);
/*
 * Why @rel, a path a corpus's manifest names, may lie outside the corpus:
 * it is absolute, or a component of it is empty, "." or ".."; NULL if not.
 */
const char *rel_path_refused(const char *rel);
struct out_file {
	char *name;        /* a name file_name_refused() takes, and an extension */
	char *data;
	size_t len;
};
/*
 * Write the @n files @f into directory @dir (checked by
 * check_output_dir_of_files()) whole or not at all: each file's checks
 * first (a file output's, check_output_file(): an existing one only with
 * @replace, none that is one of the @ninputs @inputs), then every file
 * into a staging directory, then into place.  A missing @dir is made;
 * failures die, leaving @dir as it was.
 */
void write_files_atomic(const char *dir, const struct out_file *f, size_t n,
			char *const inputs[], int ninputs, int replace);
/* @mode less the process's umask: what open() and mkdir() would give. */
mode_t umasked(mode_t mode);
/*
 * Write @path whole or not at all (a temporary beside it, then rename),
 * replacing a regular file (whose mode it keeps); a new file's mode is
 * 0666 less the umask.
 */
void write_file_atomic(const char *path, const void *data, size_t len);
/*
 * Dies with EXIT_USAGE naming both if output @out is one of the @n
 * @inputs, a hard link to one, or a directory holding one: replacing it
 * would lose the input.  With @out_inside, also if @out lies inside an
 * input (a directory whose listing the run reads).  "-" is no file.
 */
void refuse_output_over_inputs(const char *out, char *const inputs[], int n,
			       int out_inside);
/*
 * The temporary that becomes @path: "@path.tmp-PID-XXXXXX" (for mkstemp or
 * mkdtemp), naming the process that owns it.
 */
char *owned_tmp_name(const char *path);
/*
 * Remove the temporaries of @path whose owner no longer lives (a capture
 * killed by SIGKILL could not clean up): "@path.tmp-PID" alone, or then
 * "-XXXXXX" or ".MORE", and ours (this user's).  A live owner's, or one in
 * any other name, is left alone.
 */
void remove_stale_tmps(const char *path);
/* $TMPDIR, or /tmp when it is unset or empty. */
const char *temp_dir(void);
/*
 * A temporary of this process in @dir (temp_dir(): $TMPDIR), for mkstemp
 * or mkdtemp: "@dir/@name.tmp-PID-XXXXXX", the temporaries of @name that
 * dead processes left there removed first (remove_stale_tmps()).
 */
char *owned_tmp_in(const char *dir, const char *name);
/*
 * Dies with EXIT_BAD_INPUT naming @name if @path is (or links to) a device:
 * no recording lives there, and /dev/zero would be read forever.
 */
void refuse_device(const char *path, const char *name);
/* The same for a library: -1 and @err instead of dying. */
int device_refused(const char *path, const char *name, struct cap_err *err);
int file_exists(const char *path);
/* mkdir -p @path; dies with EXIT_CAPTURE_FAILED naming what failed. */
void mkdir_p(const char *path);
/* The same for a library: -1 and @err instead of dying. */
int mkdir_ok(const char *path, struct cap_err *err);
void remove_tree(const char *path);
/* remove_tree(@path) if the process dies: a handle for cancel_on_failure(). */
int remove_on_failure(const char *path);
/*
 * mkdtemp(@tmpl) and remove_on_failure() of it as one step against a
 * signal's cleanups (cleanups_hold()): a temporary made while they run
 * would outlive them.  The cleanup's handle, or -1 (errno) if mkdtemp
 * failed.
 */
int mkdtemp_on_failure(char *tmpl);
/* The same for mkstemp(@tmpl): its descriptor and *@cleanup, or -1 (errno). */
int mkstemp_on_failure(char *tmpl, int *cleanup);
/*
 * Call in main(), before any thread: OpenSSL without its exit-time
 * cleanup, which exit() (a die() on any thread) would otherwise run under
 * a thread still hashing (the bpf engine deciding how uprobes attach, a
 * hashing worker): a SIGSEGV in EVP_MD_fetch.  The process's end frees it.
 */
void hashing_init(void);
/* Hex sha256 of a file (65 bytes incl. NUL into @hex); 0 on success. */
int sha256_file(const char *path, char hex[65]);
/* The same on a thread: gives up (-1) as soon as *@stop is set. */
int sha256_file_unless(const char *path, char hex[65], const atomic_int *stop);
void sha256_hex(const void *data, size_t len, char hex[65]);
/* The first 32 bytes of digest @md (@n bytes) in hex, into @hex. */
void hex_digest(const unsigned char *md, unsigned n, char hex[65]);

/* Seconds on the monotonic clock: for timeouts, never for output. */
double monotonic_seconds(void);
/*
 * The start's phases: phase(NAME) ends the phase NAME, begun where the
 * last phase() ended (or at the process's start); phase_span(NAME,
 * BEGIN) one that began at BEGIN (monotonic_seconds()) on another
 * thread.  phases_report(WHAT), if CAPTURE_PHASES is set, says on stderr
 * how long each took, from when to when, and when WHAT (the target
 * released, the probes armed) came, in seconds since the process's start
 * (bench/probe-start).
 */
void phase(const char *name);
void phase_span(const char *name, double begin);
void phases_report(const char *what);

/*
 * Names in @dir that do not start with '.' and that @keep (if not NULL)
 * accepts, sorted by strcmp (the same order on every machine); *@n gets
 * their number.  NULL (only) if @dir cannot be opened.
 */
char **list_dir(const char *dir, int (*keep)(const char *name), size_t *n);
void free_names(char **names, size_t n);
int has_suffix(const char *s, const char *suffix);
/* Is @s an identifier: a letter or '_', then letters, digits and '_'? */
int is_identifier(const char *s);

#endif

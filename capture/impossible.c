// SPDX-License-Identifier: MIT
#include <stdlib.h>
#include <string.h>
#include "audit-domain.h"
#include "corpus.h"
#include "die.h"
#include "impossible.h"
#include "system.h"
#include "windows.h"

/* One action's file: its lines so far. */
struct action_file {
	char *action;
	struct strbuf text;
	long n;
};

struct impossible_files {
	struct action_file *files;
	size_t n;
};

static struct action_file *file_of(struct impossible_files *fs,
				   const char *action)
{
	struct action_file *af;

	for (size_t i = 0; i < fs->n; i++)
		if (!strcmp(fs->files[i].action, action))
			return &fs->files[i];
	fs->files = xrealloc(fs->files, (fs->n + 1) * sizeof(*fs->files));
	af = &fs->files[fs->n++];
	*af = (struct action_file){ .action = xstrdup(action),
				    .text = STRBUF_INIT };
	return af;
}

/* The windows of cell (@row, @col), impossible because @why. */
static void add_cell(struct impossible_files *fs, const struct folder *f,
		     const char *row, const char *col, const char *why,
		     enum json_style st)
{
	cJSON *all = f->audit->impossible_windows(row, col), *w;
	char *trace = xasprintf("%s: %s", row, col);

	cJSON_ArrayForEach(w, all) {
		const char *action = json_get_str(w, "action");
		struct action_file *af = file_of(fs, action);
		cJSON *rec = windows_canonical_record(
			++af->n, trace, 1, action, f->actor,
			(cJSON *)json_get(w, "pre_state"),
			(cJSON *)json_get(w, "post_state"),
			(cJSON *)json_get(w, "input"));

		json_add(rec, "impossible", json_str(why));
		json_write(&af->text, rec, st);
		strbuf_add(&af->text, "\n", 1);
		cJSON_Delete(rec);
	}
	cJSON_Delete(all);
	free(trace);
}

long impossible_windows_write(struct corpus *c, const struct folder *f,
			      enum json_style st)
{
	const struct audit_domain *d = f->audit;
	struct impossible_files fs = { 0 };
	struct audit_axes ax = { 0 };
	cJSON *learned;
	long n = 0;

	if (!d || !d->impossible || !d->impossible_windows)
		return 0;
	learned = json_obj();
	d->axes(&ax, learned);
	for (size_t r = 0; r < ax.nrows; r++) {
		for (size_t k = 0; k < ax.ncols; k++) {
			const char *why = d->impossible(ax.rows[r], ax.cols[k]);

			if (why)
				add_cell(&fs, f, ax.rows[r], ax.cols[k], why, st);
		}
	}
	for (size_t i = 0; i < fs.n; i++) {
		char *rel = xasprintf("%s/impossible/%s.ndjson", f->name,
				      fs.files[i].action);
		FILE *out = corpus_create(c, rel);

		fwrite(fs.files[i].text.buf, 1, fs.files[i].text.len, out);
		corpus_close(c, out, rel);
		n += fs.files[i].n;
		strbuf_release(&fs.files[i].text);
		free(fs.files[i].action);
		free(rel);
	}
	free(fs.files);
	audit_axes_free(&ax);
	cJSON_Delete(learned);
	return n;
}

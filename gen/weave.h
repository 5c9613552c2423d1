/* weave.h: the project woven for one output, shared by the book and the skill.
 *
 * lit_weave_new runs every document through the renderer (render.h) in
 * reading order, parses each woven text with cmark-gfm (tables,
 * strikethrough, autolinks), and records what the back ends need before
 * they emit anything: each page's output path and title, its headings with
 * GitHub-style anchors ("Shared memory" -> "shared-memory", repeats get -1,
 * -2), and the section each code block sits in. With those known, any link
 * can be checked and rewritten in one lookup (lit_weave_link), so the whole
 * cross-reference is linear in the size of the documents.
 *
 * Ownership: lit_weave_new returns a weave the caller frees with
 * lit_weave_free; it borrows the project, which must outlive it. Every
 * string and tree in the views below belongs to the weave. */
#ifndef LIT_WEAVE_H
#define LIT_WEAVE_H

#include <cmark-gfm.h>
#include <stddef.h>

#include "diag.h"
#include "model.h"
#include "render.h"
#include "util.h"

typedef enum { LIT_WEAVE_BOOK, LIT_WEAVE_SKILL } lit_weave_kind;

typedef struct {
  char *slug; /* anchor, unique in its page */
  char *text; /* plain text */
  int level;
} lit_heading;

typedef struct {
  const lit_doc *doc;
  char *md; /* woven Markdown, code fences marked "lit-block=N" */
  size_t len;
  lit_line_map map; /* woven line -> line of doc */
  cmark_node *tree; /* the parse of md (book only; NULL for the skill) */
  char *out_path;   /* "index.html", "h100.html"; "SKILL.md", "references/h100.md" */
  char *title;      /* the first heading's text, else the document's path */
  lit_heading *heads;
  size_t nheads;
  const lit_heading **section; /* per block index: the heading of its section, NULL before any */
} lit_wdoc;

typedef struct lit_weave {
  const lit_project *p;
  lit_weave_kind kind;
  lit_wdoc *docs; /* reading order, like p->docs */
  size_t ndocs;
  cmark_llist *exts;            /* the syntax extensions, for cmark_render_html */
  const char *const *shipped;   /* borrowed from lit_weave_opts: by index in p->files; NULL when none */
  struct lit_weave_tables *own; /* weave.c's alone: pages and files by path, each page's anchors */
} lit_weave;

/* What the back end brings to the weave: the rules that are its own. */
typedef struct {
  /* Per file of p->files, the path the output carries it at ("scripts/x.py",
   * the skill's), or NULL; links to a shipped file go there. Borrowed: it
   * must outlive the weave. NULL: nothing is shipped. */
  const char *const *shipped;
  /* Paths the back end writes itself, which no page may be woven to
   * (NULL-terminated; NULL for none). */
  const char *const *reserved;
  const lit_lua_limits *limits; /* NULL: the defaults */
} lit_weave_opts;

/* Returns NULL if a document failed to weave, or d held errors already
 * (every document is still rendered, so all its messages are reported). */
lit_weave *lit_weave_new(const lit_project *p, lit_weave_kind kind, const lit_weave_opts *o, lit_diags *d);
void lit_weave_free(lit_weave *w);

/* 0 if dir, the folder a weave is installed as (relative to the current
 * folder; lit_tree_install replaces it whole), holds none of the project's
 * documents, its record or its output folders once links are resolved (it
 * is not the project's own folder, nor one above it), and neither does
 * any folder beside it named like a killed run's leftover of it
 * (lit_tree_leftovers: lit_tree_install removes those, or moves one into
 * place); else -1, reported (option, "--out" or "--dest", is the one that
 * picks another folder): a manifest or a staging marker there, true or
 * forged, must never vouch for the sources. */
int lit_weave_check_out(const lit_project *p, const char *dir, const char *option, lit_diags *d);
/* 0 unless dir, an --out or --dest (option) that must name a folder,
 * exists and is a file (not a folder, nor a symbolic link, which the
 * callers refuse in their own words): -1, reported, if it is one of the
 * project's documents, its record (or an output folder's name), said so
 * in those words; if any is set, -1 reported for every other file too.
 * lit_weave_check_out checks this first; lit book --check and lit skill
 * (whose --out holds the bundle's folder) call it themselves. */
int lit_weave_check_out_file(const lit_project *p, const char *dir, int any, const char *option, lit_diags *d);

/* The page holding document `path` (project-relative), or NULL. */
const lit_wdoc *lit_weave_page(const lit_weave *w, const char *path);
/* The tangled file written to `path`, or NULL. */
const lit_file *lit_weave_file(const lit_weave *w, const char *path);

/* Rewrites a link found on woven line `line` of page `from` for the output.
 * Returns 1 with the new target in *out (the caller frees it), 0 to keep the
 * link as it is (external, or already right), -1 when the link must become
 * plain text (reported through d: an error if its target does not exist, a
 * warning if it exists but the output cannot carry it). */
int lit_weave_link(const lit_weave *w, const lit_wdoc *from, const char *url, int line, char **out, lit_diags *d);

/* The anchor of a block in the book: "chunk-NAME-K" for the K-th definition
 * of a chunk, "file-PATH" for an unnamed file block. The caller frees it. */
char *lit_weave_block_id(const lit_block *b);
/* Link from page `from` to the file `to` ("../SKILL.md", "h100.md"),
 * percent-encoded (lit_path_escape) so that any file name works as a link
 * target; the caller frees it. */
char *lit_weave_relative(const char *from, const char *to);

/* The block index a woven fence's info string carries ("cuda lit-block=7"),
 * or -1; *lang_len gets the length of the language word before it. */
long lit_weave_marker(const char *info, size_t *lang_len);
/* Appends the GitHub-style anchor for heading text to out. */
void lit_weave_slug(const char *text, size_t len, lit_buf *out);

/* The anchors of one page's headings made unique as GitHub makes them: a
 * slug already taken gets -1, -2, ..., the first suffix not taken ("a",
 * "a-1", "a" give a, a-1, a-2). Anchors are never given back, so the first
 * free suffix of a slug only grows: remembering it per slug makes n equal
 * headings cost about n lookups, where probing from -1 each time cost n²/2
 * (20,000 "## Notes" took 20 s). */
typedef struct {
  char *slug;  /* owned */
  size_t next; /* the first suffix that may be free (0: the slug itself) */
} lit_slug_next;

typedef struct {
  lit_index index; /* slug -> position in items */
  lit_slug_next *items;
  size_t n, cap;
  size_t probes; /* lookups in the page's anchors so far: the tests hold it linear */
} lit_slugger;

#define LIT_SLUGGER_INIT                                                                                               \
  { LIT_INDEX_INIT, NULL, 0, 0, 0 }

/* Turns slug (a heading's slug, never empty) into the first of slug,
 * slug-1, slug-2, ... that `anchors` lacks. The caller adds the result to
 * anchors before the next call. */
void lit_slugger_unique(lit_slugger *s, const lit_index *anchors, lit_buf *slug);
void lit_slugger_free(lit_slugger *s);

#endif

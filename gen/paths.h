/* paths.h: deciding whether an output path may be written.
 *
 * A file= path is relative to the project root and must fall inside one of
 * the output folders the project declares. It is refused if it is absolute,
 * holds '..', '.' or empty components, or if an existing part of it resolves
 * (through a symbolic link) to somewhere outside that output folder. */
#ifndef LIT_PATHS_H
#define LIT_PATHS_H

#include <stddef.h>

#include "util.h"

/* Returns NULL if path is a plain relative path (not empty, not absolute, no
 * '.', '..' or empty components, no backslash or control character), else a
 * static reason. */
const char *lit_path_check_plain(const char *path);

/* Returns NULL if every character of name is printable UTF-8, else what
 * is not, for a message ("a control character", "a byte that is not
 * UTF-8"). A document's name is written into the header comment of each
 * file it generates, into #line directives and into lit dump, map and
 * stats: a newline there would end the comment (the rest of the name
 * becomes code), an escape sequence would reach the terminal. */
const char *lit_path_check_name(const char *name);
/* 1 if path can lead out of the folder it is relative to without a
 * symbolic link: it is absolute, or holds a '..' component. */
int lit_path_climbs(const char *path);
/* 1 if the folder folder[0..len) (no trailing '/') is one of the output
 * folders roots, which end in '/'. */
int lit_path_is_root(const char *folder, size_t len, char *const *roots, size_t nroots);
/* Returns NULL if path is plain and inside an output folder, else a static reason. */
const char *lit_path_check_syntax(const char *path, char *const *roots, size_t nroots);
/* Returns NULL if, on disk under project_root, path stays inside its output
 * folder, else a static reason, or for a symbolic link loop one that names
 * it, valid until this thread's next check (as for the two below). */
const char *lit_path_check_disk(const char *project_root, const char *path, char *const *roots, size_t nroots);
/* Returns NULL if path is plain and, on disk under project_root, stays
 * inside the project (no symbolic link leading out) and is neither a link
 * nor a folder; else a static reason. For paths outside the output folders
 * that lit still writes, such as the record. */
const char *lit_path_check_project(const char *project_root, const char *path);
/* NULL if path, once every link in it is resolved, lies inside the project
 * (or does not exist: the read that follows reports that); else a static
 * reason: that it lies outside the project when the path climbs out by
 * itself (lit_path_climbs), that a symbolic link leads out otherwise. For
 * files lit reads: documents, the record. */
const char *lit_path_check_read(const char *project_root, const char *path);
/* 1 if path is spelled as one of files[0..n) or, once every link is
 * resolved, is the same file (device and inode) as one of them; all are
 * relative to project_root. For what lit must never remove, however a
 * record or a journal spells it: the documents, the record. */
int lit_path_same_as_any(const char *project_root, const char *path, char *const *files, size_t n);
/* NULL if path, once every link in the part of it that exists is resolved,
 * lies in no `.git` folder inside the project (nor names one); else a
 * static reason. git's files are never lit's, whatever a record, a journal
 * or the front matter says. */
const char *lit_path_check_git(const char *project_root, const char *path);
/* 1 if path has a component ".git", in any ASCII case (spelling only,
 * nothing read). */
int lit_path_names_git(const char *path);
/* The reason lit gives for a path in a .git folder. */
extern const char lit_path_git_why[];
/* lit_path_git_why if real (an absolute real path), below proj_real where it
 * is inside it, has a component ".git"; else NULL. */
const char *lit_path_real_names_git(const char *proj_real, const char *real);
/* 1 if `inner` is `outer` or below it (both absolute real paths). */
int lit_path_is_inside(const char *outer, const char *inner);
/* The absolute real path of path under project_root: the longest part of
 * it that exists with every link resolved, then the rest as spelled. Two
 * paths with the same result name one file, however they are spelled; NULL
 * if nothing of it resolves. The caller frees the result. */
char *lit_path_real(const char *project_root, const char *path);
/* NULL if every component of path fits in NAME_MAX and the path joined to
 * project_root fits in PATH_MAX, with room for the temporary lit stages
 * beside it; else a static reason. Checked when the documents are read, so
 * a name the system will refuse is reported at its block, not as a write
 * that fails (or never, under --check). */
const char *lit_path_check_length(const char *project_root, const char *path);
/* Joins a project root and a relative path; the caller frees the result. */
char *lit_path_join(const char *root, const char *rel);

/* The one reading of a link for the loader (the reading order) and the
 * weaver (every link on a page), so the two cannot disagree.
 *
 * url[0..len) with its %XX escapes decoded, as a browser or GitHub opens
 * the file ("my%20doc.md" names "my doc.md"), except %00: a file name holds
 * no NUL, so it stays as written. The caller frees the result. */
char *lit_path_unescape(const char *url, size_t len);
/* The inverse, for every link lit writes to a file it names (a page, a
 * shipped file): path[0..len) appended to out with RFC 3986's unreserved
 * characters (letters, digits, '-', '.', '_', '~') and '/' as they are and
 * every other byte as %XX (uppercase hex). A name holding '?', '#', '%',
 * a space or a parenthesis then links to itself in a browser and in
 * Markdown, and lit_path_unescape reads it back. */
void lit_path_escape(lit_buf *out, const char *path, size_t len);
/* The project-relative path that the path part of a relative link,
 * url[0..len) (no '#fragment'), names from document `from` (itself
 * project-relative): unescaped as above, joined to from's folder, with "."
 * and empty segments dropped and ".." climbing. NULL if it climbs out of
 * the project; else the caller frees the result. */
char *lit_path_resolve_link(const char *from, const char *url, size_t len);

/* A descriptor open for reading (O_NONBLOCK: a FIFO cannot hang the open)
 * on dir/rel only if the file it reaches lies inside dir, links resolved,
 * or -1 with errno set (EXDEV for a path that leads out). The check and
 * the open are one step: openat2 with RESOLVE_BENEATH refuses any
 * resolution that leaves dir (.., an absolute link, a link leading out),
 * so a link swapped in between a check and the open cannot lead out.
 * Where openat2 is missing (kernels before 5.6) or filtered,
 * lit_path_open_checked opens the file first and then checks the path the
 * open reached (/proc/self/fd). The caller closes the descriptor and
 * checks the file's type. */
int lit_path_open_beneath(const char *dir, const char *rel);
/* Reads dir/rel, a regular file, whole into *out, opened beneath dir by
 * lit_path_open_beneath (dir NULL or "": the current folder), never by a
 * name checked earlier; its status as opened into *st (may be NULL). 0,
 * an errno (EXDEV: it leads out of dir), or LIT_ENOTREG. */
struct stat;
int lit_path_read_beneath(const char *dir, const char *rel, lit_buf *out, struct stat *st);
int lit_path_open_checked(const char *dir, const char *rel);
/* The folder rel ("" for dir itself) beneath dir, as a descriptor for the
 * *at calls (O_PATH where openat2 serves): resolved once, it stays the
 * folder it was however its path is changed after. -1 and errno (EXDEV:
 * it leads outside dir). The caller closes it. */
int lit_path_dir_beneath(const char *dir, const char *rel);

#endif

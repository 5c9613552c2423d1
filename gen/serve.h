/* serve.h: `lit watch` and `lit serve`, the live preview.
 *
 * Both refuse a book folder (--out) that is not a book lit wrote, unless
 * it is empty or new (lit_serve_check_out), or that holds the project's
 * own files whatever its manifest says (lit_serve_check_project), so they
 * never start to serve the project itself; then tangle the project and
 * weave the book once, then watch the folders of the documents (those
 * above them, and their results/ folders) with inotify, by name, and do
 * it again whenever a document, a results file or a Lua file changes, or
 * one of those folders is made, moved or removed. Each build runs in a
 * child process, so that a Lua block stopped by its wall-clock alarm (which
 * ends the process) or a crash is one more failed build. A build that
 * fails prints its messages, as every command does, and changes nothing
 * on disk: the tangler and the book are all-or-nothing, so the last good
 * kernels and book stay in place while a half-written document is being
 * edited. With --stitch the generated files' folders are watched too, and
 * each build first runs lit stitch (stitch.h): a hand edit saved in a
 * generated file goes into its document, which the build then tangles and
 * weaves as any edit of the document (a stitch that is refused is a failed
 * build, with its message, and changes nothing).
 *
 * `lit serve` also serves the book over HTTP on 127.0.0.1 only, through
 * libmicrohttpd (epoll, a connection limit overall and per address, an
 * idle timeout). Every HTML page it sends carries a small script that asks
 * the server for the build's state twice a second: it reloads the page
 * after a successful rebuild and shows a failed build's messages on the
 * page. Only files inside the book folder are served (lit_serve_path,
 * lit_path_open_beneath), and
 * only to requests for the server's own address (lit_serve_host_ok). */
#ifndef LIT_SERVE_H
#define LIT_SERVE_H

#include <stddef.h>

#include "diag.h"

typedef struct {
  const char *root, *entry; /* the project, as for every command */
  const char *out;          /* the book folder; default "book" */
  int port;                 /* serve: the loopback port (0 picks a free one); default 8000 */
  int serve;                /* 1: serve and watch; 0: watch only */
  int stitch;               /* --stitch: also watch the generated files; each build stitches hand edits first */
} lit_serve_opts;

/* Runs until SIGINT or SIGTERM. Returns 0 after a clean stop, 1 when it
 * cannot start (a message on stderr). */
lit_status lit_serve_run(const lit_serve_opts *o);

/* The path rules. Maps a request's (already %-decoded) path to a file name
 * relative to the book folder: "/" and "/x/" get "index.html"; a path that
 * does not start with "/", holds a backslash, an empty, "." or ".." segment
 * or a segment starting with "." (a hidden file), or does not fit in n
 * bytes, is refused. 0 with rel filled, or -1. */
int lit_serve_path(const char *url, char *rel, size_t n);

/* The Host rule, against DNS rebinding: 1 if host (a request's Host
 * header, NULL when there is none) is localhost, 127.0.0.1 or [::1] with
 * port (the name in any case; no port only for port 80), else 0. */
int lit_serve_host_ok(const char *host, unsigned port);

/* 0 if out may be the book folder of `lit command` (serve or watch): a
 * book lit wrote, an empty folder or a missing one. Else -1, the reason
 * reported through d. */
int lit_serve_check_out(const char *out, const char *command, lit_diags *d);

/* 0 if o->out holds none of the project's own files: its documents,
 * record or output folders, once links are resolved (lit_weave_check_out,
 * as every build checks): a manifest forged in the project's folder must
 * not make lit serve that folder. The project is read here for its files
 * alone (the first build reports its messages); one that cannot be read
 * at all still may not be inside o->out. Else -1, the reason reported
 * through d. */
int lit_serve_check_project(const lit_serve_opts *o, lit_diags *d);

#endif

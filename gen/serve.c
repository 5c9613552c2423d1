/* serve.c: rebuild on change (inotify, each build in a child process), and the book over loopback HTTP
 * (libmicrohttpd). */
#define _GNU_SOURCE /* open_memstream, realpath, pipe2, strsignal */
#include "serve.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "book.h"
#include "book_search.h"
#include "diag.h"
#include "lua_host.h"
#include "model.h"
#include "outputs.h"
#include "paths.h"
#include "stitch.h"
#include "tree.h"
#include "util.h"
#include "weave.h"

/* ---- the path rules ---- */

int lit_serve_path(const char *url, char *rel, size_t n) {
  if (!url || url[0] != '/' || strchr(url, '\\')) return -1;
  lit_buf b = LIT_BUF_INIT;
  const char *s = url + 1;
  int status = 0;
  while (*s && status == 0) {
    const char *e = strchr(s, '/');
    size_t len = e ? (size_t)(e - s) : strlen(s);
    if (len == 0 || s[0] == '.') status = -1; /* "", ".", "..", ".hidden" */
    lit_buf_put(&b, s, len);
    if (e && e[1]) lit_buf_putc(&b, '/');
    if (e && !e[1]) lit_buf_puts(&b, "/index.html");
    s += len + (e ? 1 : 0);
  }
  if (status == 0 && b.len == 0) lit_buf_puts(&b, "index.html");
  if (status == 0 && b.len + 1 > n) status = -1;
  if (status == 0) memcpy(rel, b.data, b.len + 1);
  lit_buf_free(&b);
  return status;
}

/* ---- the Host header ---- */

int lit_serve_host_ok(const char *host, unsigned port) {
  static const char *const names[] = {"localhost", "127.0.0.1", "[::1]"};
  for (size_t i = 0; host && i < sizeof names / sizeof names[0]; i++) {
    size_t n = strlen(names[i]);
    if (strncasecmp(host, names[i], n) != 0) continue;
    const char *rest = host + n;
    if (!*rest) return port == 80; /* a browser leaves the default port out */
    if (rest[0] != ':' || rest[1] < '0' || rest[1] > '9') continue;
    char *end;
    unsigned long p = strtoul(rest + 1, &end, 10);
    if (!*end && p == port) return 1;
  }
  return 0;
}

/* ---- the build ---- */

typedef struct {
  const lit_serve_opts *o;
  pthread_mutex_t lock; /* guards the three below, read by the server's thread */
  unsigned long generation;
  int ok;
  char *messages; /* the last build's messages, for the page */
} S_state;

static volatile sig_atomic_t S_stop;

static void S_on_signal(int sig) {
  (void)sig;
  S_stop = 1;
}

static double S_ms_since(const struct timespec *t0) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

static const char S_kept[] = "the last good kernels and book stay in place";

/* The folder of path (relative to o->root), under o->root; a leading mark
 * when it is given. */
static void S_put_folder(lit_buf *r, const lit_serve_opts *o, const char *mark, const char *path) {
  const char *slash = strrchr(path, '/');
  char *dir = slash ? lit_xasprintf("%s%s/%.*s", mark, o->root, (int)(slash - path), path)
                    : lit_xasprintf("%s%s", mark, o->root);
  lit_buf_put(r, dir, strlen(dir) + 1);
  free(dir);
}

/* The build's result, for the parent: '1' or '0' for "all good", the same
 * for "the book was installed", then each document's folder, NUL-terminated,
 * so the watcher can follow a document added to a new folder; with
 * --stitch, then each generated file's folder, marked with a leading '>'. */
static void S_write_result(const lit_serve_opts *o, const lit_project *p, int ok, int woven, int out) {
  lit_buf r = LIT_BUF_INIT;
  lit_buf_putc(&r, ok ? '1' : '0');
  lit_buf_putc(&r, woven ? '1' : '0');
  for (size_t i = 0; p && i < p->ndocs; i++)
    S_put_folder(&r, o, "", p->docs[i]->src.path);
  for (size_t i = 0; p && o->stitch && i < p->nfiles; i++)
    S_put_folder(&r, o, ">", p->files[i].path);
  lit_write_all(out, r.data, r.len);
  lit_buf_free(&r);
}

/* The build itself, in the child process: tangles and weaves the book,
 * prints the messages (to the parent's pipe) and writes the result to out. */
static void S_build_child(const lit_serve_opts *o, int out) {
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  lit_diags *d = lit_diags_new();
  lit_project *p = lit_project_load(o->root, o->entry, d);
  int ok = p && lit_diags_count(d, LIT_ERROR) == 0;
  if (ok && o->stitch) {
    /* A hand edit saved in a generated file goes into its document first;
     * the documents are then read again, as the stitch left them. */
    lit_stitch_opts so = {NULL, 0, 1};
    ok = lit_stitch_run(p, &so, d) == LIT_OK;
    if (ok) {
      lit_project_free(p);
      p = lit_project_load(o->root, o->entry, d);
      ok = p && lit_diags_count(d, LIT_ERROR) == 0;
    }
  }
  if (ok) {
    lit_outputs_opts oo;
    memset(&oo, 0, sizeof oo);
    oo.quiet = 1;
    lit_outputs_stats stats;
    ok = lit_outputs_run(p, &oo, &stats, d) == LIT_OK;
  }
  int woven = 0;
  if (p && lit_diags_count(d, LIT_ERROR) == 0) {
    lit_tree t = LIT_TREE_INIT;
    woven = lit_book_build(p, &t, d) == LIT_OK && lit_weave_check_out(p, o->out, "--out", d) == 0 &&
            lit_tree_install(&t, o->out, "chunks.html", 0, d) == 0;
    lit_tree_free(&t);
  }
  ok = ok && woven;
  if (!ok) lit_diag(d, LIT_NOTE, NULL, 0, 0, "%s", S_kept);
  lit_diags_print(d, stderr);
  if (ok) fprintf(stderr, "lit: tangled and woven in %.0f ms\n", S_ms_since(&t0));
  S_write_result(o, p, ok, woven, out);
  lit_project_free(p);
  lit_diags_free(d);
}

/* The page shows at most this much of a build's messages. */
enum { S_MESSAGES_MAX = 1 << 20 };

/* Reads the child's stderr (copied to ours, and kept for the page) and its
 * result until both pipes close. A stop asked for meanwhile stops the
 * child too: a runaway Lua block would otherwise hold the stop until its
 * alarm. */
static void S_collect(pid_t pid, int err, int res, lit_buf *msgs, lit_buf *result) {
  struct pollfd fds[2] = {{err, POLLIN, 0}, {res, POLLIN, 0}};
  int left = 2, stopped = 0;
  while (left > 0) {
    if (S_stop && !stopped) stopped = kill(pid, SIGTERM) == 0;
    if (poll(fds, 2, 200) <= 0) continue; /* a timeout or a signal: look at S_stop again */
    for (int i = 0; i < 2; i++) {
      if (fds[i].fd < 0 || !fds[i].revents) continue;
      char buf[4096];
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        left--;
      } else if (i == 0) {
        fwrite(buf, 1, (size_t)n, stderr);
        if (msgs->len < S_MESSAGES_MAX) lit_buf_put(msgs, buf, (size_t)n);
      } else {
        lit_buf_put(result, buf, (size_t)n);
      }
    }
  }
}

/* A child that ended without its result (the Lua alarm exits it, a crash
 * kills it) failed like any build: said so, in the terminal and on the page. */
static void S_report_unfinished(int status, lit_buf *msgs) {
  lit_diags *d = lit_diags_new();
  if (WIFSIGNALED(status) && !S_stop)
    lit_diag(d, LIT_ERROR, NULL, 0, 0, "the build was stopped by signal %d (%s)", WTERMSIG(status),
             strsignal(WTERMSIG(status)));
  lit_diag(d, LIT_NOTE, NULL, 0, 0, "%s", S_kept);
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  if (mem) {
    lit_diags_print(d, mem);
    fclose(mem);
    fputs(text, stderr);
    lit_buf_put(msgs, text, len);
  }
  free(text);
  lit_diags_free(d);
}

/* Closes both ends of up to two pipes, keeping errno for the caller's message. */
static void S_close_pipes(int a[2], int b[2]) {
  int e = errno;
  for (int i = 0; i < 2; i++) {
    if (a) close(a[i]);
    if (b) close(b[i]);
  }
  errno = e;
}

/* Starts the child; its pid, or -1 with errno set. */
static pid_t S_spawn(const lit_serve_opts *o, int err[2], int res[2]) {
  if (pipe2(err, O_CLOEXEC) != 0) return -1;
  if (pipe2(res, O_CLOEXEC) != 0) {
    S_close_pipes(err, NULL);
    return -1;
  }
  fflush(NULL); /* nothing buffered is written twice */
  pid_t pid = fork();
  if (pid < 0) {
    S_close_pipes(err, res);
    return -1;
  }
  if (pid == 0) {
    signal(SIGINT, SIG_DFL); /* Ctrl-C stops the build as it stops any lit */
    signal(SIGTERM, SIG_DFL);
    close(err[0]);
    close(res[0]);
    dup2(err[1], 2);
    lit_lua_set_alarm_note(NULL); /* the parent says what stays in place */
    S_build_child(o, res[1]);
    fflush(stderr);
    _exit(0);
  }
  close(err[1]);
  close(res[1]);
  return pid;
}

/* ---- watching ---- */

/* The folders watched, by name: the documents' folders, every folder
 * between them and the project's root, and their results/ folders. A
 * watch follows an inode, so after `mv references references.old; mkdir
 * references` the old watch hears the moved folder; every build watches
 * each name again (inotify gives an inode it already watches its old
 * watch back), and drops the watches no name leads to any more. */
typedef struct {
  char *path;
  int wd;  /* -1: not watched (missing) */
  int out; /* a generated files' folder (--stitch): any file saved there counts */
} S_folder;

typedef struct {
  int fd;
  S_folder *f;
  size_t n, cap;
  int again; /* a change was heard while the last build ran: build again */
} S_watcher;

static const uint32_t S_MASK =
    IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVE_SELF | IN_DELETE_SELF | IN_ONLYDIR;

static void S_watch_path(S_watcher *w, char *path) {
  for (size_t i = 0; i < w->n; i++)
    if (strcmp(w->f[i].path, path) == 0) {
      free(path);
      return;
    }
  w->f = lit_grow(w->f, &w->cap, w->n + 1, sizeof *w->f);
  w->f[w->n].path = path;
  w->f[w->n].out = 0;
  w->f[w->n++].wd = -1;
}

/* A generated files' folder (--stitch), watched for the files saved in it. */
static void S_watch_out(S_watcher *w, char *path) {
  char *key = lit_xstrdup(path); /* S_watch_path frees path when it is watched already */
  S_watch_path(w, path);
  for (size_t i = 0; i < w->n; i++)
    if (strcmp(w->f[i].path, key) == 0) w->f[i].out = 1;
  free(key);
}

/* A document's folder, its results/ and the folders between it and root
 * (root itself is watched from the start). */
static void S_watch_doc_folder(S_watcher *w, const char *root, const char *dir) {
  S_watch_path(w, lit_xasprintf("%s/results", dir));
  size_t rl = strlen(root), len = strlen(dir);
  while (len > rl) {
    S_watch_path(w, lit_xstrndup(dir, len));
    while (len > rl && dir[len - 1] != '/')
      len--;
    if (len > rl) len--; /* the slash */
  }
}

static int S_has_wd(const S_watcher *w, int wd) {
  for (size_t i = 0; i < w->n; i++)
    if (w->f[i].wd == wd) return 1;
  return 0;
}

/* Watches every folder by its name now; drops the watches left on folders
 * that no name leads to (moved away or deleted). */
static void S_rewatch(S_watcher *w) {
  int *old = lit_xmalloc((w->n + 1) * sizeof *old);
  for (size_t i = 0; i < w->n; i++) {
    old[i] = w->f[i].wd;
    w->f[i].wd = inotify_add_watch(w->fd, w->f[i].path, S_MASK);
  }
  for (size_t i = 0; i < w->n; i++)
    if (old[i] >= 0 && !S_has_wd(w, old[i])) inotify_rm_watch(w->fd, old[i]);
  free(old);
}

/* A change worth a rebuild: a document, a results file or Lua, not an
 * editor's swap file or the outputs' staging folders. */
static int S_relevant(const char *name) {
  size_t n = strlen(name);
  if (!n || name[0] == '.') return 0;
  return (n > 3 && strcmp(name + n - 3, ".md") == 0) || (n > 5 && strcmp(name + n - 5, ".json") == 0) ||
         (n > 4 && strcmp(name + n - 4, ".lua") == 0);
}

/* 1 if path is a watched folder or one above it: made, moved or removed,
 * it changes which documents there are (the book's own folder, swapped in
 * by every build, is neither, or each build would start the next). */
static int S_leads_to_watched(const S_watcher *w, const char *path) {
  size_t n = strlen(path);
  for (size_t i = 0; i < w->n; i++)
    if (strncmp(w->f[i].path, path, n) == 0 && (w->f[i].path[n] == '\0' || w->f[i].path[n] == '/')) return 1;
  return 0;
}

/* 1 if the event is a file saved in a generated files' folder (--stitch). */
static int S_in_out_folder(const S_watcher *w, const struct inotify_event *ev) {
  if (!ev->len || (ev->mask & IN_ISDIR) || ev->name[0] == '.') return 0; /* lit's staged copies are hidden */
  for (size_t i = 0; i < w->n; i++)
    if (w->f[i].wd == ev->wd && w->f[i].out) return 1;
  return 0;
}

static int S_event_matters(const S_watcher *w, const struct inotify_event *ev) {
  if (ev->mask & IN_Q_OVERFLOW) return 1;                   /* events were lost */
  if (ev->mask & (IN_MOVE_SELF | IN_DELETE_SELF)) return 1; /* a watched folder went away */
  if (!ev->len) return 0;                                   /* IN_IGNORED: a watch this process dropped */
  if (S_in_out_folder(w, ev)) return 1;
  if (!(ev->mask & IN_ISDIR)) return S_relevant(ev->name);
  for (size_t i = 0; i < w->n; i++)
    if (w->f[i].wd == ev->wd) {
      char *full = lit_xasprintf("%s/%s", w->f[i].path, ev->name);
      int r = S_leads_to_watched(w, full);
      free(full);
      return r;
    }
  return 0;
}

/* Reads the pending events; 1 if one of them matters. With skip_out, a
 * file saved in a generated files' folder does not: right after a build,
 * those are the build's own writes. */
static int S_drain_events(const S_watcher *w, int skip_out) {
  char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
  int relevant = 0;
  for (;;) {
    ssize_t n = read(w->fd, buf, sizeof buf);
    if (n <= 0) break;
    for (char *p = buf; p < buf + n;) {
      const struct inotify_event *ev = (const struct inotify_event *)p;
      if (!(skip_out && S_in_out_folder(w, ev))) relevant |= S_event_matters(w, ev);
      p += sizeof *ev + ev->len;
    }
  }
  return relevant;
}

static int S_drain(const S_watcher *w) { return S_drain_events(w, 0); }

/* Builds in a child process, so that nothing the build does stops the
 * preview: the Lua host's wall-clock alarm ends the process it fires in
 * (a C function cannot be left safely), and a crash would too. The
 * folders are watched again first, so that one made again since the last
 * build is heard while this one reads it. */
static void S_build(S_state *st, S_watcher *w) {
  S_rewatch(w);
  int err[2], res[2];
  pid_t pid = S_spawn(st->o, err, res);
  lit_buf msgs = LIT_BUF_INIT, result = LIT_BUF_INIT;
  int status = 0;
  if (pid < 0) {
    lit_buf_printf(&msgs, "lit: error: cannot start a build: %s\n", strerror(errno));
    fputs(msgs.data, stderr);
  } else {
    S_collect(pid, err[0], res[0], &msgs, &result);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  int finished = pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 && result.len >= 2;
  if (!finished && pid > 0) S_report_unfinished(status, &msgs);
  pthread_mutex_lock(&st->lock);
  if (finished && result.data[1] == '1') st->generation++;
  st->ok = finished && result.data[0] == '1';
  free(st->messages);
  st->messages = lit_buf_detach(&msgs);
  pthread_mutex_unlock(&st->lock);
  for (size_t at = 2; finished && at < result.len; at += strlen(result.data + at) + 1) {
    if (result.data[at] == '>')
      S_watch_out(w, lit_xstrdup(result.data + at + 1));
    else
      S_watch_doc_folder(w, st->o->root, result.data + at);
  }
  S_rewatch(w);
  /* The build's own writes into the generated files' folders are not
   * edits to stitch; any other change heard meanwhile builds again. A hand
   * edit saved in this window is stitched by the next build. */
  if (st->o->stitch) w->again = S_drain_events(w, 1);
  lit_buf_free(&result);
}

/* ---- serving ---- */

/* text as a JSON array of its lines: the page shows one message a line
 * (a JSON string of the whole text would fold its line breaks). */
static void S_json_lines(lit_buf *b, const char *text) {
  lit_buf_putc(b, '[');
  for (const char *s = text; *s;) {
    const char *nl = strchr(s, '\n');
    size_t len = nl ? (size_t)(nl - s) : strlen(s);
    if (s != text) lit_buf_putc(b, ',');
    lit_json_string(b, s, len);
    s += len + (nl ? 1 : 0);
  }
  lit_buf_putc(b, ']');
}

/* Asks for the build's state twice a second: reloads after a new build,
 * shows a failed build's messages at the bottom of the page. */
static const char S_reload_js[] =
    "<script>(function(){var gen=null;function show(s){var el=document.getElementById('lit-diagnostics');"
    "if(s.ok){if(el)el.remove();return}if(!el){el=document.createElement('pre');el.id='lit-diagnostics';"
    "el.setAttribute('role','alert');el.style.cssText='position:fixed;left:0;right:0;bottom:0;max-height:45vh;"
    "overflow:auto;margin:0;padding:1rem;background:#6e1b1b;color:#fff;z-index:100;font:13px/1.45 monospace;"
    "white-space:pre-wrap';document.body.appendChild(el)}el.textContent='The documents have errors; this is the "
    "last good book.\\n\\n'+s.messages.join('\\n')}function "
    "tick(){fetch('/__lit/status',{cache:'no-store'}).then(function(r)"
    "{return r.json()}).then(function(s){if(gen!==null&&s.generation!==gen){location.reload();return}"
    "gen=s.generation;show(s)}).catch(function(){}).then(function(){setTimeout(tick,500)})}tick()})();</script>\n";

static const char *S_type(const char *path) {
  static const char *const types[][2] = {
      {".html", "text/html; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".svg", "image/svg+xml"},
      {".png", "image/png"},
      {".json", "application/json"},
  };
  const char *dot = strrchr(path, '.');
  for (size_t i = 0; dot && i < sizeof types / sizeof types[0]; i++)
    if (strcmp(dot, types[i][0]) == 0) return types[i][1];
  return "application/octet-stream";
}

static enum MHD_Result S_send(struct MHD_Connection *c, unsigned code, const char *type, char *body, size_t len) {
  struct MHD_Response *r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
  MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
  MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
  MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
  enum MHD_Result ret = MHD_queue_response(c, code, r);
  MHD_destroy_response(r);
  return ret;
}

/* Reads book/rel if it is a regular file inside the book folder
 * (lit_path_open_beneath); NULL otherwise. */
static char *S_read_inside(const char *book, const char *rel, size_t *len) {
  int fd = lit_path_open_beneath(book, rel);
  if (fd < 0) return NULL;
  struct stat sb;
  lit_buf b = LIT_BUF_INIT;
  int ok = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && lit_read_fd(fd, &b) == 0;
  close(fd);
  if (!ok) {
    lit_buf_free(&b);
    return NULL;
  }
  *len = b.len;
  return b.data ? lit_buf_detach(&b) : lit_xstrdup("");
}

/* The not-found page answers any path, /a/b/missing.html too: its links
 * and stylesheet are relative to the book's root, so it says so
 * (<base href="/"> after <head>), or at a nested path it comes unstyled
 * and its links lead nowhere. */
static char *S_base_root(char *html, size_t *len) {
  const char *at = strstr(html, "<head>");
  if (!at) return html;
  size_t pos = (size_t)(at - html) + 6;
  lit_buf b = LIT_BUF_INIT;
  lit_buf_put(&b, html, pos);
  lit_buf_puts(&b, "\n<base href=\"/\">");
  lit_buf_put(&b, html + pos, *len - pos);
  free(html);
  *len = b.len;
  return lit_buf_detach(&b);
}

/* An HTML page with the reload script before </body>. */
static char *S_inject(char *html, size_t *len) {
  const char *at = strstr(html, "</body>");
  size_t pos = at ? (size_t)(at - html) : *len;
  lit_buf b = LIT_BUF_INIT;
  lit_buf_put(&b, html, pos);
  lit_buf_puts(&b, S_reload_js);
  lit_buf_put(&b, html + pos, *len - pos);
  free(html);
  *len = b.len;
  return lit_buf_detach(&b);
}

/* DNS rebinding: a page of another site whose name it pointed at
 * 127.0.0.1 reaches this server from the browser, with its own name as
 * Host. Only a request for this server's own address is answered. */
static int S_host_allowed(struct MHD_Connection *c) {
  const char *host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
  const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_DAEMON);
  const union MHD_DaemonInfo *di = ci ? MHD_get_daemon_info(ci->daemon, MHD_DAEMON_INFO_BIND_PORT) : NULL;
  return di && lit_serve_host_ok(host, di->port);
}

static const char S_wrong_host[] = "this server answers only for localhost, 127.0.0.1 or [::1] with its port\n";

static enum MHD_Result S_handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                const char *version, const char *upload, size_t *upload_size, void **con_cls) {
  (void)version, (void)upload, (void)upload_size, (void)con_cls;
  S_state *st = cls;
  if (!S_host_allowed(c))
    return S_send(c, MHD_HTTP_FORBIDDEN, "text/plain", lit_xstrdup(S_wrong_host), sizeof S_wrong_host - 1);
  if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
    return S_send(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", lit_xstrdup("only GET and HEAD\n"), 17);
  if (strcmp(url, "/__lit/status") == 0) {
    lit_buf b = LIT_BUF_INIT;
    pthread_mutex_lock(&st->lock);
    lit_buf_printf(&b, "{\"generation\":%lu,\"ok\":%s,\"messages\":", st->generation, st->ok ? "true" : "false");
    S_json_lines(&b, st->messages ? st->messages : "");
    pthread_mutex_unlock(&st->lock);
    lit_buf_puts(&b, "}\n");
    size_t n = b.len;
    return S_send(c, MHD_HTTP_OK, "application/json", lit_buf_detach(&b), n);
  }
  char rel[PATH_MAX];
  if (lit_serve_path(url, rel, sizeof rel) != 0)
    return S_send(c, MHD_HTTP_FORBIDDEN, "text/plain", lit_xstrdup("forbidden\n"), 10);
  size_t len = 0;
  char *data = S_read_inside(st->o->out, rel, &len);
  unsigned code = MHD_HTTP_OK;
  if (!data) {
    code = MHD_HTTP_NOT_FOUND;
    data = S_read_inside(st->o->out, "404.html", &len);
    snprintf(rel, sizeof rel, "404.html");
    if (!data) return S_send(c, code, "text/plain", lit_xstrdup("not found\n"), 10);
  }
  const char *type = S_type(rel);
  if (code == MHD_HTTP_NOT_FOUND) data = S_base_root(data, &len);
  if (strncmp(type, "text/html", 9) == 0) data = S_inject(data, &len);
  return S_send(c, code, type, data, len);
}

/* ---- the loop ---- */

/* Connections. epoll (or poll), never select(), whose 1,024-descriptor
 * ceiling let some 1,100 slow clients keep everyone else out; at most
 * S_CONNECTIONS at once (fewer if this process may not open that many
 * descriptors), half of them from one address; a connection idle for
 * S_IDLE_SECONDS is closed; S_CONNECTION_MEMORY for each one's request. A
 * client that trickles a byte now and then is never idle: the limits are
 * what bound it. */
enum { S_CONNECTIONS = 2048, S_SPARE_FDS = 64, S_IDLE_SECONDS = 10 };
#define S_CONNECTION_MEMORY ((size_t)32 << 10)

/* Raises the descriptor limit towards what S_CONNECTIONS needs; the
 * connections it allows. */
static unsigned S_connection_limit(void) {
  const rlim_t want = S_CONNECTIONS + S_SPARE_FDS;
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return S_SPARE_FDS;
  if (rl.rlim_cur < want) {
    rl.rlim_cur = rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want ? rl.rlim_max : want;
    setrlimit(RLIMIT_NOFILE, &rl);
    getrlimit(RLIMIT_NOFILE, &rl);
  }
  if (rl.rlim_cur >= want) return S_CONNECTIONS;
  return rl.rlim_cur > 2 * S_SPARE_FDS ? (unsigned)(rl.rlim_cur - S_SPARE_FDS) : (unsigned)(rl.rlim_cur / 2);
}

/* libmicrohttpd decodes %XX in the path before the handler sees it, and
 * a %00 would cut the path short there: /index.html%00/../x would be
 * served as /index.html, a request answered for a path it did not name.
 * A path that decodes to a NUL is emptied instead, which lit_serve_path
 * refuses (403). Query arguments come here too; the server reads none. */
static size_t S_unescape(void *cls, struct MHD_Connection *c, char *s) {
  (void)cls, (void)c;
  size_t n = MHD_http_unescape(s);
  if (strlen(s) == n) return n;
  s[0] = '\0';
  return 0;
}

static struct MHD_Daemon *S_start_daemon(S_state *st, int port) {
  unsigned mode = MHD_is_feature_supported(MHD_FEATURE_EPOLL) == MHD_YES  ? MHD_USE_EPOLL_INTERNAL_THREAD
                  : MHD_is_feature_supported(MHD_FEATURE_POLL) == MHD_YES ? MHD_USE_POLL_INTERNAL_THREAD
                                                                          : 0;
  if (!mode) {
    fprintf(stderr, "lit: cannot serve: this libmicrohttpd has neither epoll nor poll\n");
    return NULL;
  }
  struct sockaddr_in addr;
  memset(&addr, 0, sizeof addr);
  addr.sin_family = AF_INET;
  addr.sin_port = htons((uint16_t)port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK); /* loopback only: the book is for this machine */
  unsigned limit = S_connection_limit(), per_address = limit > 1 ? limit / 2 : 1; /* 0 would mean no limit */
  struct MHD_Daemon *daemon = MHD_start_daemon(
      mode | MHD_USE_ERROR_LOG, (uint16_t)port, NULL, NULL, S_handle, st, MHD_OPTION_SOCK_ADDR,
      (struct sockaddr *)&addr, MHD_OPTION_CONNECTION_LIMIT, limit, MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_address,
      MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)S_IDLE_SECONDS, MHD_OPTION_CONNECTION_MEMORY_LIMIT, S_CONNECTION_MEMORY,
      MHD_OPTION_UNESCAPE_CALLBACK, S_unescape, NULL, MHD_OPTION_END);
  if (!daemon) fprintf(stderr, "lit: cannot serve on 127.0.0.1:%d (is the port in use? try --port N)\n", port);
  return daemon;
}

int lit_serve_check_out(const char *out, const char *command, lit_diags *d) {
  if (lit_tree_check_owned(out, d) == 0) return 0;
  lit_diag(d, LIT_NOTE, NULL, 0, 0,
           "lit %s writes the book into %s%s, so it takes only a book lit wrote (it has a %s), an empty folder or "
           "a new one: pick another with --out DIR",
           command, out, strcmp(command, "serve") == 0 ? " and serves that folder" : "", LIT_TREE_MANIFEST);
  return -1;
}

/* 0 if out, once links are resolved, does not hold the project's folder;
 * else -1, reported. For a project that cannot be read, whose files lit
 * cannot list. */
static int S_check_out_not_root(const char *root, const char *out, lit_diags *d) {
  char *root_real = lit_path_real(NULL, root), *out_real = lit_path_real(NULL, out);
  int holds = root_real && out_real && lit_path_is_inside(out_real, root_real);
  free(root_real);
  free(out_real);
  if (!holds) return 0;
  lit_diag(d, LIT_ERROR, out, 0, 0,
           "holds %s, the project's own folder: lit replaces this folder whole with its output, so it must not be "
           "the project's folder or one holding it; pick another with --out DIR",
           root);
  return -1;
}

int lit_serve_check_project(const lit_serve_opts *o, lit_diags *d) {
  lit_diags *quiet = lit_diags_new(); /* the documents' messages: the first build reports them */
  lit_project *p = lit_project_load(o->root, o->entry, quiet);
  lit_diags_free(quiet);
  int r = p ? lit_weave_check_out(p, o->out, "--out", d) : S_check_out_not_root(o->root, o->out, d);
  lit_project_free(p);
  if (r)
    lit_diag(d, LIT_NOTE, NULL, 0, 0, "%s",
             o->serve ? "lit serve does not start: it would serve that folder, and the project's own files with it"
                      : "lit watch does not start: every build would refuse that folder");
  return r;
}

lit_status lit_serve_run(const lit_serve_opts *o) {
  lit_serve_opts opts = *o;
  if (!opts.out || !opts.out[0]) opts.out = "book";
  lit_diags *d = lit_diags_new();
  int refused =
      lit_serve_check_out(opts.out, opts.serve ? "serve" : "watch", d) != 0 || lit_serve_check_project(&opts, d) != 0;
  lit_diags_print(d, stderr);
  lit_diags_free(d);
  if (refused) return LIT_FAILED;
  S_watcher w = {inotify_init1(IN_NONBLOCK | IN_CLOEXEC), NULL, 0, 0, 0};
  if (w.fd < 0) {
    fprintf(stderr, "lit: cannot watch files: %s\n", strerror(errno));
    return LIT_FAILED;
  }
  S_state st;
  memset(&st, 0, sizeof st);
  st.o = &opts;
  pthread_mutex_init(&st.lock, NULL);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = S_on_signal; /* no SA_RESTART: poll() returns at once */
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  S_watch_path(&w, lit_xstrdup(opts.root));
  S_build(&st, &w);
  struct MHD_Daemon *daemon = opts.serve ? S_start_daemon(&st, opts.port) : NULL;
  lit_status status = opts.serve && !daemon ? LIT_FAILED : LIT_OK;
  if (daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    lit_buf out = LIT_BUF_INIT; /* the folder comes from the command line: escaped like a message */
    lit_diag_escape(&out, opts.out, strlen(opts.out));
    fprintf(stderr, "lit: serving %s/ at http://127.0.0.1:%u/ (Ctrl-C stops)\n", out.data,
            info ? (unsigned)info->port : (unsigned)opts.port);
    lit_buf_free(&out);
  } else if (!opts.serve) {
    fprintf(stderr, "lit: watching the documents (Ctrl-C stops)\n");
  }
  while (!S_stop && status == LIT_OK) {
    struct pollfd pfd = {w.fd, POLLIN, 0};
    if (!w.again && (poll(&pfd, 1, 500) <= 0 || !S_drain(&w))) continue;
    w.again = 0;
    /* an editor's save is several events: wait for 150 ms of quiet */
    while (!S_stop && poll(&pfd, 1, 150) > 0)
      S_drain(&w);
    if (!S_stop) S_build(&st, &w);
  }
  if (daemon) MHD_stop_daemon(daemon);
  close(w.fd);
  for (size_t i = 0; i < w.n; i++)
    free(w.f[i].path);
  free(w.f);
  free(st.messages);
  pthread_mutex_destroy(&st.lock);
  if (status == LIT_OK) fprintf(stderr, "lit: stopped\n");
  return status;
}

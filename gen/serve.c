/* serve.c: rebuild on change (inotify), and the book over loopback HTTP (libmicrohttpd). */
#define _GNU_SOURCE /* open_memstream, realpath */
#include "serve.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "book.h"
#include "book_search.h"
#include "diag.h"
#include "model.h"
#include "outputs.h"
#include "tree.h"
#include "util.h"

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

/* Tangles and weaves the book; prints the messages. Returns the project's
 * documents' folders (caller frees, NULL-terminated) so the watcher can
 * follow a document added to a new folder. */
static char **S_build(S_state *st) {
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  lit_diags *d = lit_diags_new();
  lit_project *p = lit_project_load(st->o->root, st->o->entry, d);
  int ok = p && lit_diags_count(d, LIT_ERROR) == 0;
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
    woven = lit_book_build(p, &t, d) == LIT_OK && lit_tree_install(&t, st->o->out, "chunks.html", d) == 0;
    lit_tree_free(&t);
  }
  ok = ok && woven;
  if (!ok) lit_diag(d, LIT_NOTE, NULL, 0, 0, "the last good kernels and book stay in place");
  lit_diags_print(d, stderr);
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  if (mem) {
    lit_diags_print(d, mem);
    fclose(mem);
  }
  if (ok) fprintf(stderr, "lit: tangled and woven in %.0f ms\n", S_ms_since(&t0));
  pthread_mutex_lock(&st->lock);
  if (woven) st->generation++;
  st->ok = ok;
  free(st->messages);
  st->messages = text ? text : lit_xstrdup("");
  pthread_mutex_unlock(&st->lock);
  char **dirs = NULL;
  size_t n = 0, cap = 0;
  for (size_t i = 0; p && i < p->ndocs; i++) {
    const char *path = p->docs[i]->src.path, *slash = strrchr(path, '/');
    char *dir = slash ? lit_xasprintf("%s/%.*s", st->o->root, (int)(slash - path), path) : lit_xstrdup(st->o->root);
    dirs = lit_grow(dirs, &cap, n + 2, sizeof *dirs);
    dirs[n++] = dir;
    dirs[n] = NULL;
  }
  lit_project_free(p);
  lit_diags_free(d);
  return dirs;
}

/* ---- watching ---- */

/* A change worth a rebuild: a document, a results file or Lua, not an
 * editor's swap file or the outputs' staging folders. */
static int S_relevant(const char *name) {
  size_t n = strlen(name);
  if (!n || name[0] == '.') return 0;
  return (n > 3 && strcmp(name + n - 3, ".md") == 0) || (n > 5 && strcmp(name + n - 5, ".json") == 0) ||
         (n > 4 && strcmp(name + n - 4, ".lua") == 0);
}

static void S_watch(int fd, const char *dir) {
  const uint32_t mask = IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_MOVED_FROM;
  inotify_add_watch(fd, dir, mask); /* a folder already watched keeps its one watch */
  char *results = lit_xasprintf("%s/results", dir);
  struct stat sb;
  if (stat(results, &sb) == 0 && S_ISDIR(sb.st_mode)) inotify_add_watch(fd, results, mask);
  free(results);
}

static void S_watch_all(int fd, const S_state *st, char **dirs) {
  S_watch(fd, st->o->root);
  for (size_t i = 0; dirs && dirs[i]; i++) {
    S_watch(fd, dirs[i]);
    free(dirs[i]);
  }
  free(dirs);
}

/* Reads the pending events; 1 if one of them matters. */
static int S_drain(int fd) {
  char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
  int relevant = 0;
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) break;
    for (char *p = buf; p < buf + n;) {
      const struct inotify_event *ev = (const struct inotify_event *)p;
      if (ev->len && S_relevant(ev->name)) relevant = 1;
      p += sizeof *ev + ev->len;
    }
  }
  return relevant;
}

/* ---- serving ---- */

/* Asks for the build's state twice a second: reloads after a new build,
 * shows a failed build's messages at the bottom of the page. */
static const char S_reload_js[] =
    "<script>(function(){var gen=null;function show(s){var el=document.getElementById('lit-diagnostics');"
    "if(s.ok){if(el)el.remove();return}if(!el){el=document.createElement('pre');el.id='lit-diagnostics';"
    "el.setAttribute('role','alert');el.style.cssText='position:fixed;left:0;right:0;bottom:0;max-height:45vh;"
    "overflow:auto;margin:0;padding:1rem;background:#6e1b1b;color:#fff;z-index:100;font:13px/1.45 monospace;"
    "white-space:pre-wrap';document.body.appendChild(el)}el.textContent='The documents have errors; this is the "
    "last good book.\\n\\n'+s.messages}function tick(){fetch('/__lit/status',{cache:'no-store'}).then(function(r)"
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

/* Reads book/rel if it is a regular file inside the book folder (a
 * symbolic link out of it is refused); NULL otherwise. */
static char *S_read_inside(const char *book, const char *rel, size_t *len) {
  char bookreal[PATH_MAX], real[PATH_MAX];
  if (!realpath(book, bookreal)) return NULL;
  char *full = lit_xasprintf("%s/%s", book, rel);
  char *data = NULL;
  size_t bl = strlen(bookreal);
  struct stat sb;
  if (realpath(full, real) && strncmp(real, bookreal, bl) == 0 && real[bl] == '/' && stat(real, &sb) == 0 &&
      S_ISREG(sb.st_mode)) {
    lit_buf b = LIT_BUF_INIT;
    if (lit_read_file(real, &b) == 0) {
      *len = b.len;
      data = b.data ? lit_buf_detach(&b) : lit_xstrdup("");
    }
    lit_buf_free(&b);
  }
  free(full);
  return data;
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

static enum MHD_Result S_handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                const char *version, const char *upload, size_t *upload_size, void **con_cls) {
  (void)version, (void)upload, (void)upload_size, (void)con_cls;
  S_state *st = cls;
  if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
    return S_send(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", lit_xstrdup("only GET and HEAD\n"), 17);
  if (strcmp(url, "/__lit/status") == 0) {
    lit_buf b = LIT_BUF_INIT;
    pthread_mutex_lock(&st->lock);
    lit_buf_printf(&b, "{\"generation\":%lu,\"ok\":%s,\"messages\":", st->generation, st->ok ? "true" : "false");
    lit_json_string(&b, st->messages ? st->messages : "", st->messages ? strlen(st->messages) : 0);
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
  if (strncmp(type, "text/html", 9) == 0) data = S_inject(data, &len);
  return S_send(c, code, type, data, len);
}

/* ---- the loop ---- */

lit_status lit_serve_run(const lit_serve_opts *o) {
  S_state st;
  memset(&st, 0, sizeof st);
  lit_serve_opts opts = *o;
  if (!opts.out || !opts.out[0]) opts.out = "book";
  st.o = &opts;
  pthread_mutex_init(&st.lock, NULL);
  int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd < 0) {
    fprintf(stderr, "lit: cannot watch files: %s\n", strerror(errno));
    return LIT_FAILED;
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = S_on_signal; /* no SA_RESTART: poll() returns at once */
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  S_watch_all(fd, &st, S_build(&st));
  struct MHD_Daemon *daemon = NULL;
  if (opts.serve) {
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)opts.port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK); /* loopback only: the book is for this machine */
    daemon = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, (uint16_t)opts.port, NULL, NULL,
                              S_handle, &st, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
                              MHD_OPTION_CONNECTION_TIMEOUT, 30u, MHD_OPTION_END);
    if (!daemon) {
      fprintf(stderr, "lit: cannot serve on 127.0.0.1:%d (is the port in use? try --port N)\n", opts.port);
      close(fd);
      free(st.messages);
      return LIT_FAILED;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    lit_buf out = LIT_BUF_INIT; /* the folder comes from the command line: escaped like a message */
    lit_diag_escape(&out, opts.out, strlen(opts.out));
    fprintf(stderr, "lit: serving %s/ at http://127.0.0.1:%u/ (Ctrl-C stops)\n", out.data,
            info ? (unsigned)info->port : (unsigned)opts.port);
    lit_buf_free(&out);
  } else {
    fprintf(stderr, "lit: watching the documents (Ctrl-C stops)\n");
  }
  while (!S_stop) {
    struct pollfd pfd = {fd, POLLIN, 0};
    if (poll(&pfd, 1, 500) <= 0 || !S_drain(fd)) continue;
    /* an editor's save is several events: wait for 150 ms of quiet */
    while (!S_stop && poll(&pfd, 1, 150) > 0)
      S_drain(fd);
    if (!S_stop) S_watch_all(fd, &st, S_build(&st));
  }
  if (daemon) MHD_stop_daemon(daemon);
  close(fd);
  free(st.messages);
  pthread_mutex_destroy(&st.lock);
  fprintf(stderr, "lit: stopped\n");
  return LIT_OK;
}

#define _XOPEN_SOURCE 700
#define _DEFAULT_SOURCE /* syscall */
#include "paths.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef O_PATH
#define O_PATH 010000000 /* Linux; glibc names it only under _GNU_SOURCE */
#endif

#include "util.h"

static const char *S_root_of(const char *path, char *const *roots, size_t nroots) {
  for (size_t i = 0; i < nroots; i++) {
    size_t n = strlen(roots[i]);
    if (strncmp(path, roots[i], n) == 0 && path[n] != '\0') return roots[i];
  }
  return NULL;
}

int lit_path_is_root(const char *folder, size_t len, char *const *roots, size_t nroots) {
  for (size_t i = 0; i < nroots; i++)
    if (strncmp(roots[i], folder, len) == 0 && strcmp(roots[i] + len, "/") == 0) return 1;
  return 0;
}

const char *lit_path_check_plain(const char *path) {
  if (!path[0]) return "the path is empty";
  if (path[0] == '/') return "the path is absolute; give it relative to the repository root";
  if (strchr(path, '\\')) return "the path holds a backslash; use '/'";
  for (const unsigned char *c = (const unsigned char *)path; *c; c++)
    if (*c < 0x20 || *c == 0x7f) return "the path holds a control character";
  const char *p = path;
  for (;;) {
    const char *slash = strchr(p, '/');
    size_t len = slash ? (size_t)(slash - p) : strlen(p);
    if (len == 0) return slash ? "the path holds an empty component ('//')" : "the path ends in '/'";
    if (len == 2 && p[0] == '.' && p[1] == '.') return "the path holds '..'";
    if (len == 1 && p[0] == '.') return "the path holds a '.' component";
    if (!slash) break;
    p = slash + 1;
  }
  return NULL;
}

const char *lit_path_check_name(const char *name) {
  const unsigned char *s = (const unsigned char *)name;
  const size_t n = strlen(name);
  for (size_t i = 0; i < n;) {
    /* C0 and DEL, and C1 (U+0080 to U+009F, 0xC2 0x80-0x9F): what a terminal acts on */
    if (s[i] < 0x20 || s[i] == 0x7f || (s[i] == 0xc2 && i + 1 < n && s[i + 1] >= 0x80 && s[i + 1] < 0xa0))
      return "a control character";
    const size_t k = s[i] < 0x80 ? 1 : lit_utf8_len(s + i, n - i);
    if (!k) return "a byte that is not UTF-8";
    i += k;
  }
  return NULL;
}

int lit_path_climbs(const char *path) {
  if (path[0] == '/') return 1;
  for (const char *p = path;;) {
    const char *slash = strchr(p, '/');
    size_t len = slash ? (size_t)(slash - p) : strlen(p);
    if (len == 2 && p[0] == '.' && p[1] == '.') return 1;
    if (!slash) return 0;
    p = slash + 1;
  }
}

const char *lit_path_check_syntax(const char *path, char *const *roots, size_t nroots) {
  const char *why = lit_path_check_plain(path);
  if (why) return why;
  if (!S_root_of(path, roots, nroots)) return "the path is outside the output folders this project declares";
  return NULL;
}

#ifndef NAME_MAX
#define NAME_MAX 255
#endif

#define S_STR(x) #x
#define S_XSTR(x) S_STR(x) /* a macro's value as a string literal */

/* The longest name lit stages beside a target: ".lit-tmp-PID-N" (or
 * ".lit-old-"), two longs in decimal. */
#define S_TEMP_NAME_MAX (9 + 20 + 1 + 20)

const char *lit_path_check_length(const char *project_root, const char *path) {
  for (const char *p = path;;) {
    const char *slash = strchr(p, '/');
    size_t len = slash ? (size_t)(slash - p) : strlen(p);
    if (len > NAME_MAX)
      return "a name in the path is longer than NAME_MAX (" S_XSTR(NAME_MAX) " bytes), which the file system refuses";
    if (!slash) break;
    p = slash + 1;
  }
  int bare = !project_root || !project_root[0] || strcmp(project_root, ".") == 0; /* as lit_path_join */
  size_t root = bare ? 0 : strlen(project_root) + 1;
  const char *base = strrchr(path, '/');
  size_t dir = base ? (size_t)(base - path) + 1 : 0, name = strlen(path) - dir;
  size_t longest = root + dir + (name > S_TEMP_NAME_MAX ? name : S_TEMP_NAME_MAX);
  if (longest >= PATH_MAX)
    return "the path is too long: with the project folder before it, it (or the temporary lit stages beside it) "
           "reaches PATH_MAX (" S_XSTR(PATH_MAX) " bytes), which the system refuses";
  return NULL;
}

char *lit_path_join(const char *root, const char *rel) {
  if (!root || !root[0] || strcmp(root, ".") == 0) return lit_xstrdup(rel);
  return lit_xasprintf("%s/%s", root, rel);
}

/* 1 if `inner` is `outer` or below it. */
int lit_path_is_inside(const char *outer, const char *inner) {
  size_t n = strlen(outer);
  if (strncmp(outer, inner, n) != 0) return 0;
  return inner[n] == '\0' || inner[n] == '/' || (n > 0 && outer[n - 1] == '/');
}

/* The reason for a loop names where it is, so it cannot be a literal:
 * one buffer per thread (documents are read on several), valid until the
 * thread's next check. */
static _Thread_local char S_loop_why[PATH_MAX + 128];

static const char *S_loop(const char *where) {
  snprintf(S_loop_why, sizeof S_loop_why, "a symbolic link loop at %s (its links lead back to themselves)", where);
  return S_loop_why;
}

/* Walks path's existing prefixes past its first `from` bytes: each must
 * resolve inside `inside` (else `escape`, or a loop named as one); the
 * path itself must be neither a link nor a folder. */
static const char *S_walk(const char *project_root, const char *path, size_t from, const char *inside,
                          const char *escape) {
  char *full = lit_path_join(project_root, path);
  size_t skip = strlen(full) - strlen(path);
  const char *why = NULL;
  for (char *c = full + skip + from; *c; c++) {
    if (*c != '/') continue;
    *c = '\0';
    char r[PATH_MAX];
    struct stat st;
    /* A link that leads nowhere counts as leading out: lit cannot tell
     * where a folder made through it would land. */
    if (lstat(full, &st) == 0) {
      int found = realpath(full, r) != NULL, loop = !found && errno == ELOOP;
      if (loop)
        why = S_loop(full + skip);
      else if (found ? !lit_path_is_inside(inside, r) : S_ISLNK(st.st_mode))
        why = escape;
    }
    *c = '/';
    if (why) break;
  }
  struct stat st;
  if (!why && lstat(full, &st) == 0) {
    if (S_ISLNK(st.st_mode))
      why = "the target is a symbolic link; lit writes only regular files";
    else if (S_ISDIR(st.st_mode))
      why = "the target is a folder";
  }
  free(full);
  return why;
}

const char *lit_path_check_disk(const char *project_root, const char *path, char *const *roots, size_t nroots) {
  const char *root = S_root_of(path, roots, nroots);
  if (!root) return "the path is outside the output folders this project declares";
  /* The output folder itself must resolve inside the project. */
  char proj_real[PATH_MAX];
  if (!realpath(project_root && project_root[0] ? project_root : ".", proj_real)) return NULL;
  char *outdir = lit_path_join(project_root, root);
  size_t ol = strlen(outdir);
  if (ol > 1 && outdir[ol - 1] == '/') outdir[ol - 1] = '\0';
  char out_real[PATH_MAX];
  const char *why = NULL;
  if (realpath(outdir, out_real)) {
    if (!lit_path_is_inside(proj_real, out_real))
      why = "the output folder is a symbolic link that leads outside the project";
  } else {
    /* Not created yet: the folders above it that exist must not lead out
     * (lit would create it, and write, wherever they point). */
    why = S_walk(project_root, root, 0, proj_real,
                 "a folder above the output folder is a symbolic link that leads outside the project");
    int n0 = snprintf(out_real, sizeof out_real, "%s/%.*s", proj_real, (int)(sizeof out_real / 2), root);
    if (!why && (n0 < 0 || (size_t)n0 >= sizeof out_real)) why = "the path is too long";
    size_t n = strlen(out_real);
    if (n > 1 && out_real[n - 1] == '/') out_real[n - 1] = '\0';
  }
  free(outdir);
  if (why) return why;
  return S_walk(project_root, path, strlen(root), out_real,
                "a folder in the path is a symbolic link that leads outside the output folder");
}

const char *lit_path_check_project(const char *project_root, const char *path) {
  const char *why = lit_path_check_plain(path);
  if (why) return why;
  char proj_real[PATH_MAX];
  if (!realpath(project_root && project_root[0] ? project_root : ".", proj_real)) return NULL;
  return S_walk(project_root, path, 0, proj_real,
                "a folder in the path is a symbolic link that leads outside the project");
}

const char *lit_path_check_read(const char *project_root, const char *path) {
  char proj_real[PATH_MAX], real[PATH_MAX];
  if (!realpath(project_root && project_root[0] ? project_root : ".", proj_real)) return NULL;
  char *full = lit_path_join(project_root, path);
  int inside = !realpath(full, real) || lit_path_is_inside(proj_real, real);
  free(full);
  if (inside) return NULL;
  /* No link needs to be involved: '..' or an absolute path leaves by itself. */
  return lit_path_climbs(path) ? "it lies outside the project folder"
                               : "it is reached through a symbolic link that leads outside the project";
}

int lit_path_same_as_any(const char *project_root, const char *path, char *const *files, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(path, files[i]) == 0) return 1;
  char *full = lit_path_join(project_root, path);
  struct stat st;
  int same = 0;
  if (stat(full, &st) == 0)
    for (size_t i = 0; i < n && !same; i++) {
      char *other = lit_path_join(project_root, files[i]);
      struct stat os;
      same = stat(other, &os) == 0 && os.st_dev == st.st_dev && os.st_ino == st.st_ino;
      free(other);
    }
  free(full);
  return same;
}

const char lit_path_git_why[] = "it lies inside a .git folder (git's own files, never the project's)";

/* Compared without regard to ASCII case: on a file system that ignores
 * it (macOS's and Windows' defaults), ".Git/hooks" is git's hooks folder,
 * where a file written runs at the next commit or checkout. */
int lit_path_names_git(const char *path) {
  for (const char *c = path;;) {
    const char *slash = strchr(c, '/');
    size_t len = slash ? (size_t)(slash - c) : strlen(c);
    if (len == 4 && strncasecmp(c, ".git", 4) == 0) return 1;
    if (!slash) return 0;
    c = slash + 1;
  }
}

char *lit_path_real(const char *project_root, const char *path) {
  char *full = lit_path_join(project_root, path);
  size_t keep = strlen(full) - strlen(path), n = strlen(full);
  char real[PATH_MAX];
  char *rest = NULL; /* the part that does not exist, after the '/' cut */
  int found = realpath(full, real) != NULL;
  for (char *slash; !found && (slash = strrchr(full + keep, '/')) != NULL;) {
    *slash = '\0';
    rest = slash + 1;
    found = realpath(full, real) != NULL;
  }
  if (!found && keep == 0 && n > 0) { /* not even its first component exists: below the current folder */
    rest = full;
    found = realpath(".", real) != NULL;
  } else if (!found && keep > 0) { /* below the project root itself */
    full[keep - 1] = '\0';
    rest = full + keep;
    found = realpath(full, real) != NULL;
  }
  char *out = NULL;
  if (found) {
    /* The cuts put back: rest runs to the end of the original string. */
    for (char *c = rest; c && c < full + n; c++)
      if (*c == '\0') *c = '/';
    out = rest ? lit_xasprintf("%s%s%s", real, strcmp(real, "/") == 0 ? "" : "/", rest) : lit_xstrdup(real);
  }
  free(full);
  return out;
}

const char *lit_path_real_names_git(const char *proj_real, const char *real) {
  const char *below = proj_real[0] && lit_path_is_inside(proj_real, real) ? real + strlen(proj_real) : real;
  return lit_path_names_git(below) ? lit_path_git_why : NULL;
}

const char *lit_path_check_git(const char *project_root, const char *path) {
  if (lit_path_names_git(path)) return lit_path_git_why;
  char proj_real[PATH_MAX];
  if (!realpath(project_root && project_root[0] ? project_root : ".", proj_real)) proj_real[0] = '\0';
  /* The part of it that exists, resolved (the rest, as spelled, was read above). */
  char *real = lit_path_real(project_root, path);
  const char *why = real ? lit_path_real_names_git(proj_real, real) : NULL;
  free(real);
  return why;
}

static int S_hexval(char c) {
  return c >= '0' && c <= '9'   ? c - '0'
         : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                : -1;
}

char *lit_path_unescape(const char *url, size_t len) {
  char *out = lit_xmalloc(len + 1);
  size_t o = 0;
  for (size_t i = 0; i < len; i++) {
    int hi = i + 2 < len ? S_hexval(url[i + 1]) : -1, lo = hi >= 0 ? S_hexval(url[i + 2]) : -1;
    if (url[i] == '%' && lo >= 0 && (hi | lo) != 0) {
      out[o++] = (char)(hi * 16 + lo);
      i += 2;
    } else {
      out[o++] = url[i];
    }
  }
  out[o] = '\0';
  return out;
}

static int S_unreserved(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
         c == '_' || c == '~';
}

void lit_path_escape(lit_buf *out, const char *path, size_t len) {
  static const char hex[] = "0123456789ABCDEF";
  lit_buf_reserve(out, 3 * len);
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)path[i];
    if (S_unreserved(c) || c == '/') {
      lit_buf_putc(out, (char)c);
    } else {
      char e[3] = {'%', hex[c >> 4], hex[c & 15]};
      lit_buf_put(out, e, 3);
    }
  }
}

char *lit_path_resolve_link(const char *from, const char *url, size_t len) {
  const char *slash = strrchr(from, '/');
  lit_buf joined = LIT_BUF_INIT;
  if (slash) lit_buf_put(&joined, from, (size_t)(slash - from) + 1);
  char *path = lit_path_unescape(url, len);
  lit_buf_puts(&joined, path);
  free(path);
  char *parts = lit_buf_detach(&joined);
  lit_buf out = LIT_BUF_INIT;
  int bad = 0;
  for (char *s = parts; *s && !bad;) {
    char *e = strchr(s, '/');
    size_t n = e ? (size_t)(e - s) : strlen(s);
    if (n == 2 && s[0] == '.' && s[1] == '.') {
      if (out.len == 0) {
        bad = 1;
      } else {
        size_t k = out.len;
        while (k > 0 && out.data[k - 1] != '/')
          k--;
        lit_buf_truncate(&out, k ? k - 1 : 0);
      }
    } else if (n && !(n == 1 && s[0] == '.')) {
      if (out.len) lit_buf_putc(&out, '/');
      lit_buf_put(&out, s, n);
    }
    s += n + (e ? 1 : 0);
  }
  free(parts);
  if (bad) {
    lit_buf_free(&out);
    return NULL;
  }
  return lit_buf_detach(&out);
}

int lit_path_open_checked(const char *dir, const char *rel) {
  char dir_real[PATH_MAX], real[PATH_MAX], proc[64];
  if (!realpath(dir, dir_real)) return -1;
  int dfd = open(dir_real, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return -1;
  int fd = openat(dfd, rel, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  close(dfd);
  if (fd < 0) return -1;
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(proc, real, sizeof real - 1);
  if (n > 0) real[n] = '\0';
  if (n <= 0 || (size_t)n >= sizeof real - 1 || !lit_path_is_inside(dir_real, real) || strcmp(real, dir_real) == 0) {
    close(fd);
    errno = EXDEV; /* as openat2 says it */
    return -1;
  }
  return fd;
}

/* dir/rel opened with flags by openat2 beneath dir; where openat2 is
 * missing (a kernel before 5.6) or filtered (a sandbox), opened and then
 * checked inside dir (lit_path_open_checked). */
static int S_open_beneath(const char *dir, const char *rel, int flags) {
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return -1;
  struct open_how how = {.flags = (unsigned)flags, .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS};
  int fd = (int)syscall(SYS_openat2, dfd, rel, &how, sizeof how);
  int err = errno;
  close(dfd);
  if (fd >= 0) return fd;
  if (err == ENOSYS || err == EPERM) return lit_path_open_checked(dir, rel);
  errno = err;
  return -1;
}

int lit_path_open_beneath(const char *dir, const char *rel) {
  return S_open_beneath(dir, rel, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
}

int lit_path_read_beneath(const char *dir, const char *rel, lit_buf *out, struct stat *st) {
  int fd = lit_path_open_beneath(dir && dir[0] ? dir : ".", rel);
  if (fd < 0) return errno;
  struct stat now;
  int err = fstat(fd, &now) != 0 ? errno : !S_ISREG(now.st_mode) ? LIT_ENOTREG : lit_read_fd(fd, out);
  close(fd);
  if (!err && st) *st = now;
  return err;
}

int lit_path_dir_beneath(const char *dir, const char *rel) {
  if (!rel[0]) return open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC); /* the root itself */
  int fd = S_open_beneath(dir, rel, O_PATH | O_DIRECTORY | O_CLOEXEC);
  struct stat st; /* a folder: the fallback's open does not ask for one */
  if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode))) {
    close(fd);
    errno = ENOTDIR;
    return -1;
  }
  return fd;
}

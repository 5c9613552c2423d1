#define _POSIX_C_SOURCE 200809L
#include "install.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model.h"
#include "paths.h"
#include "skill.h"
#include "source.h"
#include "tree.h"
#include "util.h"
#include "weave.h"

typedef struct {
  const char *flag;
  const char *local;  /* under the current folder */
  const char *global; /* under $HOME, or under $XDG_CONFIG_HOME when xdg */
  int xdg;
} S_agent;

static const S_agent S_agents[] = {
    {"--claude", ".claude/skills", ".claude/skills", 0},
    {"--codex", ".codex/skills", ".codex/skills", 0},
    {"--opencode", ".opencode/skills", "opencode/skills", 1},
};

/* An agent's global skills folder; the caller frees it. opencode keeps its
 * configuration under $XDG_CONFIG_HOME (an absolute path, by the XDG rules;
 * else ~/.config). */
static char *S_global_dir(const S_agent *a, const char *home) {
  if (!a->xdg) return lit_xasprintf("%s/%s", home, a->global);
  const char *xdg = getenv("XDG_CONFIG_HOME");
  if (xdg && xdg[0] == '/') return lit_xasprintf("%s/%s", xdg, a->global);
  return lit_xasprintf("%s/.config/%s", home, a->global);
}

/* Installs t as parent/name; local: parent is an agent's default folder
 * in the current folder, which lit_tree_check_inside approved, and is
 * reached beneath it (LIT_TREE_BENEATH). */
static int S_install_one(const lit_tree *t, const lit_project *p, const char *name, const char *parent, int local,
                         int force, FILE *out, lit_diags *d) {
  char *dir = lit_xasprintf("%s/%s", parent, name);
  struct stat st;
  int r = 1;
  /* An install replaces dir whole on the word of a manifest anyone can
   * write (--force believes even a name whose bytes changed), and cleans
   * up leftovers beside it: never where the project's own files are. */
  if (p && lit_weave_check_out(p, dir, "--dest", d) != 0) {
    free(dir);
    return 1;
  }
  /* a killed install's old copy is an install; quiet: lit_tree_install
   * reports what it leaves */
  lit_tree_recover(dir, NULL);
  if (lstat(dir, &st) == 0 && !force) {
    lit_diag(d, LIT_ERROR, dir, 0, 0, "a skill is already installed here; pass --force to replace it");
  } else if (lit_tree_install(t, dir, "SKILL.md", (force ? LIT_TREE_REPLACE_EDITS : 0) | (local ? LIT_TREE_BENEATH : 0),
                              d) == 0) {
    fprintf(out, "installed %s to %s\n", name, dir);
    r = 0;
  }
  free(dir);
  return r;
}

/* The project in the current folder, into *p (the caller frees it), or
 * NULL where there is no index.md: the places an install replaces must
 * hold none of its files. An index.md that is there but cannot be read (a
 * folder, a dangling link, no permission) is -1, with its error: the check
 * needs the documents it names, and skipping it could replace a folder
 * that holds them. */
static int S_load_here(lit_project **p, lit_diags *d) {
  struct stat ix;
  if (lstat("index.md", &ix) != 0 && errno == ENOENT) return 0;
  lit_diags *quiet = lit_diags_new(); /* its documents' messages are lit tangle's to give */
  *p = lit_project_load(".", "index.md", quiet);
  if (!*p) {
    lit_diags_append(d, quiet);
    lit_diag(d, LIT_ERROR, "index.md", 0, 0,
             "skill install: this folder's project cannot be read, so there is no telling whether the install "
             "would replace its files; fix index.md, or install from another folder");
  }
  lit_diags_free(quiet);
  return *p ? 0 : -1;
}

lit_status lit_install_run(const lit_install_opts *o, FILE *out, lit_diags *d) {
  int picked[3] = {o->claude, o->codex, o->opencode};
  int any_agent = o->claude || o->codex || o->opencode;
  if (!any_agent && !o->global && !o->dest) {
    lit_diag(d, LIT_ERROR, NULL, 0, 0,
             "skill install: say where: --claude, --codex, --opencode, --global or --dest DIR");
    return LIT_USAGE;
  }
  char *src;
  if (o->from && o->from[0]) {
    size_t fl = strlen(o->from);
    while (fl > 1 && o->from[fl - 1] == '/')
      fl--;
    src = lit_xstrndup(o->from, fl);
  } else { /* build/skill/NAME, NAME from index.md as `lit skill` names it */
    lit_source ix;
    lit_diags *quiet = lit_diags_new();
    int line = 0;
    const char *n = lit_source_load(&ix, ".", "index.md", quiet) == 0 ? lit_skill_name(&ix, &line) : NULL;
    /* the name becomes a folder name here and where it is installed: held
     * to the rules `lit skill` holds it to (no '/', no "..") */
    const char *bad = n ? lit_skill_check_name(n) : NULL;
    if (bad) lit_diag(d, LIT_ERROR, "index.md", line, 1, "skill name '%s' %s (Agent Skills specification)", n, bad);
    src = n && !bad ? lit_xasprintf("build/skill/%s", n) : NULL;
    lit_source_free(&ix);
    lit_diags_free(quiet);
    if (!src && !bad)
      lit_diag(d, LIT_ERROR, "index.md", 0, 0,
               "skill install: no skill name here (skill-name: in index.md's front matter) to find the bundle by; "
               "run in the project's folder, or pass --from DIR");
    if (!src) return LIT_FAILED;
  }
  const char *slash = strrchr(src, '/');
  const char *name = slash ? slash + 1 : src;
  if (lit_path_check_plain(name)) {
    /* "." or "..": DIR/NAME would be the agent's skills folder itself, or the one above it */
    lit_diag(d, LIT_ERROR, src, 0, 0,
             "skill install: the bundle is installed under its folder's name, and '%s' is none: name the bundle's "
             "own folder (--from build/skill/NAME)",
             name);
    free(src);
    return LIT_FAILED;
  }
  char *skill_md = lit_xasprintf("%s/SKILL.md", src);
  struct stat st;
  int r = 0;
  /* The default places are the project's own: a link the project ships
   * (build -> ..., .claude -> ...) must not send the read or the install
   * elsewhere. Checked before anything is read or written; an explicit
   * --from or --dest goes where it says. */
  if (!(o->from && o->from[0]) && lit_tree_check_inside(src, d) != 0) {
    lit_diag(d, LIT_NOTE, NULL, 0, 0, "to install that bundle all the same, name it: --from %s", src);
    r = 1;
  }
  for (size_t i = 0; i < 3; i++) {
    if (!picked[i] || o->global) continue;
    char *dir = lit_xasprintf("%s/%s", S_agents[i].local, name);
    if (lit_tree_check_inside(dir, d) != 0) {
      lit_diag(d, LIT_NOTE, NULL, 0, 0, "to install there all the same, name the folder: --dest %s", S_agents[i].local);
      r = 1;
    }
    free(dir);
  }
  if (r) lit_diag(d, LIT_NOTE, NULL, 0, 0, "nothing was installed");
  if (!r && stat(skill_md, &st) != 0) {
    lit_diag(d, LIT_ERROR, src, 0, 0, "no skill bundle here (no SKILL.md); run `lit skill` first, or pass --from DIR");
    r = 1;
  }
  const char *home = getenv("HOME");
  if (!r && o->global && (!home || !home[0])) {
    lit_diag(d, LIT_ERROR, NULL, 0, 0, "skill install --global: HOME is not set");
    r = 1;
  }
  lit_tree t = LIT_TREE_INIT;
  if (!r && lit_tree_read(&t, src, d) != 0) {
    lit_diag(d, LIT_NOTE, NULL, 0, 0, "nothing was installed");
    r = 1;
  }
  lit_project *p = NULL;
  if (!r && S_load_here(&p, d) != 0) {
    lit_diag(d, LIT_NOTE, NULL, 0, 0, "nothing was installed");
    r = 1;
  }
  if (!r) {
    if (o->dest) r |= S_install_one(&t, p, name, o->dest, 0, o->force, out, d);
    for (size_t i = 0; i < 3; i++) {
      if (picked[i] && !o->global) r |= S_install_one(&t, p, name, S_agents[i].local, 1, o->force, out, d);
      if (o->global && (picked[i] || !any_agent)) {
        char *parent = S_global_dir(&S_agents[i], home);
        r |= S_install_one(&t, p, name, parent, 0, o->force, out, d);
        free(parent);
      }
    }
  }
  lit_project_free(p);
  lit_tree_free(&t);
  free(skill_md);
  free(src);
  return r ? LIT_FAILED : LIT_OK;
}

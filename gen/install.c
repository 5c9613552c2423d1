#define _POSIX_C_SOURCE 200809L
#include "install.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tree.h"
#include "util.h"

typedef struct {
  const char *flag;
  const char *local;  /* under the current folder */
  const char *global; /* under $HOME */
} S_agent;

static const S_agent S_agents[] = {
    {"--claude", ".claude/skills", ".claude/skills"},
    {"--codex", ".codex/skills", ".codex/skills"},
    {"--opencode", ".opencode/skills", ".config/opencode/skills"},
};

static int S_install_one(const lit_tree *t, const char *name, const char *parent, int force, FILE *out, lit_diags *d) {
  char *dir = lit_xasprintf("%s/%s", parent, name);
  struct stat st;
  int r = 1;
  if (lstat(dir, &st) == 0 && !force) {
    lit_diag(d, LIT_ERROR, dir, 0, 0, "a skill is already installed here; pass --force to replace it");
  } else if (lit_tree_install(t, dir, d) == 0) {
    fprintf(out, "installed %s to %s\n", name, dir);
    r = 0;
  }
  free(dir);
  return r;
}

int lit_install_run(const lit_install_opts *o, FILE *out, lit_diags *d) {
  int picked[3] = {o->claude, o->codex, o->opencode};
  int any_agent = o->claude || o->codex || o->opencode;
  if (!any_agent && !o->global && !o->dest) {
    lit_diag(d, LIT_ERROR, NULL, 0, 0, "skill install: say where: --claude, --codex, --opencode, --global or --dest DIR");
    return 2;
  }
  const char *from = o->from && o->from[0] ? o->from : "build/skill/cuda-kernels";
  size_t fl = strlen(from);
  while (fl > 1 && from[fl - 1] == '/') fl--;
  char *src = lit_xstrndup(from, fl);
  const char *slash = strrchr(src, '/');
  const char *name = slash ? slash + 1 : src;
  char *skill_md = lit_xasprintf("%s/SKILL.md", src);
  struct stat st;
  int r = 0;
  if (stat(skill_md, &st) != 0) {
    lit_diag(d, LIT_ERROR, src, 0, 0, "no skill bundle here (no SKILL.md); run `make skill` first, or pass --from DIR");
    r = 1;
  }
  const char *home = getenv("HOME");
  if (!r && o->global && (!home || !home[0])) {
    lit_diag(d, LIT_ERROR, NULL, 0, 0, "skill install --global: HOME is not set");
    r = 1;
  }
  lit_tree t = LIT_TREE_INIT;
  if (!r && lit_tree_read(&t, src, d) != 0) r = 1;
  if (!r) {
    if (o->dest) r |= S_install_one(&t, name, o->dest, o->force, out, d);
    for (size_t i = 0; i < 3; i++) {
      if (picked[i] && !o->global) r |= S_install_one(&t, name, S_agents[i].local, o->force, out, d);
      if (o->global && (picked[i] || !any_agent)) {
        char *parent = lit_xasprintf("%s/%s", home, S_agents[i].global);
        r |= S_install_one(&t, name, parent, o->force, out, d);
        free(parent);
      }
    }
  }
  lit_tree_free(&t);
  free(skill_md);
  free(src);
  return r;
}

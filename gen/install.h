/* install.h: `lit skill install`, copying a built bundle where agents look.
 *
 *   --claude    ./.claude/skills/NAME      --global  ~/.claude/skills/NAME,
 *   --codex     ./.codex/skills/NAME                 ~/.codex/skills/NAME,
 *   --opencode  ./.opencode/skills/NAME              $XDG_CONFIG_HOME/opencode/skills/NAME
 *   --dest DIR  DIR/NAME                             (~/.config when it is unset)
 *
 * --global with one of --claude/--codex/--opencode installs for that agent
 * only; alone, for all three. NAME is the bundle folder's name (from, by
 * default build/skill/NAME, with NAME read from index.md's front matter as
 * `lit skill` does). An existing install is replaced only with --force,
 * and only if lit wrote everything in it; the copy is staged under a hidden
 * name beside it and swapped in (tree.h), so an interrupted install leaves
 * the old one whole and nothing an agent would load as a second skill;
 * the next install cleans up after it. Each install prints
 * "installed NAME to PATH". */
#ifndef LIT_INSTALL_H
#define LIT_INSTALL_H

#include <stdio.h>

#include "diag.h"

typedef struct {
  const char *from; /* bundle folder; default build/skill/NAME */
  const char *dest;
  int claude, codex, opencode, global, force;
} lit_install_opts;

/* LIT_OK; LIT_FAILED (reported through d); LIT_USAGE when no destination
 * is named. */
lit_status lit_install_run(const lit_install_opts *o, FILE *out, lit_diags *d);

#endif

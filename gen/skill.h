/* skill.h: the agent skill bundle, woven from the same documents as the book.
 *
 *   OUT/NAME/SKILL.md           front matter from index.md + index.md woven
 *   OUT/NAME/references/X.md    every other document, woven
 *   OUT/NAME/scripts/X          tangled files under the skill-scripts folders
 *   OUT/NAME/assets/X           with skill-assets: the tangled package (skill_assets.h)
 *   OUT/NAME/.lit-manifest      every file of the bundle (tree.h): what lit wrote there
 *
 * index.md's front matter gives the skill: skill-name (or name),
 * skill-description (or description), and optionally skill-license,
 * skill-compatibility, skill-allowed-tools and skill-scripts (folders whose
 * tangled files ship under scripts/; default "kernels/scripts
 * kernels/benchmarks"). The Agent Skills rules are checked while weaving:
 * name 1-64 of a-z 0-9 '-' without leading, trailing or doubled '-';
 * description 1-1024 characters without '<' or '>'; SKILL.md's body under
 * 500 lines and under 5,000 tokens, estimated as characters / 4.
 *
 * Woven Markdown keeps the authors' text. A code block becomes a plain
 * fence (```cuda) after a line naming its chunk and file; a block that
 * includes chunks is followed by a line saying where each is defined.
 * Links are rewritten for the bundle's layout; each must resolve in it. */
#ifndef LIT_SKILL_H
#define LIT_SKILL_H

#include "diag.h"
#include "model.h"
#include "tree.h"

typedef struct {
  const char *out; /* folder that receives NAME/ (default build/skill) */
  int check;       /* compare with OUT/NAME instead of writing */
} lit_skill_opts;

/* Builds the bundle in memory into *tree (paths relative to the bundle
 * folder) and *name (the skill's name, caller frees). LIT_OK, or LIT_FAILED
 * reported through d. */
lit_status lit_skill_build(const lit_project *p, lit_tree *tree, char **name, lit_diags *d);
/* lit_skill_build, then writes (or checks: LIT_DIFFERS) OUT/NAME. */
lit_status lit_skill_run(const lit_project *p, const lit_skill_opts *o, lit_diags *d);

/* The skill's name from the entry document's front matter: skill-name,
 * else name; NULL if neither. *line (may be NULL) gets its line. The one
 * lookup `lit skill` and `lit skill install` share. */
const char *lit_skill_name(const lit_source *entry, int *line);

/* The Agent Skills checks, exposed for the tests: NULL if valid, else a
 * static reason. */
const char *lit_skill_check_name(const char *name);
const char *lit_skill_check_description(const char *desc);

#endif

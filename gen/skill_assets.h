/* skill_assets.h: the tangled package shipped in the skill as assets/.
 *
 * With `skill-assets: FOLDER` in index.md's front matter (a tangle root,
 * such as `kernels`), every file lit tangles under FOLDER goes into the
 * bundle as assets/PATH, PATH relative to FOLDER, so an agent can copy the
 * whole project (sources, build files, scripts, tests) from the installed
 * skill. Without the key the bundle has no assets/. */
#ifndef LIT_SKILL_ASSETS_H
#define LIT_SKILL_ASSETS_H

#include "diag.h"
#include "model.h"
#include "tree.h"

/* Adds the assets to tree. 0, or -1 after reporting (a FOLDER that is not a
 * tangle root, or a file that does not tangle). */
int lit_skill_assets_add(const lit_project *p, lit_tree *tree, lit_diags *d);
/* For the tests only: called with each file a skill-assets-files pattern
 * matched, once it was checked and before it is read (NULL, the default:
 * nothing), so that a test can swap it for a link in between. */
extern void (*lit_skill_assets_test_hook)(const char *path);

/* Where the generated file `path` lies in the bundle ("assets/..."), or NULL
 * when skill-assets does not ship it. The caller frees the result. */
char *lit_skill_asset_path(const lit_project *p, const char *path);

#endif

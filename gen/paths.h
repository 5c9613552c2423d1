/* paths.h: deciding whether an output path may be written.
 *
 * A file= path is relative to the project root and must fall inside one of
 * the output folders the project declares. It is refused if it is absolute,
 * holds '..', '.' or empty components, or if an existing part of it resolves
 * (through a symbolic link) to somewhere outside that output folder. */
#ifndef LIT_PATHS_H
#define LIT_PATHS_H

#include <stddef.h>

/* Returns NULL if path is acceptable as text, else a static reason. */
const char *lit_path_check_syntax(const char *path, char *const *roots, size_t nroots);
/* Returns NULL if, on disk under project_root, path stays inside its output
 * folder, else a static reason. */
const char *lit_path_check_disk(const char *project_root, const char *path, char *const *roots, size_t nroots);
/* Joins a project root and a relative path; the caller frees the result. */
char *lit_path_join(const char *root, const char *rel);

#endif

/* assets.c: looking up the files embedded from gen/assets/. */
#include "assets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const lit_asset *lit_asset_get(const char *name) {
  for (const lit_asset *a = lit_assets; a->name; a++)
    if (strcmp(a->name, name) == 0) return a;
  fprintf(stderr, "lit: no embedded asset '%s' (gen/assets/ and gen/embed.sh disagree)\n", name);
  abort();
}

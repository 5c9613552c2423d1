/* assets.h: files lit carries inside itself (gen/assets/, embedded at build
 * time by gen/embed.sh): the book's stylesheet, script and icon, and the
 * weaver's Lua prelude and chart library. All static: nothing to free. */
#ifndef LIT_ASSETS_H
#define LIT_ASSETS_H

#include <stddef.h>

typedef struct {
  const char *name;          /* base name: "style.css", "chart.lua" */
  const unsigned char *data; /* len bytes, then a NUL */
  size_t len;
} lit_asset;

/* Ends with an entry whose name is NULL. */
extern const lit_asset lit_assets[];

/* The asset called name; aborts if there is none (a build defect). */
const lit_asset *lit_asset_get(const char *name);

#endif

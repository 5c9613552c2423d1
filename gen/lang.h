/* lang.h: the languages lit knows, in one place.
 *
 * Three rules read the same table, so they cannot drift apart: which
 * untagged blocks are errors (doc.c), how a block is highlighted
 * (highlight.c), and which comment a generated file's header uses (tangle.c,
 * by the file's extension). */
#ifndef LIT_LANG_H
#define LIT_LANG_H

typedef enum {
  LIT_LANG_OTHER,  /* only escaped, never an error untagged (text, json, lua, ...) */
  LIT_LANG_C,      /* C, C++, CUDA */
  LIT_LANG_PYTHON, /* Python */
  LIT_LANG_TOML,   /* TOML */
  LIT_LANG_SHELL   /* sh, bash, console: shown, free to leave untagged */
} lit_lang;

/* The family of a code block's language word ("cuda", "c++", "py"; NULL
 * for none). Case matters, as in the info strings GitHub reads. */
lit_lang lit_lang_of(const char *name);
/* 1 if an untagged block in this language is an error (code in our
 * documents is real, or says it is not): the C family, Python, TOML. */
int lit_lang_needs_tag(const char *name);

typedef enum {
  LIT_COMMENT_NONE, /* the format has no comments (JSON, Markdown) */
  LIT_COMMENT_C,    /* "//": C, C++, CUDA */
  LIT_COMMENT_HASH, /* "#": Python, TOML, shell, YAML, ... */
  LIT_COMMENT_LUA   /* "--" */
} lit_comment;

/* The comment a generated file's header (and #line directives, C only)
 * uses, chosen by the extension of its path. */
lit_comment lit_lang_comment(const char *path);

#endif

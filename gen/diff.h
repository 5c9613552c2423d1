/* diff.h: the shortest line diff between two texts.
 *
 * Myers' O(ND) algorithm in linear space (the middle-snake bisection):
 * time grows with the size of the texts times the number of lines that
 * differ, memory with the size of the texts alone, so a one-line edit in a
 * file of any length is cheap. Lines are compared by a hash first, then by
 * their bytes. lit stitch reads a hand edit of a generated file as these
 * hunks. */
#ifndef LIT_DIFF_H
#define LIT_DIFF_H

#include <stddef.h>

/* One line of a text: its bytes, without the newline. Borrowed. */
typedef struct {
  const char *s;
  size_t len;
} lit_line;

/* Old lines [a, a + alen) became new lines [b, b + blen): a replacement,
 * a deletion (blen 0) or an insertion before old line a (alen 0). */
typedef struct {
  size_t a, alen, b, blen;
} lit_hunk;

/* The lines of text[0..len): each ends at '\n', and a last line without
 * one counts too (so "x" and "x\n" are both one line). Points into text;
 * the caller frees the array (NULL when there are no lines). */
lit_line *lit_lines_split(const char *text, size_t len, size_t *n);

/* The hunks turning a into b, in order, none touching another (an equal
 * line separates two). The caller frees the array (NULL when a equals b,
 * *n then 0). The script is a shortest one: no other turns a into b with
 * fewer deleted plus inserted lines. */
lit_hunk *lit_diff(const lit_line *a, size_t na, const lit_line *b, size_t nb, size_t *n);

#endif

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
/* How many lines lit_lines_split gives, without splitting. */
size_t lit_lines_count(const char *text, size_t len);

/* The hunks turning a into b, in order, none touching another (an equal
 * line separates two). The caller frees the array (NULL when a equals b,
 * *n then 0). The script is a shortest one: no other turns a into b with
 * fewer deleted plus inserted lines. */
lit_hunk *lit_diff(const lit_line *a, size_t na, const lit_line *b, size_t nb, size_t *n);

/* The line diff of two texts, as lit_diff gives it on their split lines
 * (the same hunks, numbered in the whole texts), but the lines both share
 * at their start and at their end are found by comparing bytes and never
 * split: an edit in the middle of a 28 MB file splits the lines between
 * its first and last difference. Owns hunks and b_lines; free it with
 * lit_text_diff_free. */
typedef struct {
  lit_hunk *hunks; /* NULL when the texts hold the same lines */
  size_t nhunks;
  lit_line *b_lines; /* lines [b_first, b_first + nb_lines) of b (borrowed from b): every hunk's new lines */
  size_t b_first, nb_lines;
} lit_text_diff;

void lit_diff_texts(const char *a, size_t alen, const char *b, size_t blen, lit_text_diff *out);
void lit_text_diff_free(lit_text_diff *d);

#endif

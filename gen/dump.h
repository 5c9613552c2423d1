/* dump.h: the chunk model as stable text, for people and for tests.
 * Sections: reading order, chunks (where each is defined and used), data
 * blocks, files (which block writes each). Order is reading order throughout. */
#ifndef LIT_DUMP_H
#define LIT_DUMP_H

#include "model.h"
#include "util.h"

void lit_dump(const lit_project *p, lit_buf *out);

#endif

/* fuzz_tangle.c: libFuzzer target over the reader and the tangler.
 *
 * The input is split into up to three in-memory documents:
 *
 *   <index.md text>
 *   %%% <name>          (a separator line naming the next document)
 *   <its text>
 *
 * Documents without a separator name are called a.md, b.md. The project is
 * loaded with lit_project_load_memory (which never touches the disk) and
 * every file is tangled twice, with and without #line directives; the chunk
 * dump and the diagnostics are formatted too. The same bytes are also fed to
 * the record parser and the attribute parser, which take untrusted text. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../gen/attrs.h"
#include "../../gen/diag.h"
#include "../../gen/dump.h"
#include "../../gen/model.h"
#include "../../gen/record.h"
#include "../../gen/tangle.h"
#include "../../gen/util.h"
#include "fuzz_input.h"

enum { S_MAX_DOCS = 3 };

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A few chunks that include each other twice at each level would expand to
 * gigabytes in memory: past this limit the model refuses the file instead
 * (its refusal, and the chain it reports, are fuzzed too). */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  setenv("LIT_MAX_FILE_SIZE", "4M", 0);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *text = (const char *)data;
  fuzz_parts parts;
  fuzz_split(data, size, S_MAX_DOCS, &parts);
  const char *const *names = parts.names;
  const char *const *texts = parts.texts;
  const size_t *lens = parts.lens;
  size_t n = parts.n;

  lit_diags *d = lit_diags_new();
  lit_diags_set_limit(d, 200);
  lit_project *p = lit_project_load_memory(names, texts, lens, n, d);
  if (p) {
    /* tangling needs a load without errors */
    for (int directives = 0; directives <= 1 && lit_diags_count(d, LIT_ERROR) == 0; directives++) {
      lit_tangle_opts o = {directives, NULL};
      for (size_t i = 0; i < p->nfiles; i++) {
        lit_buf out = LIT_BUF_INIT;
        lit_tangle_file(p, &p->files[i], &o, &out);
        /* every tangled file ends in exactly one newline */
        if (out.len == 0 || out.data[out.len - 1] != '\n' || (out.len >= 2 && out.data[out.len - 2] == '\n'))
          abort();
        lit_buf_free(&out);
      }
    }
    lit_buf dump = LIT_BUF_INIT;
    lit_dump(p, &dump);
    lit_buf_free(&dump);
    lit_project_free(p);
  }
  FILE *null = fopen("/dev/null", "w");
  if (null) {
    lit_diags_print(d, null);
    fclose(null);
  }
  lit_diags_free(d);

  /* The record parser and the attribute parser see untrusted text too. */
  lit_diags *rd = lit_diags_new();
  lit_record rec;
  lit_record_parse(&rec, ".lit-record", text, size, rd);
  lit_buf fmt = LIT_BUF_INIT;
  lit_record_format(&rec, &fmt);
  lit_buf_free(&fmt);
  lit_record_free(&rec);
  lit_diags_free(rd);
  size_t line_len = 0;
  while (line_len < size && text[line_len] != '\n' && text[line_len] != '\0') line_len++;
  char *info = lit_xstrndup(text, line_len);
  lit_attrs a;
  lit_attrs_parse(info, &a, NULL, NULL);
  lit_attrs_free(&a);
  free(info);

  fuzz_parts_free(&parts);
  return 0;
}

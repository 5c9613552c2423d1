/* search-index.js: the book's search index (lit writes it from the documents). */
litSearchIndex({"pages":[
["index.html","Demo kernels"],
["guide.html","The guide"],
["more.html","More kernels"]
],"sections":[
[0,"","Demo kernels","A fixture for the weaver's tests: two documents, a data block, a results file, chunks that continue across documents, and a filter."],
[0,"contents","Contents","The guide More kernels"],
[0,"which-reference-for-which-task","Which reference for which task","task open the add kernel guide, kernel section the runner script more"],
[0,"gpus","GPUs","GPU GB/s efficiency H100 3350 87.5% T4 320 90.0% Only in the book: read the guide first. This paragraph is in the book only: the skill's router stays short."],
[1,"","The guide","See more kernels and the front page. The kernel is written to add.cu and the runner ships as run.py."],
[1,"the-add-kernel","The add kernel","#include \u003ccuda_runtime.h> // adds two vectors __global__ void add(const float *a, const float *b, float *c, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; \u003c\u003cadd-body>> } The body checks the bound first: if (i >= n) return;"],
[1,"results","Results","The add kernel reached 2712.4 GB/s (91.9% of the copy ceiling). The add kernel runs within 10% of the copy ceiling."],
[2,"","More kernels","Back to the guide's kernel."],
[2,"appending","Appending","The body also writes the sum: c[i] = a[i] + b[i];"],
[2,"a-script","A script","#!/usr/bin/env python3 \"\"\"Runs the add kernel.\"\"\" import sys def main(argv): print(\"add\", len(argv)) return 0 if __name__ == \"__main__\": sys.exit(main(sys.argv)) An illustration, never tangled: x = 1 + 2 # not tangled make book A filter that drops shell blocks from the skill only:"]
]});

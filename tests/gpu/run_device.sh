#!/bin/bash
# The GPU passes, on the package exactly as tangled, one phase a call, each
# sized to return within the device tool's 10 minutes with whatever finished.
#   OUT=dir bash tests/gpu/run_device.sh PHASE [GPU_TAG] [STEPS]
# GPU_TAG (default h100; h200) names the files written under $OUT; STEPS
# picks the steps of the three phases that have them. Phases:
#   kernels [STEPS]  norms, ops, GEMM, attention, decode: tests, sanitizers, benchmarks, GEMM profile
#   integration      the transformers, LTX-Video and Hugging Face kernels scripts
#   dit [STEPS]      the DiT block norms: tests, benchmark, LTX-Video compiled table, sanitizers
#   decoder [STEPS]  qk_norm_rope and the decoder layers: tests, transformers compiled table
#   hf_release       the build loaded through the released Hugging Face kernels 0.13.0, layer tests
#   tests            every GPU test suite
#   bench            bench_ops and the norm benchmark
#   sanitize         memcheck and racecheck on FP8, qk_norm_rope, DiT block, ops and norms
#   fp8              the FP8, GEMM and attention suites, bench_fp8
#   fp8_models       bench_fp8_models (MODELS=flux,qwen3 by default)
#   sanitize_hopper  memcheck and racecheck on the FP8 GEMM, the GEMM and attention
#   cuda_graphs      the CUDA-graph example of troubleshooting.md and its test
#   fp8_attention    the FP8 attention and attention suites, its sanitizers, bench_fp8_attention
#   gemm_shapes      the GEMM and layer suites (SKIP_LAYERS=1: no layers), bench_gemm_shapes
#   decode_paged     the decode suites (contiguous and paged), their sanitizers, bench_attention_decode_paged
#   evals            the evaluation's GPU checker: reference solutions, planted submissions, a scripted agent
#   training [STEPS] the backward ops and patch_for_training: tests, sanitizers, benchmarks, the training step
#   fsdp2            the patched training step on one GPU and under FSDP2 on two (kind nvidia-h100-x2)
#   attention_backward [STEPS] the attention backward: tests, sanitizers, benchmark
# Every phase writes $OUT/logs.tar.gz (all its logs) but hf_release, whose
# logs are plain files in $OUT. What each phase runs, its knobs and its
# files are written above its function below.

set -u

# Print the comment above (the usage) without its leading "# ".
usage() { sed -n '2,/^$/{s/^# \{0,1\}//p}' "$0"; }

# ----------------------------------------------------------------- kernels --
# The GPU pass for every kernel: one build, the norm, op and GEMM test
# suites, compute-sanitizer memcheck and racecheck on a representative
# subset, the benchmarks and the GEMM profile. Each step has a time cap.
# STEPS (default tests,sanitize,norms,ops) picks what runs after the build;
# the GEMM's: gemm_tests, gemm_sanitize, gemm_bench, gemm_profile (all of
# them: gemm); the attention's: attention_tests, attention_sanitize,
# attention_bench (all of them: attention); attention decode's:
# decode_tests, decode_sanitize, decode_bench (all three: decode). The
# profile needs Nsight Compute's ncu and cuobjdump.
# NORMS_BUDGET (default 240) caps the norm benchmark's seconds.
# BUILD_DIR (default /tmp/litbuild; inside the repository, build/ is
# git-ignored and survives between calls to a warm machine) with
# REUSE_BUILD=1 skips the build. DIFFUSERS_SRC, a diffusers src/ folder,
# adds the diffusers comparisons.
# Writes $OUT/rmsnorm_$TAG.json, $OUT/ops_$TAG.json, $OUT/gemm_$TAG.json,
# $OUT/gemm_profile_$TAG.json, $OUT/attention_$TAG.json,
# $OUT/attention_decode_$TAG.json and $OUT/logs.tar.gz.
phase_kernels() {
  STEPS=",${STEPS_ARG:-tests,sanitize,norms,ops},"
  STEPS=${STEPS/,gemm,/,gemm_tests,gemm_sanitize,gemm_bench,gemm_profile,}
  STEPS=${STEPS/,attention,/,attention_tests,attention_sanitize,attention_bench,}
  STEPS=${STEPS/,decode,/,decode_tests,decode_sanitize,decode_bench,}
  . tests/gpu/device_common.sh
  record_env
  BUILD_DIR=${BUILD_DIR:-/tmp/litbuild}
  build_package "$BUILD_DIR" 300
  export PYTHONPATH=$LIT_KERNELS_PATH${DIFFUSERS_SRC:+:$DIFFUSERS_SRC}

  if want tests; then
    timeout 240 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_norms.py tests/gpu/test_ops.py tests/gpu/test_layers.py \
      > "$LOGS/tests.txt" 2>&1
    echo "tests rc=$? ($(el)s)"; grep -E "passed|failed|error" "$LOGS/tests.txt" | tail -3
  fi

  want sanitize && for script in sanitize_norms sanitize_ops; do
    for tool in memcheck racecheck; do
      timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 python3 tests/gpu/$script.py \
        > "$LOGS/${script}_$tool.txt" 2>&1
      echo "$script $tool rc=$? ($(el)s)"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$LOGS/${script}_$tool.txt" | tail -1
    done
  done

  if want gemm_tests; then
    timeout 300 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gemm.py > "$LOGS/tests_gemm.txt" 2>&1
    echo "gemm tests rc=$? ($(el)s)"; grep -E "passed|failed|error" "$LOGS/tests_gemm.txt" | tail -3
  fi

  want gemm_sanitize && for tool in memcheck racecheck; do
    timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 python3 tests/gpu/sanitize_gemm.py \
      > "$LOGS/sanitize_gemm_$tool.txt" 2>&1
    echo "sanitize_gemm $tool rc=$? ($(el)s)"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|sanitize_gemm:" "$LOGS/sanitize_gemm_$tool.txt" | tail -2
  done

  if want gemm_bench; then
    timeout 300 python3 kernels/benchmarks/bench_gemm.py --out "$OUT/gemm_$TAG.json" > "$LOGS/bench_gemm.txt" 2>&1
    echo "bench_gemm rc=$? ($(el)s)"; grep "^# " "$LOGS/bench_gemm.txt" | tail -24
  fi
  if want gemm_profile; then
    timeout 300 python3 kernels/benchmarks/profile_gemm.py --out "$OUT/gemm_profile_$TAG.json" --raw-dir "$LOGS" \
      > "$LOGS/profile_gemm.txt" 2>&1
    echo "profile_gemm rc=$? ($(el)s)"; grep "^# " "$LOGS/profile_gemm.txt" | tail -24
  fi

  if want attention_tests; then
    timeout 300 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_attention.py > "$LOGS/tests_attention.txt" 2>&1
    echo "attention tests rc=$? ($(el)s)"; grep -E "passed|failed|error" "$LOGS/tests_attention.txt" | tail -3
  fi
  want attention_sanitize && for tool in memcheck racecheck; do
    timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 python3 tests/gpu/sanitize_attention.py \
      > "$LOGS/sanitize_attention_$tool.txt" 2>&1
    echo "sanitize_attention $tool rc=$? ($(el)s)"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|sanitize_attention:" "$LOGS/sanitize_attention_$tool.txt" | tail -2
  done
  if want attention_bench; then
    timeout 300 python3 kernels/benchmarks/bench_attention.py --out "$OUT/attention_$TAG.json" > "$LOGS/bench_attention.txt" 2>&1
    echo "bench_attention rc=$? ($(el)s)"; grep "^# " "$LOGS/bench_attention.txt" | tail -12
  fi
  if want decode_tests; then
    timeout 300 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_attention_decode.py \
      > "$LOGS/tests_attention_decode.txt" 2>&1
    echo "decode tests rc=$? ($(el)s)"; grep -E "passed|failed|error" "$LOGS/tests_attention_decode.txt" | tail -3
  fi
  want decode_sanitize && for tool in memcheck racecheck; do
    timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 python3 tests/gpu/sanitize_attention_decode.py \
      > "$LOGS/sanitize_attention_decode_$tool.txt" 2>&1
    echo "sanitize_attention_decode $tool rc=$? ($(el)s)"
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|sanitize_attention_decode:" "$LOGS/sanitize_attention_decode_$tool.txt" | tail -2
  done
  if want decode_bench; then
    timeout 300 python3 kernels/benchmarks/bench_attention_decode.py --out "$OUT/attention_decode_$TAG.json" \
      > "$LOGS/bench_attention_decode.txt" 2>&1
    echo "bench_attention_decode rc=$? ($(el)s)"; grep "^# " "$LOGS/bench_attention_decode.txt" | tail -12
  fi

  if want norms; then
    B=${NORMS_BUDGET:-240}
    timeout $((B + 60)) python3 kernels/benchmarks/bench_norms.py --out "$OUT/rmsnorm_$TAG.json" --budget "$B" \
      > "$LOGS/bench_norms.txt" 2>&1
    echo "bench_norms rc=$? ($(el)s)"; grep "^# " "$LOGS/bench_norms.txt" | tail -50
  fi
  if want ops; then
    timeout 150 python3 kernels/benchmarks/bench_ops.py --out "$OUT/ops_$TAG.json" > "$LOGS/bench_ops.txt" 2>&1
    echo "bench_ops rc=$? ($(el)s)"; tail -12 "$LOGS/bench_ops.txt"
  fi
}

# ------------------------------------------------------------- integration --
# The skill's scripts, exactly as tangled into kernels/scripts/, against the
# package as tangled in BUILD_DIR (default /tmp/litbuild; used as it is if
# the folder exists, else built there without the ptxas report). diffusers and
# Hugging Face's kernels library come from sources fetched into .fetched/
# (git-ignored, carried): .fetched/diffusers/src with its commit in
# .fetched/DIFFUSERS_COMMIT, and .fetched/kernels/kernels/src.
# Writes $OUT/transformers_$TAG.json, $OUT/ltx_$TAG.json, $OUT/hub_local.json
# and $OUT/logs.tar.gz.
phase_integration() {
  . tests/gpu/device_common.sh
  local S=kernels/scripts B=${BUILD_DIR:-/tmp/litbuild}
  if [ ! -d "$B" ]; then
    timeout 150 python3 kernels/build_local.py --archs 9.0 --out "$B" > "$LOGS/build.txt" 2>&1 || exit 1
  fi
  LIT_KERNELS_PATH=$(ls -d "$B"/torch*-linux | head -1); export LIT_KERNELS_PATH
  echo "build ready ($(el)s)"
  PYTHONPATH=.fetched/kernels/kernels/src timeout 90 python3 $S/huggingface_kernels_example.py --repo "$B" \
    --out "$OUT/hub_local.json" > "$LOGS/hub.txt" 2>&1
  echo "hub rc=$? ($(el)s)"; grep -E "PASS|FAIL|Error" "$LOGS/hub.txt" | tail -5
  PYTHONPATH=.fetched/diffusers/src DIFFUSERS_COMMIT=$(cat .fetched/DIFFUSERS_COMMIT) timeout 120 \
    python3 $S/ltx_kernel_injection.py --out "$OUT/ltx_$TAG.json" > "$LOGS/ltx.txt" 2>&1
  echo "ltx rc=$? ($(el)s)"; grep -E "^(built|eager|compiled|patched|correctness|ltx_)|Error" "$LOGS/ltx.txt" | tail -12
  local LEFT=$(( 430 - $(el) ))
  timeout $LEFT python3 $S/transformers_injection.py --out "$OUT/transformers_$TAG.json" --models qwen3,llama \
    --deadline $(( LEFT - 60 )) > "$LOGS/transformers.txt" 2>&1
  echo "transformers rc=$? ($(el)s)"; grep -E "^\[|transformers_injection|Error" "$LOGS/transformers.txt" | cut -c1-400 | tail -20
}

# --------------------------------------------------------------------- dit --
# The DiT block norms (references/dit-block.md): one build, their tests,
# their benchmark cases, LTX-Video's compiled table and compute-sanitizer on
# their subset. Every step's limit is cut to what is left before DEADLINE
# (default 530 s), in this order of importance.
# STEPS (default tests,bench,ltx,sanitize) picks what runs after the build;
# ltx8064 adds the compiled table at 2 x 8064 tokens (--frames 21),
# ltx_tokens the one with a timestep per token. A warm machine keeps
# BUILD_DIR (default /tmp/litbuild): a second call with REUSE_BUILD=1 skips
# the build, e.g. REUSE_BUILD=1 ... run_device.sh dit h100 ltx8064,ltx_tokens.
# diffusers comes from .fetched/diffusers/src (DIFFUSERS_SRC to change it).
# Writes $OUT/dit_block_$TAG.json (bench_ops.py), $OUT/ltx_compiled_$TAG.json
# (and _8064, _tokens), $OUT/norm_modulate_ptxas_$TAG.txt and $OUT/logs.tar.gz.
phase_dit() {
  STEPS=",${STEPS_ARG:-tests,bench,ltx,sanitize},"
  . tests/gpu/device_common.sh
  DIFFUSERS_SRC=${DIFFUSERS_SRC:-$PWD/.fetched/diffusers/src}
  DIFFUSERS_COMMIT=$(cat .fetched/DIFFUSERS_COMMIT 2>/dev/null || echo unknown)
  record_env "diffusers $DIFFUSERS_SRC at $DIFFUSERS_COMMIT"

  BUILD_DIR=${BUILD_DIR:-/tmp/litbuild}
  build_package "$BUILD_DIR" "$(limit 240)"
  # registers and spills of every norm_modulate_kernel instantiation on this GPU's target
  [ "$BUILT" = 1 ] && grep -A3 "Compiling entry function '.*norm_modulate_kernel" "$LOGS/build.txt" \
    | grep -E "Compiling entry|Used|spill" > "$OUT/norm_modulate_ptxas_$TAG.txt"
  export PYTHONPATH=$LIT_KERNELS_PATH:$DIFFUSERS_SRC

  if want tests; then
    timeout "$(limit 170)" python3 -m pytest -q -p no:cacheprovider tests/gpu/test_dit_block.py \
      > "$LOGS/tests.txt" 2>&1
    echo "tests rc=$? ($(el)s)"; grep -E "passed|failed|error" "$LOGS/tests.txt" | tail -3
    grep -E "^FAILED" "$LOGS/tests.txt" | head -20
  fi

  if want bench; then
    timeout "$(limit 130)" python3 kernels/benchmarks/bench_ops.py --out "$OUT/dit_block_$TAG.json" \
      --only norm_modulate_rms,norm_modulate_rms_per_token,residual_norm_modulate_rms,gated_residual_norm_modulate_rms,gated_residual_norm_modulate_layer \
      > "$LOGS/bench.txt" 2>&1
    echo "bench rc=$? ($(el)s)"; grep -vE "^\s*$" "$LOGS/bench.txt" | tail -14
  fi

  # LTX-Video's compiled table: the stock model compiled, each patch alone, all,
  # and the default set the rule gives; results are saved after every configuration.
  want ltx && ltx "ltx_compiled_$TAG" 260
  want ltx8064 && ltx "ltx_compiled_8064_$TAG" 300 --frames 21
  want ltx_tokens && ltx "ltx_compiled_tokens_$TAG" 260 --per-token-timesteps

  want sanitize && for tool in memcheck racecheck; do
    L=$(limit 75)
    if (( L < 30 )); then echo "sanitize $tool skipped: $(left)s left"; continue; fi
    timeout "$L" compute-sanitizer --tool $tool --error-exitcode 9 python3 tests/gpu/sanitize_dit_block.py \
      > "$LOGS/sanitize_$tool.txt" 2>&1
    echo "sanitize $tool rc=$? ($(el)s)"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|sanitize_dit_block:" "$LOGS/sanitize_$tool.txt" | tail -2
  done
}

ltx() {  # ltx NAME SECONDS_CAP [script flags...]: one compiled table of the dit phase
  local name=$1 cap=$2; shift 2
  local L; L=$(limit "$cap")
  if (( L < 60 )); then echo "$name skipped: $(left)s left"; return; fi
  timeout "$L" python3 kernels/scripts/ltx_kernel_injection.py --compiled --profile --budget $(( L - 45 )) \
    --diffusers-commit "$DIFFUSERS_COMMIT" --out "$OUT/$name.json" "$@" > "$LOGS/$name.txt" 2>&1
  echo "$name rc=$? ($(el)s)"; grep -E "^\[compiled\]|^built|ltx_kernel_injection|Error" "$LOGS/$name.txt" | tail -14
  grep -A12 '"helps"' "$LOGS/$name.txt" | head -24
}

# ----------------------------------------------------------------- decoder --
# The decoder layers: one build, the qk_norm_rope and decoder-layer test
# suites, then the transformers compiled table (transformers_injection.py
# --mode compiled) for Qwen3 and LLaMA in what is left of the call. The
# whole call stays under TOTAL seconds (default 530; it is this phase's
# DEADLINE); the table's JSON is rewritten after every row, so a cut keeps
# what was measured.
# STEPS (default build,tests,table) picks the steps. More: sanitize
# (compute-sanitizer memcheck and racecheck of qk_norm_rope), qk_bench (the
# qk_norm_rope rows of bench_ops.py), compare (--mode compare with the new
# patches: eager and compiled checks at the script's compare cases).
# BUILD_DIR (default build/decoder inside the repository, git-ignored)
# survives between calls to a warm machine: REUSE_BUILD=1 then skips the
# build, and Inductor's cache there shortens the table's compiles. A second
# call, REUSE_BUILD=1 ... run_device.sh decoder h100 table, gives the table
# the whole call. TABLE_ARGS adds arguments to the table's command line
# (say "--prefill 1x4096,1x2048,8x512" or "--models qwen3").
# Writes $OUT/transformers_compiled_$TAG.json (and with the optional steps
# $OUT/ops_qk_$TAG.json, $OUT/transformers_compare_$TAG.json) and $OUT/logs.tar.gz.
phase_decoder() {
  STEPS=",${STEPS_ARG:-build,tests,table},"
  TOTAL=${TOTAL:-530}  # seconds the call may take, all steps together
  # shellcheck disable=SC2034  # read by device_common.sh, which keeps it
  DEADLINE=$TOTAL
  . tests/gpu/device_common.sh
  record_env "$(python3 -c "import transformers; print('transformers', transformers.__version__)" 2>&1)"

  BUILD_DIR=${BUILD_DIR:-$PWD/build/decoder}
  export TORCHINDUCTOR_CACHE_DIR=$BUILD_DIR/inductor-cache
  if reusable "$BUILD_DIR" || want build; then
    build_package "$BUILD_DIR" 240
    [ "$BUILT" = 1 ] && grep -A3 "qk_norm_rope_kernel" "$LOGS/build.txt" | grep -E "registers|spill" \
      | sort | uniq -c | head -8
  else
    echo "no build in $BUILD_DIR and the build step not asked for"; exit 1
  fi
  export PYTHONPATH=$LIT_KERNELS_PATH

  if want tests; then  # one file at a time, so a cut in the second keeps the first's summary
    for t in test_qk_norm_rope:60 test_decoder_layers:170; do
      timeout ${t#*:} python3 -m pytest -q -p no:cacheprovider tests/gpu/${t%:*}.py > "$LOGS/${t%:*}.txt" 2>&1
      echo "${t%:*} rc=$? ($(el)s)"; grep -E "passed|failed|error|FAILED" "$LOGS/${t%:*}.txt" | tail -10
    done
  fi

  want sanitize && for tool in memcheck racecheck; do
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 python3 tests/gpu/sanitize_qk_norm_rope.py \
      > "$LOGS/sanitize_qk_norm_rope_$tool.txt" 2>&1
    echo "sanitize_qk_norm_rope $tool rc=$? ($(el)s)"
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|sanitize_qk_norm_rope:" "$LOGS/sanitize_qk_norm_rope_$tool.txt" | tail -2
  done

  if want qk_bench; then
    timeout 150 python3 kernels/benchmarks/bench_ops.py --only qk_norm_rope --out "$OUT/ops_qk_$TAG.json" \
      > "$LOGS/bench_qk.txt" 2>&1
    echo "bench_ops qk_norm_rope rc=$? ($(el)s)"; grep "^qk_norm_rope" "$LOGS/bench_qk.txt" | tail -8
  fi

  local LEFT
  if want compare; then
    LEFT=$(( TOTAL - $(el) - 30 ))
    [ $LEFT -gt 120 ] && { timeout $LEFT python3 kernels/scripts/transformers_injection.py --models qwen3,llama \
      --patches norms,mlp,qk_norm_rope,layer_fusion,attention --deadline $(( LEFT - 60 )) \
      --out "$OUT/transformers_compare_$TAG.json" > "$LOGS/compare.txt" 2>&1
    echo "compare rc=$? ($(el)s)"; grep -E "^\[|transformers_injection|Error" "$LOGS/compare.txt" | cut -c1-300 | tail -12; }
  fi

  if want table; then
    # the script stops starting measurements at --deadline; the timeout is the backstop
    LEFT=$(( TOTAL - $(el) ))
    if [ $LEFT -gt 90 ]; then
      # shellcheck disable=SC2086  # TABLE_ARGS is split into arguments on purpose
      timeout $LEFT python3 kernels/scripts/transformers_injection.py --mode compiled --models qwen3,llama \
        --deadline $(( LEFT - 75 )) --out "$OUT/transformers_compiled_$TAG.json" ${TABLE_ARGS:-} \
        > "$LOGS/table.txt" 2>&1
      echo "table rc=$? ($(el)s)"; grep -E "^\[|transformers_injection|Error" "$LOGS/table.txt" | cut -c1-300 | tail -40
    else
      echo "table skipped: $LEFT s left"
    fi
  fi
}

# -------------------------------------------------------------- hf_release --
# The local build through the released Hugging Face kernels library: 0.13.0,
# the newest release that is pure Python (0.14 and later need the compiled
# kernels-data extension). Also the layer tests (flags, eps=None, dtypes).
# Prepare on a machine with the huggingface/kernels history (once):
#   mkdir -p .fetched/kernels-v0.13.0 &&
#   git --git-dir=PATH/TO/kernels.git archive v0.13.0 kernels | tar -x -C .fetched/kernels-v0.13.0
# then carry .fetched/kernels-v0.13.0 to the GPU machine (KERNELS_SRC to
# take another tree). Builds into BUILD_DIR (default /tmp/litbuild-release),
# afresh. GPU_TAG is not used.
# Writes $OUT/hub_local.json (the results file the HF guide renders),
# $OUT/kernels_release.txt, $OUT/build_release.txt and $OUT/layers.txt; no
# logs.tar.gz.
phase_hf_release() {
  OUT=${OUT:-$PWD/build/device-out}; mkdir -p "$OUT"
  local SRC=${KERNELS_SRC:-.fetched/kernels-v0.13.0/kernels}
  local BUILD=${BUILD_DIR:-/tmp/litbuild-release}
  local LOG="$OUT/kernels_release.txt"
  export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 HF_HUB_OFFLINE=1
  local KPKG; KPKG=$(mktemp -d)
  {
    echo "== kernels from $SRC (its source tree, no install, no network)"
    VER=$(sed -n 's/^version = "\(.*\)"/\1/p' "$SRC/pyproject.toml" | head -1)
    echo "version $VER"
    # the package as it is released, plus the dist-info that kernels.__version__
    # (importlib.metadata) reads; its dependencies come from the machine
    cp -r "$SRC/src/kernels" "$KPKG/"
    mkdir -p "$KPKG/kernels-$VER.dist-info"
    printf 'Metadata-Version: 2.1\nName: kernels\nVersion: %s\n' "$VER" > "$KPKG/kernels-$VER.dist-info/METADATA"
    PYTHONPATH=$KPKG python3 -c "import kernels, huggingface_hub; print('kernels', kernels.__version__, 'huggingface_hub', huggingface_hub.__version__)"
    echo "== build"
    rm -rf "$BUILD"
    timeout 200 python3 kernels/build_local.py --archs 9.0 --out "$BUILD" > "$OUT/build_release.txt" 2>&1 || { tail -20 "$OUT/build_release.txt"; exit 1; }
    ls "$BUILD" "$BUILD"/torch*-linux
    cat "$BUILD"/torch*-linux/metadata.json
    echo "== huggingface_kernels_example.py"
    PYTHONPATH=$KPKG KERNELS_SOURCE="huggingface/kernels release v0.13.0, installed from its source" \
      timeout 200 python3 kernels/scripts/huggingface_kernels_example.py --repo "$BUILD" --out "$OUT/hub_local.json"
    echo "example rc=$?"
  } > "$LOG" 2>&1
  grep -E "^== |^kernels |example rc|PASS|FAIL|Error" "$LOG" | tail -20
  LIT_KERNELS_PATH=$(ls -d "$BUILD"/torch*-linux | head -1) timeout 200 python3 tests/gpu/test_layers.py > "$OUT/layers.txt" 2>&1
  echo "layers rc=$?"; tail -5 "$OUT/layers.txt"
}

# ------------------------------------------------- tests, bench, sanitize... --
# The phases below (tests through gemm_shapes) start alike: one build of the
# package as tangled in BUILD_DIR (default /tmp/litbuild; REUSE_BUILD=1
# reuses it), its log copied to $OUT/build_$TAG.txt when it built, then the
# phase's steps, each limit cut to what is left before DEADLINE (default
# 530 s). Each suite's log is copied to $OUT/tests_NAME_$TAG.txt and each
# sanitizer's to $OUT/SCRIPT_TOOL_$TAG.txt (suite and sanitize, in
# device_common.sh). diffusers comes from .fetched/diffusers/src
# (DIFFUSERS_SRC to change it).
build_for_phase() {
  . tests/gpu/device_common.sh
  DIFFUSERS_SRC=${DIFFUSERS_SRC:-$PWD/.fetched/diffusers/src}
  record_env
  BUILD_DIR=${BUILD_DIR:-/tmp/litbuild}
  build_package "$BUILD_DIR" "$(limit 260)"
  [ "$BUILT" = 1 ] && cp "$LOGS/build.txt" "$OUT/build_$TAG.txt"
  export PYTHONPATH=$LIT_KERNELS_PATH:$DIFFUSERS_SRC
}

# tests: every GPU test suite, the newest first.
phase_tests() {
  build_for_phase
  suite qk_norm_rope 60 tests/gpu/test_qk_norm_rope.py
  suite dit_block 170 tests/gpu/test_dit_block.py
  suite ops 90 tests/gpu/test_ops.py
  suite norms_layers 90 tests/gpu/test_norms.py tests/gpu/test_layers.py
  suite gemm 90 tests/gpu/test_gemm.py
  suite attention 90 tests/gpu/test_attention.py tests/gpu/test_attention_decode.py
  suite decoder_layers 170 tests/gpu/test_decoder_layers.py
  suite cuda_graphs 90 tests/gpu/test_cuda_graphs.py
}

# cuda_graphs: its test, then troubleshooting.md's CUDA-graph example;
# writes $OUT/cuda_graphs_example_$TAG.txt.
phase_cuda_graphs() {
  build_for_phase
  suite cuda_graphs 120 tests/gpu/test_cuda_graphs.py
  L=$(limit 120)
  timeout "$L" python3 kernels/scripts/cuda_graphs_example.py > "$LOGS/cuda_graphs_example.txt" 2>&1
  echo "cuda_graphs_example rc=$? ($(el)s)"; tail -3 "$LOGS/cuda_graphs_example.txt"
  cp "$LOGS/cuda_graphs_example.txt" "$OUT/cuda_graphs_example_$TAG.txt"
}

# bench: bench_ops (GEGLU's erff form, LayerNorm's merged kernel and its
# wide rows, qk_norm_rope, the DiT block norms) and the norm benchmark in
# what is left; writes $OUT/ops_$TAG.json, $OUT/bench_ops_$TAG.txt and
# $OUT/rmsnorm_$TAG.json.
phase_bench() {
  build_for_phase
  L=$(limit 200)
  timeout "$L" python3 kernels/benchmarks/bench_ops.py --out "$OUT/ops_$TAG.json" > "$LOGS/bench_ops.txt" 2>&1
  echo "bench_ops rc=$? ($(el)s)"; tail -40 "$LOGS/bench_ops.txt"; cp "$LOGS/bench_ops.txt" "$OUT/bench_ops_$TAG.txt"
  B=$(( $(limit 240) - 40 ))
  if (( B > 60 )); then
    timeout $(( B + 40 )) python3 kernels/benchmarks/bench_norms.py --out "$OUT/rmsnorm_$TAG.json" --budget "$B" \
      > "$LOGS/bench_norms.txt" 2>&1
    echo "bench_norms rc=$? ($(el)s)"; grep "^# " "$LOGS/bench_norms.txt" | tail -30
  fi
}

# fp8: the FP8 GEMM and quantizers, the Hopper kernels that share their
# ring, and bench_fp8; writes $OUT/fp8_$TAG.json.
phase_fp8() {
  build_for_phase
  suite fp8 150 tests/gpu/test_fp8.py
  suite gemm 90 tests/gpu/test_gemm.py
  suite attention 120 tests/gpu/test_attention.py tests/gpu/test_attention_decode.py
  L=$(limit 240)
  timeout "$L" python3 kernels/benchmarks/bench_fp8.py --out "$OUT/fp8_$TAG.json" > "$LOGS/bench_fp8.txt" 2>&1
  echo "bench_fp8 rc=$? ($(el)s)"; grep "^# " "$LOGS/bench_fp8.txt" | tail -40; tail -5 "$LOGS/bench_fp8.txt"
}

# fp8_models: compiled Flux-shaped and Qwen3-shaped models (MODELS, default
# flux,qwen3): bf16, the plain FP8 recipe, the FP8 patches; writes
# $OUT/fp8_models_$TAG.json.
phase_fp8_models() {
  build_for_phase
  L=$(limit 480)
  timeout "$L" python3 kernels/benchmarks/bench_fp8_models.py --out "$OUT/fp8_models_$TAG.json" \
    --diffusers-src "$DIFFUSERS_SRC" --models "${MODELS:-flux,qwen3}" > "$LOGS/bench_fp8_models.txt" 2>&1
  echo "bench_fp8_models rc=$? ($(el)s)"; grep "^# " "$LOGS/bench_fp8_models.txt" | tail -20
  tail -25 "$LOGS/bench_fp8_models.txt"
}

# fp8_attention: the FP8 attention suite, the attention suite (the kernel it
# shares), memcheck and racecheck on it, and bench_fp8_attention; writes
# $OUT/fp8_attention_$TAG.json.
phase_fp8_attention() {
  build_for_phase
  suite fp8_attention 120 tests/gpu/test_fp8_attention.py
  suite attention 100 tests/gpu/test_attention.py
  sanitize sanitize_fp8_attention 60
  L=$(limit 200)
  timeout "$L" python3 kernels/benchmarks/bench_fp8_attention.py --out "$OUT/fp8_attention_$TAG.json" \
    > "$LOGS/bench_fp8_attention.txt" 2>&1
  echo "bench_fp8_attention rc=$? ($(el)s)"; grep "^# " "$LOGS/bench_fp8_attention.txt" | tail -12
  tail -5 "$LOGS/bench_fp8_attention.txt"
}

# gemm_shapes: the GEMM suite (the few-rows kernel included), the layer
# suite whose GEMMs it takes (SKIP_LAYERS=1 leaves it out), and
# bench_gemm_shapes, the shape sweep; writes $OUT/gemm_shapes_$TAG.json.
phase_gemm_shapes() {
  build_for_phase
  suite gemm 120 tests/gpu/test_gemm.py
  [ -n "${SKIP_LAYERS:-}" ] || suite layers 90 tests/gpu/test_layers.py
  L=$(limit 420)
  timeout "$L" python3 kernels/benchmarks/bench_gemm_shapes.py --out "$OUT/gemm_shapes_$TAG.json" \
    > "$LOGS/bench_gemm_shapes.txt" 2>&1
  echo "bench_gemm_shapes rc=$? ($(el)s)"; grep "^# " "$LOGS/bench_gemm_shapes.txt" | tail -120
  tail -3 "$LOGS/bench_gemm_shapes.txt"
}

# decode_paged: the decode suites, contiguous and paged (the paged kernel is
# a second instantiation of the same template), memcheck and racecheck on
# both, and bench_attention_decode_paged; writes
# $OUT/attention_decode_paged_$TAG.json.
phase_decode_paged() {
  build_for_phase
  suite decode 150 tests/gpu/test_attention_decode.py tests/gpu/test_attention_decode_paged.py
  sanitize sanitize_attention_decode 60
  L=$(limit 240)
  timeout "$L" python3 kernels/benchmarks/bench_attention_decode_paged.py \
    --out "$OUT/attention_decode_paged_$TAG.json" > "$LOGS/bench_attention_decode_paged.txt" 2>&1
  echo "bench_attention_decode_paged rc=$? ($(el)s)"; grep "^# " "$LOGS/bench_attention_decode_paged.txt" | tail -20
  tail -5 "$LOGS/bench_attention_decode_paged.txt"
}

# sanitize_hopper: memcheck and racecheck on the kernels of the shared
# Hopper ring.
phase_sanitize_hopper() {
  build_for_phase
  sanitize sanitize_fp8 90
  sanitize sanitize_gemm 90
  sanitize sanitize_attention 90
}

# sanitize: memcheck and racecheck on the newer ops, then on the LayerNorm,
# activation and norm subsets.
phase_sanitize() {
  build_for_phase
  sanitize sanitize_fp8 60
  sanitize sanitize_qk_norm_rope 60
  sanitize sanitize_dit_block 75
  sanitize sanitize_ops 60
  sanitize sanitize_norms 60
}

# evals: the evaluation's GPU checker (references/evaluating-agents-checker.md)
# on its reference solutions (correct, and fast where the task asks) and
# planted submissions (each caught by its guard), then a scripted agent
# through the runner with --checker gpu; needs torch, Triton and
# compute-sanitizer, not the package, so nothing is built. The whole run
# takes about nine minutes on an H200: give it a call of its own
# (DEADLINE=590). ONLY (names, comma-separated) runs a subset; MERGE (an
# earlier results file) keeps what ONLY leaves out from it. Writes
# $OUT/evals_$TAG.json (committed as references/results/evals_h200.json)
# and $OUT/evals_$TAG.txt.
phase_evals() {
  . tests/gpu/device_common.sh
  record_env "compute-sanitizer: $(command -v compute-sanitizer || echo none)"
  L=$(limit 580)
  timeout "$L" python3 -m evals.device_check --out "$OUT/evals_$TAG.json" ${ONLY:+--only "$ONLY"} \
    ${MERGE:+--merge "$MERGE"} > "$LOGS/evals.txt" 2>&1
  echo "evals rc=$? ($(el)s)"; grep -E "^(solution|planted|scripted|all as|not as)" "$LOGS/evals.txt"
  cp "$LOGS/evals.txt" "$OUT/evals_$TAG.txt"
}

# training: the backward ops' suites and patch_for_training's, their
# sanitizers, and the benchmarks. STEPS (default tests,sanitize) may add
# bench: the backward benchmarks, the fused linear cross-entropy's and the
# compiled training step's. sanitize_loss's racecheck reports hazards
# inside cuBLAS's Hopper kernels (nvjet_*), whose barriers it does not
# follow; the count printed is of those outside them, which must be 0.
# Writes $OUT/tests_*_$TAG.txt, the sanitizer logs and, with bench,
# $OUT/{activations_backward,norms_backward,layernorm_backward,rope_backward,
# linear_cross_entropy,train_step}_$TAG.json.
phase_training() {
  STEPS=",${STEPS_ARG:-tests,sanitize},"
  build_for_phase
  if want tests; then
    suite norms_backward 120 tests/gpu/test_norms_backward.py tests/gpu/test_layernorm_backward.py tests/gpu/test_layers.py
    suite act_rope_backward 120 tests/gpu/test_activations_backward.py tests/gpu/test_rope_backward.py
    suite linear_cross_entropy 90 tests/gpu/test_linear_cross_entropy.py
    suite training 150 tests/gpu/test_training.py
  fi
  if want sanitize; then
    sanitize sanitize_norms 200
    sanitize sanitize_ops 60
    L=$(limit 60)
    timeout "$L" compute-sanitizer --tool memcheck --error-exitcode 9 python3 tests/gpu/sanitize_loss.py \
      > "$LOGS/sanitize_loss_memcheck.txt" 2>&1
    echo "sanitize_loss memcheck rc=$? ($(el)s)"; grep "ERROR SUMMARY" "$LOGS/sanitize_loss_memcheck.txt" | tail -1
    L=$(limit 60)
    timeout "$L" compute-sanitizer --tool racecheck python3 tests/gpu/sanitize_loss.py \
      > "$LOGS/sanitize_loss_racecheck.txt" 2>&1
    echo "sanitize_loss racecheck rc=$? ($(el)s): $(grep "Race reported" "$LOGS/sanitize_loss_racecheck.txt" \
      | grep -vc nvjet_) hazards outside cuBLAS"
    cp "$LOGS"/sanitize_loss_*.txt "$OUT/"
  fi
  if want bench; then
    for b in activations_backward norms_backward layernorm_backward rope_backward linear_cross_entropy train_step; do
      L=$(limit 300)
      timeout "$L" python3 "kernels/benchmarks/bench_$b.py" --out "$OUT/${b}_$TAG.json" > "$LOGS/bench_$b.txt" 2>&1
      echo "bench_$b rc=$? ($(el)s)"; grep "^# " "$LOGS/bench_$b.txt" | tail -8
    done
  fi
}

# attention_backward: the attention backward's suite (with the forward's,
# whose inference-only refusal it lifted), compute-sanitizer memcheck and
# racecheck on its small shapes, and its benchmark. STEPS (default
# tests,sanitize) may add bench or name it alone; the build (BUILD_DIR,
# REUSE_BUILD as in kernels) is reused by a later call to a warm machine.
# Writes $OUT/tests_attention_backward_$TAG.txt, the sanitizer logs and, with
# bench, $OUT/attention_backward_$TAG.json.
phase_attention_backward() {
  STEPS=",${STEPS_ARG:-tests,sanitize},"
  build_for_phase
  if want tests; then
    suite attention_backward 300 tests/gpu/test_attention_backward.py tests/gpu/test_attention.py
  fi
  if want sanitize; then  # a process a form: racecheck over all eight in one outlasts minutes
    for form in 0 1 2 3 4 5 6 7; do sanitize sanitize_attention_backward 45 "$form"; done
  fi
  if want bench; then
    L=$(limit 400)
    timeout "$L" python3 kernels/benchmarks/bench_attention_backward.py --out "$OUT/attention_backward_$TAG.json" \
      > "$LOGS/bench_attention_backward.txt" 2>&1
    echo "bench_attention_backward rc=$? ($(el)s)"; grep "^# " "$LOGS/bench_attention_backward.txt" | tail -12
    cp "$LOGS/bench_attention_backward.txt" "$OUT/bench_attention_backward_$TAG.txt"
  fi
}

# fsdp2: bench_train_fsdp2 on one GPU, then under FSDP2 on two (the
# nvidia-h100-x2 kind; torchrun as python3 -m torch.distributed.run).
# Writes $OUT/train_fsdp2_$TAG.json and the run's output, $OUT/train_fsdp2_$TAG.txt.
phase_fsdp2() {
  build_for_phase
  L=$(limit 200)
  timeout "$L" python3 kernels/benchmarks/bench_train_fsdp2.py --one-gpu --out "$LOGS/one_gpu.json" \
    > "$LOGS/one_gpu.txt" 2>&1
  echo "one gpu rc=$? ($(el)s)"; grep "^# " "$LOGS/one_gpu.txt"
  L=$(limit 300)
  timeout "$L" python3 -m torch.distributed.run --nproc-per-node 2 kernels/benchmarks/bench_train_fsdp2.py \
    --reference "$LOGS/one_gpu.json" --out "$OUT/train_fsdp2_$TAG.json" > "$LOGS/fsdp2.txt" 2>&1
  echo "fsdp2 rc=$? ($(el)s)"; grep "^# " "$LOGS/fsdp2.txt"
  cp "$LOGS/fsdp2.txt" "$OUT/train_fsdp2_$TAG.txt"
}

# ------------------------------------------------------------------- main --
want() { [[ $STEPS == *",$1,"* ]]; }  # want STEP: STEP is in the phase's STEPS

case ${1:-} in
  -h | --help) usage; exit 0 ;;
esac
PHASE=${1:-}
if [[ ! $PHASE =~ ^[a-z0-9_]+$ ]] || ! declare -F "phase_$PHASE" > /dev/null; then
  usage >&2
  if [ -n "$PHASE" ]; then echo "run_device.sh: unknown phase: $PHASE" >&2; else echo "run_device.sh: no phase given" >&2; fi
  exit 2
fi
TAG=${2:-h100}
STEPS_ARG=${3:-}
STEPS=,
"phase_$PHASE"

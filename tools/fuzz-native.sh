#!/bin/sh
# Builds and runs the DotCode core's libFuzzer targets (native/fuzz/*.cpp) for a bounded time,
# then builds and runs the native unit tests under AddressSanitizer + UBSan.
# Exits non-zero on any crash, sanitizer report or test failure. Needs clang (apt-get install clang).
# Usage: tools/fuzz-native.sh [total_seconds=60]
set -eu
cd "$(dirname "$0")/.."
TOTAL=${1:-60}
BUILD=build-fuzz
command -v clang++ >/dev/null 2>&1 || { echo "fuzz-native: clang++ not found (apt-get install -y clang)" >&2; exit 1; }

# The core library is instrumented too (fuzzer-no-link), so libFuzzer sees coverage inside the
# decoder and not only in the harness.
cmake -S . -B "$BUILD" -DDOTCODE_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer" >/dev/null
TARGETS=$(ls native/fuzz/*.cpp | xargs -n1 basename | sed 's/\.cpp$//')
# shellcheck disable=SC2086
cmake --build "$BUILD" --target $TARGETS -j "$(nproc)" >/dev/null

# Seed corpus for the grid target: the shared vectors that fit its 64 x 64 limit, in its input
# format (rows-1, cols-1, option byte, one presence byte per position), so fuzzing starts from
# real symbols and reaches the data layer.
SHARED=${DOTCODE_SHARED_DIR:-../shared}
mkdir -p "$BUILD/corpus/fuzz_dotcode_grid"
if [ -f "$SHARED/dotcode/vectors.jsonl" ]; then
  node -e '
    const fs = require("fs"), [file, out] = process.argv.slice(1);
    fs.readFileSync(file, "utf8").split("\n").filter(Boolean).forEach((line, i) => {
      const v = JSON.parse(line);
      if (v.rows > 64 || v.cols > 64) return;
      const b = [v.rows - 1, v.cols - 1, 19];
      for (const row of v.matrix) for (const ch of row) b.push(ch === "1" ? 255 : 0);
      fs.writeFileSync(`${out}/vector-${i}`, Buffer.from(b));
    });' "$SHARED/dotcode/vectors.jsonl" "$BUILD/corpus/fuzz_dotcode_grid"
fi

COUNT=$(echo "$TARGETS" | wc -w)
EACH=$((TOTAL / COUNT))
[ "$EACH" -ge 1 ] || EACH=1
STATUS=0
for t in $TARGETS; do
  CORPUS="$BUILD/corpus/$t"
  mkdir -p "$CORPUS"
  echo "fuzz-native: $t for ${EACH}s"
  # Crash reproducers land in $BUILD/crashes/ (artifact_prefix) so CI can keep them.
  mkdir -p "$BUILD/crashes"
  if ! "$BUILD/$t" -max_total_time="$EACH" -max_len=4200 -print_final_stats=0 \
       -artifact_prefix="$BUILD/crashes/$t-" "$CORPUS" >"$BUILD/$t.log" 2>&1; then
    echo "fuzz-native: $t FAILED, see $BUILD/$t.log and $BUILD/crashes/" >&2
    tail -40 "$BUILD/$t.log" >&2
    STATUS=1
  else
    grep -E "^#[0-9]+.*DONE|Done [0-9]+ runs" "$BUILD/$t.log" | tail -1 || true
  fi
done

echo "fuzz-native: native_tests under ASan/UBSan"
if ! DOTCODE_SANITIZE=1 node tools/native-tests.js; then
  echo "fuzz-native: sanitizer build of native_tests FAILED" >&2
  STATUS=1
fi
exit $STATUS

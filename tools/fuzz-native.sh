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

cmake -S . -B "$BUILD" -DDOTCODE_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
TARGETS=$(ls native/fuzz/*.cpp | xargs -n1 basename | sed 's/\.cpp$//')
# shellcheck disable=SC2086
cmake --build "$BUILD" --target $TARGETS -j "$(nproc)" >/dev/null

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

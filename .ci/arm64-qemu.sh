#!/usr/bin/env bash
# Proves the linux-arm64 prebuilt addon (prebuilds/linux-arm64, tools/prebuild.js) for real on
# this x64 machine: Debian's arm64 Node.js runs under qemu-user and loads the arm64 addon
# (DOTCODE_ENGINE=native: no WebAssembly fallback allowed), then runs the DotCode engine tests
# and decodes the examples. Run by .ci/run after `npm ci` (dist/ and prebuilds/ built).
#
# What it installs: qemu-user-static, the arm64 dpkg architecture (for apt lists), and, into
# build-arm64/sysroot only, the arm64 Node.js and its libraries, unpacked from their .debs with
# dpkg-deb -x. They are never dpkg-installed: Debian's nodejs:arm64/libnode108:arm64 would
# replace the machine's own (amd64) Node.js. Plus sharp's arm64 binaries (npm pack, the
# versions sharp asks for) in build-arm64/node_modules, found through NODE_PATH (never in the
# checkout's node_modules, where npm would see packages for another CPU).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
OUT=build-arm64
SYSROOT=$OUT/sysroot
mkdir -p "$OUT/debs" "$SYSROOT"
export DEBIAN_FRONTEND=noninteractive

if ! command -v qemu-aarch64-static >/dev/null; then
  apt-get install -y -qq --no-install-recommends qemu-user-static >/dev/null
fi
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  dpkg --add-architecture arm64
  apt-get update -qq
fi

# Debian's arm64 Node.js (the same major as Debian's own) and the libraries it links.
debs=(nodejs:arm64 libnode108:arm64 libc6:arm64 libgcc-s1:arm64 libstdc++6:arm64 libuv1:arm64
      libssl3:arm64 libicu72:arm64 libbrotli1:arm64 libc-ares2:arm64 libnghttp2-14:arm64 zlib1g:arm64
      node-undici node-busboy node-cjs-module-lexer node-acorn node-xtend)
if [ ! -x "$SYSROOT/usr/bin/node" ]; then
  (cd "$OUT/debs" && apt-get download "${debs[@]}" >/dev/null 2>&1 || { apt-get update -qq && apt-get download "${debs[@]}" >/dev/null; })
  for d in "$OUT"/debs/*.deb; do dpkg-deb -x "$d" "$SYSROOT"; done
fi
# qemu's -L prefix serves the guest's loader and libraries from the sysroot.
node_arm64() { qemu-aarch64-static -L "$ROOT/$SYSROOT" "$ROOT/$SYSROOT/usr/bin/node" "$@"; }
echo "arm64 node $(node_arm64 -p 'process.version + " " + process.arch')"

# sharp's arm64 binaries, the versions sharp itself asks for.
sharp_pkgs=$(node -p "const o = require('sharp/package.json').optionalDependencies; ['@img/sharp-linux-arm64', '@img/sharp-libvips-linux-arm64'].map((n) => n + '@' + o[n]).join(' ')")
for spec in $sharp_pkgs; do
  name=${spec%@*}
  if [ ! -d "$OUT/node_modules/$name" ]; then
    tgz=$(cd "$OUT" && npm pack "$spec" --silent)
    mkdir -p "$OUT/node_modules/$name"
    tar -xzf "$OUT/$tgz" -C "$OUT/node_modules/$name" --strip-components=1
  fi
done
export NODE_PATH="$ROOT/$OUT/node_modules"

# node-gyp-build looks for the addon in DOTCODE_SDK_PREBUILD instead of the checkout, whose
# build/Release holds the x64 addon: a folder with only the package name and prebuilds/.
mkdir -p "$OUT/pkg"
cp package.json "$OUT/pkg/package.json"
ln -sfn "$ROOT/prebuilds" "$OUT/pkg/prebuilds"
export DOTCODE_SDK_PREBUILD="$ROOT/$OUT/pkg" DOTCODE_ENGINE=native

node_arm64 -e "
  const a = require('node-gyp-build').resolve(process.env.DOTCODE_SDK_PREBUILD);
  if (!/prebuilds\/linux-arm64\//.test(a)) throw new Error('not the arm64 prebuild: ' + a);
  console.log('addon', a);"

# The examples, through the command line, every one read.
node_arm64 bin/dotcode.js decode examples/*.png --json | tee "$OUT/examples.jsonl"
node_arm64 -e "
  const rows = require('fs').readFileSync('$OUT/examples.jsonl', 'utf8').trim().split('\n').map(JSON.parse);
  const bad = rows.filter((r) => !r.ok);
  if (rows.length < 7 || bad.length) throw new Error('examples not read on arm64: ' + JSON.stringify(bad));
  const dot = rows.filter((r) => r.format === 'DotCode');
  if (!dot.length || dot.some((r) => !r.via.startsWith('dotcode:'))) throw new Error('no DotCode read by the addon');
  console.log(rows.length + ' examples read on arm64 (' + dot.length + ' DotCode by the native addon)');"

# The arm64 addon reads exactly what the x64 addon reads: two images of every category of the
# read-rate test set, rendered and read here on x64 (no DOTCODE_SDK_PREBUILD), read again on arm64.
DOTCODE_SDK_PREBUILD= DOTCODE_ENGINE= NODE_PATH= node dist/test/engine/cross-arch-parity.js record "$OUT/parity" 2
node_arm64 dist/test/engine/cross-arch-parity.js check "$OUT/parity"

# The DotCode engine tests under the arm64 Node.js (mocha in-process; the same compiled tests).
# Left out: the detector's synthetic-image suite and the zxing corpus (minutes under emulation;
# the parity check above covers the detector), and the one test that spawns process.execPath (an
# arm64 binary the kernel cannot exec without binfmt_misc).
node_arm64 node_modules/mocha/bin/mocha.js --no-config --timeout 600000 --exit \
  --grep 'idle workers do not keep the process alive' --invert \
  dist/test/dotcode-core/vectors.test.js dist/test/engine/eci-segments.test.js dist/test/engine/engine.test.js

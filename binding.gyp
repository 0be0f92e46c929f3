{
  "targets": [
    {
      "target_name": "dotcode_native",
      "sources": ["<!@(node tools/list-sources.js)"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")", "native"],
      "defines": ["NAPI_VERSION=8", "NODE_ADDON_API_DISABLE_DEPRECATED"],
      # libjpeg is opened at run time (native/addon/jpeg_grey.cpp): dlopen needs -ldl before glibc 2.34.
      "conditions": [["OS=='linux'", { "libraries": ["-ldl"] }]],
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions", "-std=gnu++17"],
      # -ffp-contract=off: no fused multiply-add (aarch64 g++ fuses a*b+c by default), so the
      # x64, arm64 and WebAssembly builds compute the same floats and read the same symbols.
      "cflags_cc": ["-std=c++17", "-O3", "-fexceptions", "-ffp-contract=off"],
      "xcode_settings": {
        "GCC_ENABLE_CPP_EXCEPTIONS": "YES",
        "CLANG_CXX_LANGUAGE_STANDARD": "c++17"
      },
      "msvs_settings": { "VCCLCompilerTool": { "ExceptionHandling": 1 } }
    }
  ]
}

#!/usr/bin/env python3
# The native side of bench/peers.ts: Debian's python3-zxing-cpp (zxing-cpp's own C++ reader,
# called as zxingcpp.read_barcodes(PIL image, formats=F)). A bench tool only, never a product
# dependency (install: apt-get install -y python3-zxing-cpp python3-pil).
#
# Line protocol so the two readers can be timed image by image, interleaved, in one run (load on
# this shared machine drifts; interleaving puts both sides under the same drift):
#   stdin:  one JSON object per line {"path": ..., "format": "QRCode", "runs": 5}
#   stdout: one JSON object per line {"ms": [...], "texts": [...], "bytes": ["hex", ...]}
# A first line {"hello": true} answers {"version": ..., "ok": true}.
# Each run times what a caller pays: the file's bytes (already in memory) -> PIL image ->
# read_barcodes, image decoding included (PIL decodes lazily; read_barcodes forces it).
import io
import json
import sys
import time

try:
    import zxingcpp
    from PIL import Image
except ImportError as e:  # the bench prints the install hint
    print(json.dumps({"ok": False, "error": str(e)}), flush=True)
    sys.exit(3)

FORMATS = {
    "QRCode": zxingcpp.BarcodeFormat.QRCode,
    "DataMatrix": zxingcpp.BarcodeFormat.DataMatrix,
    "PDF417": zxingcpp.BarcodeFormat.PDF417,
    "Aztec": zxingcpp.BarcodeFormat.Aztec,
    "MaxiCode": zxingcpp.BarcodeFormat.MaxiCode,
}


def version():
    # The Debian package carries no Python metadata; dpkg knows its version.
    try:
        import subprocess
        out = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "python3-zxing-cpp"],
                             capture_output=True, text=True, check=True).stdout.strip()
        return out or "unknown"
    except Exception:
        return "unknown"


def main():
    for line in sys.stdin:
        req = json.loads(line)
        if req.get("hello"):
            print(json.dumps({"ok": True, "version": version()}), flush=True)
            continue
        with open(req["path"], "rb") as f:
            data = f.read()
        fmt = FORMATS[req["format"]]
        ms = []
        results = []
        for _ in range(int(req.get("runs", 5))):
            t0 = time.perf_counter()
            results = zxingcpp.read_barcodes(Image.open(io.BytesIO(data)), formats=fmt)
            ms.append((time.perf_counter() - t0) * 1000.0)
        valid = [r for r in results if r.valid]
        print(json.dumps({
            "ms": ms,
            "texts": [r.text for r in valid],
            "bytes": [bytes(r.bytes).hex() for r in valid],
        }), flush=True)


if __name__ == "__main__":
    main()

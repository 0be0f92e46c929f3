#!/usr/bin/python3
"""A second, independent renderer of DotCode camera scenes: blur-gauss, defocus, motion, cylinder.

Written apart from test/fixtures/dotcode-render so that the detector is not only measured on the
renderer it was tuned with (docs/detector.md, "An independent renderer"). The dot matrix comes
from zint (`zint -b 115 --dump`, Debian's zint 2.11); everything else is drawn here: dots as
discs whose edges are area-sampled on a 4-6x supersampled canvas, the PSF applied on that canvas
(a true Gaussian, an area-sampled disc, a bilinearly splatted streak) before each pixel's subsamples are
averaged; cylinders by casting a pinhole camera's rays onto a real cylinder
(Lambertian shading, a Blinn specular stripe). Needs Debian's python3-numpy, python3-scipy,
python3-pil and zint; no network.

Usage: /usr/bin/python3 bench/indep_render.py CLASS SEED_FROM SEED_TO OUTDIR [--sharp] [--small] [--light]
writes CLASS-NNNN.png and truth-CLASS-FROM-TO.json (text and parameters per image); --sharp
draws the same scenes without the blur (a control that must read ~100%); --small draws modules of
2-3.5 px (flat classes) and 2.5-4 px at a cylinder's middle instead of 3-10 and 4-10; --light draws
a cylinder's symbol as light dots on a dark surface (laser-marked vials) instead of dark print. Read them with
`npx dotcode decode OUTDIR/*.png --json --format DotCode` and compare "text" with the truth.
"""
import sys, os, json, re, subprocess, math
import numpy as np
from scipy.signal import fftconvolve
from scipy.ndimage import convolve, map_coordinates
from PIL import Image

ALPHA = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefghijklmnopqrstuvwxyz -.:/+$%"


def payload(rng):
    kind = rng.integers(0, 4)
    n = int(rng.integers(3, 45))
    if kind == 0:
        return "".join(rng.choice(list("0123456789"), n))
    if kind == 1:
        return "".join(rng.choice(list("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"), n))
    return "".join(rng.choice(list(ALPHA), n)).strip() or "X1"


def matrix(text):
    dump = subprocess.run(["zint", "-b", "115", "--dump", "-d", text], capture_output=True, text=True, check=True).stdout
    svg = subprocess.run(["zint", "-b", "115", "--direct", "--filetype=svg", "-d", text], capture_output=True, text=True, check=True).stdout
    m = re.search(r'svg width="(\d+)" height="(\d+)"', svg)
    cols, rows = int(m.group(1)) // 2, int(m.group(2)) // 2
    lines = [l.split() for l in dump.strip().splitlines()]
    assert len(lines) == rows, (len(lines), rows)
    mat = np.zeros((rows, cols), np.uint8)
    for r, l in enumerate(lines):
        bits = "".join(format(int(b, 16), "0%db" % (4 * len(b))) for b in l)
        for c in range(cols):
            mat[r, c] = bits[c] == "1"
    return mat


def coverage(u, v, mat, radius, aa):
    """Ink coverage at symbol coordinates (u = column, v = row, in modules; centres at k + 0.5).
    aa: width of the anti-aliasing ramp in modules (one subpixel)."""
    rows, cols = mat.shape
    ci = np.floor(u).astype(np.int64)
    ri = np.floor(v).astype(np.int64)
    du = u - (ci + 0.5)
    dv = v - (ri + 0.5)
    inside = (ci >= 0) & (ci < cols) & (ri >= 0) & (ri < rows)
    on = np.zeros(u.shape, bool)
    on[inside] = mat[ri[inside], ci[inside]] == 1
    d = np.sqrt(du * du + dv * dv)
    cov = np.clip((radius - d) / aa + 0.5, 0, 1)
    return np.where(on, cov, 0.0)


def disc_kernel(r, ss):
    n = int(math.ceil(r)) + 1
    y, x = np.mgrid[-n:n + 1, -n:n + 1].astype(float)
    # area sampling of the disc edge on a finer grid
    k = np.zeros_like(x)
    for oy in np.linspace(-0.375, 0.375, 4):
        for ox in np.linspace(-0.375, 0.375, 4):
            k += ((x + ox) ** 2 + (y + oy) ** 2) <= r * r
    return k / k.sum()


def gauss_kernel(s):
    n = int(math.ceil(3.5 * s))
    y, x = np.mgrid[-n:n + 1, -n:n + 1].astype(float)
    k = np.exp(-(x * x + y * y) / (2 * s * s))
    return k / k.sum()


def motion_kernel(length, ang):
    n = int(math.ceil(length / 2)) + 2
    y, x = np.mgrid[-n:n + 1, -n:n + 1].astype(float)
    k = np.zeros_like(x)
    c, s = math.cos(ang), math.sin(ang)
    for t in np.linspace(-length / 2, length / 2, int(length * 4) + 2):
        px, py = t * c, t * s
        # bilinear splat
        k += np.clip(1 - np.abs(x - px), 0, 1) * np.clip(1 - np.abs(y - py), 0, 1)
    return k / k.sum()


def downsample(img, ss):
    h, w = img.shape
    return img[: h - h % ss, : w - w % ss].reshape(h // ss, ss, w // ss, ss).mean(axis=(1, 3))


def finish(lum, rng, noise):
    out = lum + rng.normal(0, noise, lum.shape)
    return np.clip(np.round(out), 0, 255).astype(np.uint8)


def levels(rng):
    light_on_dark = rng.random() < 0.2
    if light_on_dark:
        ground = rng.uniform(15, 70)
        ink = ground + rng.uniform(70, 190)
    else:
        ground = rng.uniform(140, 245)
        ink = rng.uniform(5, ground - 70)
    return float(ground), float(min(ink, 250)), light_on_dark


def flat_scene(rng, cls, sharp):
    text = payload(rng)
    mat = matrix(text)
    rows, cols = mat.shape
    mod = rng.uniform(2, 3.5) if SMALL else rng.uniform(3, 10)
    ss = 4 if mod >= 5 else 6
    quiet = rng.uniform(3, 8)
    ang = rng.uniform(0, 2 * math.pi)
    radius = rng.uniform(0.36, 0.48)  # dot diameter 0.72-0.96 module
    # canvas: symbol diagonal plus margins
    diag = math.hypot(cols, rows) * mod
    W = int(diag + 2 * quiet * mod + rng.integers(20, 120))
    H = int(diag * rng.uniform(0.7, 1.0) + 2 * quiet * mod + rng.integers(20, 80))
    W = max(W, 64); H = max(H, 64)
    Ws, Hs = W * ss, H * ss
    cx, cy = W / 2 + rng.uniform(-10, 10), H / 2 + rng.uniform(-10, 10)
    ys, xs = np.mgrid[0:Hs, 0:Ws].astype(np.float32)
    xs = (xs + 0.5) / ss - cx
    ys = (ys + 0.5) / ss - cy
    c, s = math.cos(ang), math.sin(ang)
    # slight affine shear / aspect (a camera not quite square on)
    sh = rng.uniform(-0.08, 0.08); asp = rng.uniform(0.92, 1.08)
    u = (c * xs + s * ys) / mod
    v = (-s * xs + c * ys) / mod
    u, v = u * asp + sh * v, v / asp
    u += cols / 2; v += rows / 2
    cov = coverage(u, v, mat, radius, 1.0 / (mod * ss)).astype(np.float32)
    del xs, ys, u, v
    info = {"mod": round(mod, 2), "rows": rows, "cols": cols}
    if not sharp:
        if cls == "blur-gauss":
            sig = rng.uniform(0.25, 0.45)
            k = gauss_kernel(sig * mod * ss)
            info["sigma"] = round(sig, 3)
        elif cls == "defocus":
            r = rng.uniform(0.5, 0.8)
            k = disc_kernel(r * mod * ss, ss)
            info["disc"] = round(r, 3)
        elif cls == "motion":
            L = rng.uniform(1.0, 1.6)
            a = rng.uniform(0, math.pi)
            k = motion_kernel(L * mod * ss, a)
            info["motion"] = round(L, 3); info["angle"] = round(math.degrees(a), 1)
        cov = fftconvolve(cov, k.astype(np.float32), mode="same")
    cov = downsample(cov, ss)
    ground, ink, lod = levels(rng)
    # uneven illumination: a gentle linear gradient
    gy, gx = np.mgrid[0:H, 0:W].astype(float)
    illum = 1 + rng.uniform(-0.15, 0.15) * (gx / W - 0.5) + rng.uniform(-0.15, 0.15) * (gy / H - 0.5)
    lum = (ground + (ink - ground) * cov) * illum
    noise = rng.uniform(1, 5)
    info.update(ground=round(ground), ink=round(ink), light=lod, noise=round(noise, 1))
    return text, finish(lum, rng, noise), info


def cylinder_scene(rng, sharp):
    text = payload(rng)
    mat = matrix(text)
    wrap_rows = rng.random() < 0.35  # wrap the rows (symbol turned 90 degrees on the can)
    if wrap_rows:
        mat = mat.T.copy()[:, ::-1].copy()  # a rotation, still a valid symbol
    rows, cols = mat.shape  # cols run round the cylinder, rows along its axis
    half = math.radians(rng.uniform(30, 70))
    R = 1.0
    modlen = 2 * half * R / cols  # arc length per module
    D = R * rng.uniform(3, 8)  # camera distance to the axis
    centre_mod = rng.uniform(2.5, 4) if SMALL else rng.uniform(4, 10)  # px per module at the middle
    f = centre_mod * (D - R) / modlen
    phase = rng.uniform(-0.15, 0.15)  # symbol centre a little off the facing line
    roll = math.radians(rng.uniform(-25, 25))
    pitch = math.radians(rng.uniform(-8, 8))
    # image size covering the symbol
    sym_w = 2 * R * math.sin(min(half + abs(phase), math.pi / 2)) * f / (D - R)
    sym_h = rows * modlen * f / (D - R)
    ext = math.hypot(sym_w, sym_h)
    W = int(ext + rng.integers(60, 160)); H = int(ext * rng.uniform(0.75, 1.0) + rng.integers(60, 140))
    ss = 4
    Ws, Hs = W * ss, H * ss
    ys, xs = np.mgrid[0:Hs, 0:Ws].astype(np.float64)
    px = (xs + 0.5) / ss - W / 2 + rng.uniform(-8, 8)
    py = (ys + 0.5) / ss - H / 2 + rng.uniform(-8, 8)
    del xs, ys
    # ray direction in camera coordinates
    dx, dy, dz = px / f, py / f, np.ones_like(px)
    # to cylinder frame: undo roll (about z) then pitch (about x)
    cr, sr = math.cos(roll), math.sin(roll)
    dx, dy = cr * dx + sr * dy, -sr * dx + cr * dy
    # the cylinder pitched about its own centre (0, 0, D): rotate the ray into its frame
    cp, sp = math.cos(pitch), math.sin(pitch)
    dy, dz = cp * dy - sp * dz, sp * dy + cp * dz
    oy, oz = cp * 0 - sp * (-D), sp * 0 + cp * (-D) + D
    # solve (t dx)^2 + (oz + t dz - D)^2 = R^2 (axis along y through (0, *, D))
    ez = oz - D
    a = dx * dx + dz * dz
    b = 2 * ez * dz
    c = ez * ez - R * R
    disc = b * b - 4 * a * c
    hit = disc > 0
    t = np.where(hit, (-b - np.sqrt(np.maximum(disc, 0))) / (2 * a), 0)
    X, Y, Z = t * dx, oy + t * dy, oz + t * dz
    phi = np.arctan2(X, D - Z)  # 0 facing the camera
    nx, nz = X / R, (Z - D) / R  # outward normal (ny = 0)
    u = (phi - phase) / (2 * half) * cols + cols / 2
    v = Y / modlen + rows / 2
    radius = rng.uniform(0.36, 0.46)
    # anti-aliasing ramp ~ one subpixel measured on the surface (grows where the surface turns away)
    aa = (t / f / ss) / modlen / np.maximum(np.abs(nz), 0.05)
    cov = np.where(hit, coverage(u, v, mat, radius, np.maximum(aa, 1e-3)), 0)
    ground, ink, lod = levels(rng)
    if LIGHT:
        # --light: a laser-marked dark vial or cap, light dots (both lit by the same shading)
        ground, ink = rng.uniform(15, 70), rng.uniform(140, 240)
    elif lod:
        ground, ink, lod = rng.uniform(150, 240), rng.uniform(10, 80), False  # cans: dark print mostly
    # Lambertian light from a direction in front, plus a specular stripe
    L = np.array([rng.uniform(-0.7, 0.7), rng.uniform(-0.3, 0.3), -1.0]); L /= np.linalg.norm(L)
    lam = np.clip(nx * L[0] + nz * L[2], 0, 1)
    amb = rng.uniform(0.25, 0.45)
    shade = amb + (1 - amb) * lam
    # Blinn half vector with the view direction
    vn = np.sqrt(dx * dx + dy * dy + dz * dz)
    Vx, Vy, Vz = -dx / vn, -dy / vn, -dz / vn
    Hx, Hy, Hz = L[0] * -1 + Vx, L[1] * -1 + Vy, L[2] * -1 + Vz
    hn = np.sqrt(Hx * Hx + Hy * Hy + Hz * Hz)
    ndoth = np.clip((nx * Hx + nz * Hz) / hn, 0, 1)
    spec_k = rng.uniform(0.0, 0.6)
    spec = spec_k * ndoth ** rng.uniform(40, 200) * 255
    surf = (ground + (ink - ground) * cov) * shade + spec * (1 - 0.5 * cov)
    bg = rng.uniform(20, 200)
    img = np.where(hit, surf, bg)
    del px, py, dx, dy, dz, a, b, c, disc, t, X, Y, Z, phi, nx, nz, u, v, aa, cov
    img = downsample(img, ss)
    if not sharp:
        img = fftconvolve(img, gauss_kernel(rng.uniform(0.4, 0.8)), mode="same")
    info = {"mod": round(centre_mod, 2), "rows": rows, "cols": cols, "half": round(math.degrees(half), 1),
            "D": round(D, 2), "roll": round(math.degrees(roll), 1), "pitch": round(math.degrees(pitch), 1),
            "wrap_rows": wrap_rows, "spec": round(spec_k, 2)}
    if BLURRED is not None:
        # --blurred: the flat classes' camera blur on top, in modules at the middle (drawn from a
        # second generator, so the scene itself is the one drawn without the option)
        if BLURRED.random() < 0.5:
            sig = BLURRED.uniform(0.25, 0.45)
            img = convolve(img, gauss_kernel(sig * centre_mod), mode="nearest")
            info["sigma"] = round(sig, 3)
        else:
            r = BLURRED.uniform(0.5, 0.8)
            img = convolve(img, disc_kernel(r * centre_mod, 1), mode="nearest")
            info["disc"] = round(r, 3)
    noise = rng.uniform(1, 4)
    return text, finish(img, rng, noise), info


LIGHT = False  # --light: a cylinder's symbol in light dots (cylinders only)
SMALL = False  # --small: the modules of a far camera or a small vial
BLURRED = None  # --blurred: a cylinder under the flat classes' blur too (its own generator)


def main():
    global SMALL, LIGHT, BLURRED
    cls, lo, hi, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    sharp = "--sharp" in sys.argv
    SMALL = "--small" in sys.argv
    LIGHT = "--light" in sys.argv
    os.makedirs(out, exist_ok=True)
    truth = {}
    for seed in range(lo, hi + 1):
        rng = np.random.default_rng([sum(map(ord, cls)), seed])
        if "--blurred" in sys.argv:
            BLURRED = np.random.default_rng([sum(map(ord, cls)), seed, 7])
        if cls == "cylinder":
            text, img, info = cylinder_scene(rng, sharp)
        else:
            text, img, info = flat_scene(rng, cls, sharp)
        name = f"{cls}-{seed:04d}.png"
        Image.fromarray(img).save(os.path.join(out, name))
        info["text"] = text
        truth[name] = info
    with open(os.path.join(out, f"truth-{cls}-{lo}-{hi}.json"), "w") as fh:
        json.dump(truth, fh, indent=0)


if __name__ == "__main__":
    main()

// What each `speed` setting (types.ts, SPEEDS) asks of the two readers. The zxing reader runs a
// ladder of passes and stops at the first that reads something; the DotCode detector has its own
// fast pass and slower fallbacks, switched by the addon's tryHarder option.
//
// Measured on ../shared/corpus/zxing-samples and on empty 1280x720 frames (bench/peers.ts,
// bench/video-frame.ts; figures in bench/RESULTS.md): the thorough options that zxing-cpp's test
// runner uses (tryHarder, tryRotate, tryInvert, tryDownscale) cost little on an image that holds
// a symbol, since zxing-cpp stops at the first symbol found, but on a frame with nothing in it
// they run every rotation, the inverted image and a downscaled copy: about 37 ms for the five
// symbologies on 1280x720 against about 4.5 ms for one plain pass. The plain pass reads all but
// 6 of the 331 corpus images the full one reads (bench/RESULTS.md, "zxing passes").
import type { Speed } from './types';

/** The reader options a pass sets; everything else is the same for every pass (zxing.ts). */
export interface ZXingPass {
  tryHarder: boolean;
  tryRotate: boolean;
  tryInvert: boolean;
  tryDownscale: boolean;
  tryDenoise: boolean;
  binarizer: 'LocalAverage' | 'GlobalHistogram' | 'FixedThreshold';
}

/** One plain pass: the image as it is, no rotations, no inversion, no downscaled copy. */
const PLAIN: ZXingPass = { tryHarder: false, tryRotate: false, tryInvert: false, tryDownscale: false, tryDenoise: false, binarizer: 'LocalAverage' };

/** What the engine always ran before `speed` existed; it sets the read counts the tests hold. */
const FULL: ZXingPass = { tryHarder: true, tryRotate: true, tryInvert: true, tryDownscale: true, tryDenoise: false, binarizer: 'LocalAverage' };

/**
 * Further passes for `thorough`: zxing-cpp's morphological closing (fills broken modules of worn
 * or inkjet-printed symbols) and the global-histogram binarizer (copes with some low-contrast
 * prints the local one splits); each read two or three of the zxing samples FULL does not.
 */
const DENOISE: ZXingPass = { ...FULL, tryDenoise: true };
const GLOBAL: ZXingPass = { ...FULL, binarizer: 'GlobalHistogram' };

/**
 * The ladder per speed. Every ladder after `video` starts with the plain pass and contains FULL,
 * so `balanced` reads at least what FULL alone read, and `thorough` (a longer ladder with the
 * same start) reads at least what `balanced` reads.
 */
const LADDERS: Record<Speed, readonly ZXingPass[]> = {
  video: [PLAIN],
  balanced: [PLAIN, FULL],
  thorough: [PLAIN, FULL, DENOISE, GLOBAL],
};

/**
 * For a plane of exactly two grey levels, one each side of 127 (a 1-bit PNG, a rendered symbol):
 * the plain pass with zxing-cpp's fixed-threshold binarizer, which splits those two levels
 * exactly and costs 10-40% less than the local-average one on the zxing samples (a 253x253
 * Aztec 0.47 -> 0.27 ms). It goes before the speed's ladder, which still runs in full when it
 * finds nothing, so nothing the ladder reads is lost.
 */
const TWO_LEVELS: ZXingPass = { ...PLAIN, binarizer: 'FixedThreshold' };

/**
 * The passes for `speed`; `twoLevels` (the plane holds two grey levels, and one symbol is
 * wanted) puts the cheap TWO_LEVELS pass first. decodeAll never asks for it: a first pass that
 * finds some of an image's symbols ends the ladder.
 */
export function zxingPasses(speed: Speed, twoLevels = false): readonly ZXingPass[] {
  return twoLevels ? [TWO_LEVELS, ...LADDERS[speed]] : LADDERS[speed];
}

/**
 * How long the DotCode detector may work on one still image, in ms of the reading thread's CPU
 * time (work_clock.h). A photograph that must be read gets more than a live frame, where the next
 * frame is another chance and a slow read delays the ones behind it. The read rates in bench/ are
 * taken at `balanced`'s budget; the hardest real pack photos need about 115 ms of CPU on this
 * 2-core machine idle (bench/RESULTS.md), and a machine half as fast, or two reads sharing one
 * core's caches, brings that near 250 ms. An image that holds a symbol reads well inside the
 * budget; only images that read nothing (or read late) spend it all.
 */
/** The budget of a live frame (FrameReader, /v1/live, the Live Scanner) at any speed. */
export const FRAME_BUDGET_MS = 250;

const STILL_BUDGET_MS: Record<Speed, number> = { video: FRAME_BUDGET_MS, balanced: 500, thorough: 2000 };

/**
 * A large photo (a phone's 5-16 MP) whose symbol is a small part of it is read, after the whole
 * photo, again in windows of a 1280 x 720 frame's size, each with the allowances of a frame of its
 * own (read_dotcodes.cpp, readInWindows: from kLargePhotoPixels to kMostWindowedPixels, the same
 * two figures as here). The still budget is made for one such frame; such a photo gets it in
 * proportion to its pixels, up to LARGEST_PHOTO_FACTOR times (a 12 MP photo 3.9x). Real pack
 * photos pasted at their own scale into a 4000 x 3000 frame of text and textures read 27 of 43
 * at 500 ms and 42 at 2000 ms (on a plain desk 39 and 43); a photo holding a symbol stops at its
 * read, one holding none spends the whole budget. Larger images get no windows, and no more time.
 */
const LARGE_PHOTO_PIXELS = 1.5 * 1920 * 1080;
const MOST_WINDOWED_PIXELS = 16e6;
const LARGEST_PHOTO_FACTOR = 4;

function photoBudgetFactor(pixels: number): number {
  if (pixels <= LARGE_PHOTO_PIXELS || pixels > MOST_WINDOWED_PIXELS) return 1;
  return Math.min(LARGEST_PHOTO_FACTOR, pixels / LARGE_PHOTO_PIXELS);
}

/**
 * (With `video` and no format, core.ts also runs the two readers at the same time.)
 * The DotCode detector's options: on live frames only its fast pass (about 6 ms on an empty
 * 1280x720 frame against about 30 ms with the fallbacks); otherwise the addon's fallbacks, within
 * the speed's budget for a still image of `pixels` pixels (more for a large photo) or
 * FRAME_BUDGET_MS for a live frame (`frame`).
 */
export function dotcodeOptions(speed: Speed, frame = false, pixels = 0): { tryHarder?: boolean; thorough?: boolean; timeBudgetMs: number } {
  if (speed === 'video') return { tryHarder: false, timeBudgetMs: frame ? FRAME_BUDGET_MS : STILL_BUDGET_MS.video };
  const timeBudgetMs = frame ? FRAME_BUDGET_MS : Math.round(STILL_BUDGET_MS[speed] * photoBudgetFactor(pixels));
  // a thorough still: the harder passes' per-image allowances widened too (read_dotcodes.cpp, Allowances)
  return speed === 'thorough' && !frame ? { thorough: true, timeBudgetMs } : { timeBudgetMs };
}

// The image limits of SPEC 8, defined once: the engine enforces the pixel cap, the server both
// (the body cap while streaming an upload or a socket frame, the pixel cap before a scan is taken).

/** Images beyond roughly 40 megapixels are rejected (sharp's limitInputPixels). */
export const MAX_PIXELS = 40_000_000;

/** The largest image accepted: 8 MB (the Cloud API answers 413 beyond it). */
export const MAX_IMAGE_BYTES = 8 * 1024 * 1024;

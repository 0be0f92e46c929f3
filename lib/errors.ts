/**
 * Errors thrown by the SDK.
 *
 * Decoding never throws for bad input (it answers `ok:false` with an `error` code); the only
 * exception a caller has to expect is {@link LicenseError} from the `Scanner` constructor.
 */

/** Why a licence was refused. */
export type LicenseErrorCode =
  /** Empty, truncated, altered, badly signed, or from another supplier. */
  | 'invalid_license'
  /** Past the end of term plus the 14-day grace period. */
  | 'license_expired'
  /** This SDK package carries no supplier public key (`supplier.json`), so it can trust no key. */
  | 'sdk_not_stamped';

/**
 * Thrown by `new Scanner(...)` when the licence key cannot be used.
 *
 * The message starts with `invalid license key` (bad key, or an unstamped SDK) or
 * `license expired` (term plus grace has passed), followed by the detail and what to do.
 */
export class LicenseError extends Error {
  readonly code: LicenseErrorCode;

  constructor(code: LicenseErrorCode, message: string) {
    super(message);
    this.name = 'LicenseError';
    this.code = code;
  }
}

// The one licence module: key format, signing, offline verification, supplier keys and stamps.
export * from './key';
export * from './supplier';
export * from './entitlement';
export { LicenseError } from '../errors';
export type { LicenseErrorCode } from '../errors';

// Background registration / usage reporting, machine identity and TLS settings of the SDK.
export * from './client';
export * from './identity';
export * from './tls';
export * from './limits';

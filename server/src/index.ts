// The dotcode-server package entry (server/package.json "main"): start the Cloud API from code,
// or build the app and stores yourself. The command line is server/src/cli (dotcode serve/admin).
export { startServer, supplierFromDataDir } from './server';
export type { RunningServer, StartOptions } from './server';
export { createApp, createMetrics, DEFAULT_CONFIG } from './app';
export type { App, AppDeps, ModuleContext, ServerConfig, ServerModule } from './app';
export { modules } from './modules';
export { openStore, RedisStore, SqliteStore, currentPeriod } from './store';
export type { Store } from './store';
export { openapiDocument } from './openapi';
export { runAdmin, runServe } from './cli';
// The supplier side of licence keys (the SDK itself only verifies).
export { generateSupplierKeyPair, initSupplier, loadSupplier, removeStampKey, signLicense, supplierDir, writeStamp } from './signing';
export type { LicenseClaims, SupplierKeyPair } from './signing';

// The SDK's version, read from its own package.json so the two can never disagree.
// eslint-disable-next-line @typescript-eslint/no-var-requires
const pkg = require('../../package.json') as { version: string };

export const version: string = pkg.version;

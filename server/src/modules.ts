// Every route module of the server, in registration order. A new part of the product (the Live
// Scanner socket, the portal) adds itself with one line here.
import type { ServerModule } from './app';
import { decodeModule } from './routes/decode';
import { liveModule } from './routes/live';
import { sdkModule } from './routes/sdk';
import { systemModule } from './routes/system';
import { scannerModule } from './scanner';
import { portalModule } from './portal';

export const modules: ServerModule[] = [
  systemModule,
  decodeModule,
  liveModule,
  sdkModule,
  scannerModule,
  portalModule,
];

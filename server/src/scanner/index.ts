// The Live Scanner module: GET /scanner (the page) and the /v1/scanner/live socket.
import type { ServerModule } from '../app';
import { ScannerSockets, SCANNER_PATH } from './live';
import { servePage } from '../pages';
import { serveWasm, WASM_FILES } from './assets';

export { ScannerSockets, SCANNER_PATH, LEASE_MS, MESSAGES, checkScannerLicense } from './live';

export const scannerModule: ServerModule = {
  name: 'scanner',
  register({ router, deps, addUpgrade, onClose }) {
    router.get('/scanner', servePage('scanner', { camera: true }));
    for (const name of Object.keys(WASM_FILES)) router.get(`/scanner/wasm/${name}`, serveWasm(name));
    const sockets = new ScannerSockets({
      store: deps.store,
      trustedKeys: () => deps.supplier.trusted(),
      decode: (bytes, options, tenant) => deps.engine.decode(bytes, options, tenant),
      frames: (options) => deps.engine.frames(options),
      now: deps.now,
      maxWaitingFrames: deps.config.liveMaxQueued,
      log: deps.logger,
    });
    addUpgrade(SCANNER_PATH, (req, socket, head) => { sockets.handleUpgrade(req, socket, head); });
    onClose(() => sockets.close());
  },
};

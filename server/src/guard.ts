// The last line of defence of `dotcode serve`: an error that escapes every request handler (an
// 'error' event nobody listens to, a rejected promise nobody awaits) must cost that one request,
// never the process and with it every other customer's requests (issue 16, item 1).
//
// Each stream the server reads or writes has its own error listener (body.ts, routes, sockets);
// this handler is for the gap we have not found yet. It logs the error as one JSON line (no
// request data: it cannot know which request it came from, and keys travel in requests) and
// counts it in /metrics, so an operator sees it and we can close the gap.
import type { Counter } from 'prom-client';
import type { Logger } from './logger';

let installed: (() => void) | null = null;

export function guardProcess(logger: Logger, escaped?: Counter): () => void {
  installed?.();
  const onError = (kind: string) => (err: unknown) => {
    escaped?.inc();
    const e = err as Error;
    logger.error({ kind, err: e?.stack ?? String(err) }, 'error escaped a request; the server keeps running');
  };
  const onException = onError('uncaughtException');
  const onRejection = onError('unhandledRejection');
  process.on('uncaughtException', onException);
  process.on('unhandledRejection', onRejection);
  installed = () => {
    process.off('uncaughtException', onException);
    process.off('unhandledRejection', onRejection);
    installed = null;
  };
  return installed;
}

// GET pods/log: the API server validates PodLogOptions and picks the container, then streams
// what the node answers as text/plain (chunked and flushed as it comes when following) until the
// node's stream ends or the client goes away. A pod not yet on a node has an empty log.
import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { ResourceDef } from '../../registry/resource.ts';
import type { HandlerDeps } from '../resource/types.ts';
import { containerLogQuery, parsePodLogOptions } from './log-options.ts';
import { chooseContainer, getPod, nodeNameOf } from './pod-target.ts';

export async function servePodLog(
  deps: HandlerDeps,
  def: ResourceDef,
  namespace: string,
  name: string,
  res: ServerResponse,
  query: URLSearchParams,
): Promise<void> {
  const options = parsePodLogOptions(query, name);
  const pod = getPod(deps.store, def, namespace, name);
  const container = chooseContainer(pod, options.container);
  const podStreams = deps.extensions.podStreams;
  if (!nodeNameOf(pod) || !podStreams) {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end();
    return;
  }
  const aborted = new AbortController();
  const abort = (): void => aborted.abort();
  res.on('close', abort);
  let log: Readable;
  try {
    log = await podStreams.logs(pod, containerLogQuery(options, container), aborted.signal);
  } catch (e) {
    res.off('close', abort);
    throw e;
  }
  if (aborted.signal.aborted) {
    log.destroy();
    return;
  }
  aborted.signal.addEventListener('abort', () => log.destroy(), { once: true });
  res.writeHead(200, {
    'Content-Type': 'text/plain',
    ...(options.follow ? { 'Transfer-Encoding': 'chunked' } : {}),
  });
  log.on('error', () => res.end());
  log.on('end', () => res.end());
  log.on('data', (chunk: Buffer | string) => {
    if (!res.write(chunk)) {
      log.pause();
      res.once('drain', () => log.resume());
    }
  });
}

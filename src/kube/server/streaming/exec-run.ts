// Joins a running command to the client's streams, whatever carries them (WebSocket channels or
// SPDY streams), and resolves once the command ended and everything it wrote went out.
import { finished, pipeline } from 'node:stream/promises';
import type { Readable, Writable } from 'node:stream';
import type { ExecSession } from '../../kubelet/streams.ts';
import type { ExecOutcome } from './exec-status.ts';

export interface ExecStreams {
  stdin?: Readable;
  stdout?: Writable;
  stderr?: Writable;
  /** `{"Width":W,"Height":H}` documents, one per change. */
  resize?: Readable;
}

export async function runExec(session: ExecSession, streams: ExecStreams): Promise<ExecOutcome> {
  if (session.stdin) {
    const stdin = session.stdin;
    // The command may exit without reading its input: EPIPE is not the client's problem.
    stdin.on('error', () => undefined);
    if (streams.stdin) streams.stdin.pipe(stdin);
    else stdin.end();
  }
  if (streams.resize) watchResize(streams.resize, session);
  const outputs = [copy(session.stdout, streams.stdout), copy(session.stderr, streams.stderr)];
  const outcome = await session.exited;
  await Promise.all(outputs);
  return outcome;
}

async function copy(from: Readable | undefined, to: Writable | undefined): Promise<void> {
  if (!from) {
    to?.end();
    return;
  }
  if (!to) {
    from.resume();
    await finished(from).catch(() => undefined);
    return;
  }
  await pipeline(from, to).catch(() => undefined);
}

function watchResize(resize: Readable, session: ExecSession): void {
  let buffered = '';
  resize.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline).trim();
      buffered = buffered.slice(newline + 1);
      try {
        const size = JSON.parse(line) as { Width?: unknown; Height?: unknown };
        if (typeof size.Width === 'number' && typeof size.Height === 'number') session.resize(size.Width, size.Height);
      } catch {
        // A malformed size ends nothing; the kubelet's decoder stops reading sizes, as here.
        resize.removeAllListeners('data');
        return;
      }
    }
  });
}

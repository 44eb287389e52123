// A watch whose socket is full: however many lines arrive before it drains, one 'drain' listener
// (at 100,000 pods one listener per event piled up on busy watchers, with a
// MaxListenersExceededWarning in the server's log), every line sent in order once it drains, and
// the listener gone once the watch closes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { WatchStream } from '../../../../src/kube/server/resource/watch-stream.ts';

/** The part of a ServerResponse a WatchStream uses; `full` makes write() report a full socket. */
class FakeResponse extends EventEmitter {
  headersSent = false;
  writableEnded = false;
  writableLength = 0;
  full = false;
  readonly written: string[] = [];
  writeHead(): this {
    this.headersSent = true;
    return this;
  }
  flushHeaders(): void {}
  write(chunk: Buffer): boolean {
    this.written.push(chunk.toString());
    return !this.full;
  }
  end(): void {
    this.writableEnded = true;
  }
}

const lines = (n: number): string[] => Array.from({ length: n }, (_, i) => `line-${i}\n`);

test('lines arriving while the socket is full wait on one drain listener, then go out in order', () => {
  const res = new FakeResponse();
  const stream = new WatchStream(res as unknown as ServerResponse);
  res.full = true;
  for (const l of lines(50)) stream.write(Buffer.from(l));
  assert.equal(res.listenerCount('drain'), 1);
  res.full = false;
  res.emit('drain');
  assert.deepEqual(res.written, lines(50));
  assert.equal(res.listenerCount('drain'), 0);
});

test('a watch closed while waiting for drain leaves no listener and ends the response', () => {
  const res = new FakeResponse();
  const stream = new WatchStream(res as unknown as ServerResponse);
  res.full = true;
  for (const l of lines(20)) stream.write(Buffer.from(l));
  stream.close();
  assert.equal(res.listenerCount('drain'), 0);
  assert.ok(res.writableEnded);
  assert.deepEqual(res.written, lines(20));
});

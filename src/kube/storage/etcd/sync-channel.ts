// A synchronous call into a worker thread. The Storage interface is synchronous (the registry and
// the built-in controllers read and write it without awaiting), but every etcd call is network
// I/O; so the etcd client lives in a worker and this thread blocks on a shared flag until the
// answer is posted, then takes it off the port with receiveMessageOnPort. Only one call is ever in
// flight: the caller's thread is blocked while it lasts.
import { MessageChannel, Worker, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { SLOT_ANSWERED, SLOT_QUEUED } from './protocol.ts';

export class SyncCallTimeoutError extends Error {
  constructor(what: string, ms: number) {
    super(`etcd did not answer ${what} within ${ms} ms`);
    this.name = 'SyncCallTimeoutError';
  }
}

export interface SyncWorkerData {
  /** Answers go here (received synchronously by the caller). */
  port: MessagePort;
  /** Wakes the caller's event loop when the watch queued events while nobody asked. */
  wake: MessagePort;
  shared: Int32Array;
  [more: string]: unknown;
}

/**
 * Starts `moduleUrl` in a worker. A `.ts` module (the dev loop and the tests run from sources) is
 * loaded through tsx's loader, registered inside the worker: a worker only inherits loaders given
 * on the command line, and bin/peerpods.js registers tsx at run time. The build's `.js` worker
 * needs no loader, so tsx (a dev dependency) is never asked for there.
 */
function startWorker(moduleUrl: URL, workerData: Record<string, unknown>, transferList: MessagePort[]): Worker {
  if (!moduleUrl.pathname.endsWith('.ts')) return new Worker(moduleUrl, { workerData, transferList });
  const tsx = import.meta.resolve('tsx/esm/api');
  const source =
    `import(${JSON.stringify(tsx)}).then((m) => { m.register(); ` +
    `return import(${JSON.stringify(moduleUrl.href)}); });`;
  return new Worker(source, { eval: true, workerData, transferList, name: fileURLToPath(moduleUrl) });
}

/** How an answer travels: the call it answers, and what it says. */
export interface Envelope<T> {
  seq: number;
  body: T;
}

export class SyncChannel<Req extends { op: string }, Res> {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly wake: MessagePort;
  readonly shared: Int32Array;
  private seq = 0;
  private closed = false;

  /**
   * `onLate` gets the answer of a call that had already timed out (it may carry events, which
   * must not be lost); `onWake` runs on the event loop when the worker has news nobody asked for.
   */
  constructor(
    moduleUrl: URL,
    data: Record<string, unknown>,
    private readonly timeoutMs: number,
    private readonly onLate: (answer: Res) => void,
    onWake: () => void,
    onExit: (err: Error | undefined) => void,
  ) {
    this.shared = new Int32Array(new SharedArrayBuffer(16));
    const answers = new MessageChannel();
    const wakes = new MessageChannel();
    this.port = answers.port1;
    this.wake = wakes.port1;
    this.worker = startWorker(moduleUrl, { ...data, port: answers.port2, wake: wakes.port2, shared: this.shared }, [
      answers.port2,
      wakes.port2,
    ]);
    this.wake.on('message', onWake);
    // Neither the worker nor its wake port may keep a process alive that is otherwise done.
    this.worker.unref();
    this.wake.unref();
    let failure: Error | undefined;
    this.worker.on('error', (err) => (failure = err));
    this.worker.on('exit', () => {
      this.closed = true;
      onExit(failure);
    });
  }

  /** Events the watch has queued so far (compare with how many were taken). */
  queued(): number {
    return Atomics.load(this.shared, SLOT_QUEUED);
  }

  /** Blocks this thread until the worker answers `request`, or throws after the timeout. */
  call(request: Req, timeoutMs = this.timeoutMs): Res {
    if (this.closed) throw new Error('the etcd storage is closed');
    const seq = (this.seq = (this.seq % 0x7fffffff) + 1);
    this.port.postMessage({ seq, body: request } satisfies Envelope<Req>);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const received = receiveMessageOnPort(this.port);
      if (received) {
        const answer = received.message as Envelope<Res>;
        if (answer.seq === seq) return answer.body;
        this.onLate(answer.body);
        continue;
      }
      // The worker posts its answer before it stores the seq, so a seen seq means a waiting answer.
      const answered = Atomics.load(this.shared, SLOT_ANSWERED);
      if (answered === seq) continue;
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new SyncCallTimeoutError(request.op, timeoutMs);
      Atomics.wait(this.shared, SLOT_ANSWERED, answered, remaining);
    }
  }

  async terminate(): Promise<void> {
    this.closed = true;
    this.wake.close();
    await this.worker.terminate();
  }
}

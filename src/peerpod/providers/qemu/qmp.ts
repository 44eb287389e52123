// A minimal QMP (QEMU Machine Protocol) client over a unix socket: newline-delimited JSON, a
// greeting from the server, `qmp_capabilities` to leave negotiation mode, then commands whose
// replies are matched by `id`. Asynchronous events are counted and otherwise ignored: the provider
// only needs status and quit.
import net from 'node:net';

interface QmpReply {
  id?: unknown;
  return?: unknown;
  error?: { class: string; desc: string };
  event?: string;
  QMP?: unknown;
}

export class QmpError extends Error {
  constructor(
    readonly command: string,
    readonly errorClass: string,
    desc: string,
  ) {
    super(`QMP ${command}: ${errorClass}: ${desc}`);
    this.name = 'QmpError';
  }
}

/** The socket closed before the reply came; for `quit` that is the expected outcome. */
export class QmpClosedError extends Error {
  constructor(command: string) {
    super(`QMP connection closed while waiting for ${command}`);
    this.name = 'QmpClosedError';
  }
}

interface Pending {
  command: string;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

export interface QmpStatus {
  status: string;
  running: boolean;
}

export class QmpClient {
  private buffer = '';
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private closed = false;
  private greetingWaiter?: { resolve: (g: unknown) => void; reject: (e: Error) => void };
  greeting: unknown;
  events = 0;

  private constructor(private readonly socket: net.Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => this.onData(chunk));
    socket.on('close', () => this.onClose());
    // Errors are followed by 'close', which fails whatever is pending.
    socket.on('error', () => undefined);
  }

  /** Connects, reads the greeting and negotiates capabilities, all within `timeoutMs`. */
  static async connect(path: string, timeoutMs = 2000): Promise<QmpClient> {
    const socket = await new Promise<net.Socket>((resolve, reject) => {
      const s = net.createConnection({ path });
      const timer = setTimeout(() => {
        s.destroy();
        reject(new Error(`QMP connect to ${path} timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      s.once('connect', () => {
        clearTimeout(timer);
        s.removeAllListeners('error');
        resolve(s);
      });
      s.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
    const client = new QmpClient(socket);
    try {
      await client.waitGreeting(timeoutMs);
      await client.execute('qmp_capabilities', undefined, timeoutMs);
    } catch (err) {
      client.close();
      throw err;
    }
    return client;
  }

  execute<T = unknown>(command: string, args?: Record<string, unknown>, timeoutMs = 2000): Promise<T> {
    if (this.closed) return Promise.reject(new QmpClosedError(command));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`QMP ${command} timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { command, resolve: resolve as (v: unknown) => void, reject, timer });
      const msg: Record<string, unknown> = { execute: command, id };
      if (args) msg.arguments = args;
      this.socket.write(`${JSON.stringify(msg)}\n`);
    });
  }

  queryStatus(timeoutMs?: number): Promise<QmpStatus> {
    return this.execute<QmpStatus>('query-status', undefined, timeoutMs);
  }

  /** Asks QEMU to exit; the connection dropping before the reply also counts as done. */
  async quit(timeoutMs?: number): Promise<void> {
    try {
      await this.execute('quit', undefined, timeoutMs);
    } catch (err) {
      if (!(err instanceof QmpClosedError)) throw err;
    }
  }

  close(): void {
    this.socket.destroy();
  }

  private waitGreeting(timeoutMs: number): Promise<unknown> {
    if (this.greeting !== undefined) return Promise.resolve(this.greeting);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no QMP greeting within ${timeoutMs} ms`)), timeoutMs);
      this.greetingWaiter = {
        resolve: (g) => {
          clearTimeout(timer);
          resolve(g);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      };
    });
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, nl).trim();
      this.buffer = this.buffer.slice(nl + 1);
      if (line) this.onMessage(line);
    }
  }

  private onMessage(line: string): void {
    let msg: QmpReply;
    try {
      msg = JSON.parse(line) as QmpReply;
    } catch {
      return;
    }
    if (msg.QMP !== undefined) {
      this.greeting = msg.QMP;
      this.greetingWaiter?.resolve(msg.QMP);
      this.greetingWaiter = undefined;
      return;
    }
    if (msg.event !== undefined) {
      this.events++;
      return;
    }
    if (typeof msg.id !== 'number') return;
    const p = this.pending.get(msg.id);
    if (!p) return;
    this.pending.delete(msg.id);
    clearTimeout(p.timer);
    if (msg.error) p.reject(new QmpError(p.command, msg.error.class, msg.error.desc));
    else p.resolve(msg.return);
  }

  private onClose(): void {
    this.closed = true;
    this.greetingWaiter?.reject(new Error('QMP connection closed before the greeting'));
    this.greetingWaiter = undefined;
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      this.pending.delete(id);
      p.reject(new QmpClosedError(p.command));
    }
  }
}

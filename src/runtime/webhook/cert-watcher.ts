// Serving certificates rotate (cert-manager, a Secret update): reload them without a restart.
// Directories are watched rather than files because Kubernetes updates Secret volumes by swapping
// a `..data` symlink, which a watch on the old file never sees; polling backs fs.watch up on file
// systems where it reports nothing (network mounts, some containers), as controller-runtime's
// certwatcher does.
import { watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createSecureContext } from 'node:tls';
import { silentLogger } from '../util/logger.ts';
import type { Logger } from '../util/logger.ts';

export interface KeyPair {
  cert: Buffer;
  key: Buffer;
}

export interface CertWatcherOptions {
  certFile: string;
  keyFile: string;
  /** Re-read the files this often whatever fs.watch reports. Default 10 000 ms. */
  pollIntervalMs?: number;
  /** Also react to fs.watch events (faster than polling). Default true; false relies on polling alone. */
  fsWatch?: boolean;
  logger?: Logger;
}

export class CertWatcher {
  private readonly opts: CertWatcherOptions;
  private readonly log: Logger;
  private pair: KeyPair | undefined;
  private watchers: FSWatcher[] = [];
  private poll: NodeJS.Timeout | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private reloading: Promise<boolean> | undefined;
  private listener: ((pair: KeyPair) => void) | undefined;

  constructor(opts: CertWatcherOptions) {
    this.opts = opts;
    this.log = opts.logger ?? silentLogger();
  }

  /** Reads and validates the pair; throws when the files are missing or do not form a valid pair. */
  async load(): Promise<KeyPair> {
    const pair = await this.read();
    createSecureContext(pair); // throws on a bad or mismatched pair
    this.pair = pair;
    return pair;
  }

  current(): KeyPair | undefined {
    return this.pair;
  }

  /** Starts watching; `onChange` gets every new valid pair. */
  start(onChange: (pair: KeyPair) => void): void {
    this.listener = onChange;
    const dirs = this.opts.fsWatch === false ? [] : [dirname(this.opts.certFile), dirname(this.opts.keyFile)];
    for (const dir of new Set(dirs)) {
      try {
        const w = watch(dir, { persistent: false }, () => this.schedule());
        w.on('error', (err) => this.log.warn({ err, dir }, 'certificate directory watch failed; relying on polling'));
        this.watchers.push(w);
      } catch (err) {
        this.log.warn({ err, dir }, 'cannot watch certificate directory; relying on polling');
      }
    }
    this.poll = setInterval(() => void this.reload(), this.opts.pollIntervalMs ?? 10_000);
    this.poll.unref();
  }

  stop(): void {
    for (const w of this.watchers) w.close();
    this.watchers = [];
    clearInterval(this.poll);
    clearTimeout(this.debounce);
    this.listener = undefined;
  }

  /**
   * Re-reads the files; true when a new valid pair was installed. A half-written rotation (new cert,
   * old key) is ignored until both files match.
   */
  reload(): Promise<boolean> {
    this.reloading ??= this.doReload().finally(() => (this.reloading = undefined));
    return this.reloading;
  }

  private schedule(): void {
    // Writers touch several files (cert, key, symlinks) in quick succession: reload once after.
    clearTimeout(this.debounce);
    this.debounce = setTimeout(() => void this.reload(), 50);
    this.debounce.unref();
  }

  private async doReload(): Promise<boolean> {
    let pair: KeyPair;
    try {
      pair = await this.read();
    } catch (err) {
      this.log.warn({ err }, 'cannot read serving certificate; keeping the current one');
      return false;
    }
    if (this.pair && this.pair.cert.equals(pair.cert) && this.pair.key.equals(pair.key)) return false;
    try {
      createSecureContext(pair);
    } catch (err) {
      this.log.warn({ err }, 'serving certificate and key do not form a valid pair (yet); keeping the current one');
      return false;
    }
    this.pair = pair;
    this.log.info({ certFile: this.opts.certFile }, 'serving certificate reloaded');
    this.listener?.(pair);
    return true;
  }

  private async read(): Promise<KeyPair> {
    const [cert, key] = await Promise.all([readFile(this.opts.certFile), readFile(this.opts.keyFile)]);
    return { cert, key };
  }
}

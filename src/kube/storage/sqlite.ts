// Durable Storage on local disk: a MemoryStorage (the index every read and watch is served from)
// whose journal is an SQLite database (better-sqlite3, synchronous like the Storage interface).
// Every write is one SQLite transaction — the object's row and the change's row — committed before
// the write is applied in memory or seen by a watcher, so an acknowledged write survives the
// process being killed at any instant. Opening loads the objects, the revision and the kept
// history back: resourceVersions stay monotonic across restarts and watches resume from any kept
// revision (older ones answer 410 as before). The changes table is trimmed to what memory keeps.
//
// WAL journal with synchronous=NORMAL by default: a commit is in the OS's page cache when it
// returns, which is all a SIGKILL (or any crash of this process) needs; FULL also fsyncs each
// commit, which only a power loss or kernel crash needs, at a measured cost (bench/storage.ts).
// The database is opened in EXCLUSIVE locking mode: the lock is the kernel's, held while the
// process lives and gone with it, so a second opener fails at once and a killed owner never
// leaves a stale lock.
import { readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { MemoryStorage, type MemoryStorageOptions } from './memory.ts';
import type { StorageJournal, StorageSnapshot } from './journal.ts';
import type { Change, ChangeType, StoredObject } from './storage.ts';

/** The database file inside the data directory (with its `-wal` beside it). */
export const STORE_FILE = 'store.db';
/** Who holds the store, for the message a second opener gets. */
const OWNER_FILE = 'store.pid';
const SCHEMA_VERSION = 1;
/** The changes table is trimmed to memory's kept history every this many writes. */
const TRIM_EVERY = 1000;

export type SqliteSynchronous = 'NORMAL' | 'FULL';

export interface SqliteStorageOptions extends Omit<MemoryStorageOptions, 'journal'> {
  /** NORMAL (default) survives any crash of the process; FULL also a power loss, at a cost per write. */
  synchronous?: SqliteSynchronous;
}

/** Another live process has the store open. */
export class StorageLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid?: number,
  ) {
    super(
      `the cluster store in ${dataDir} is in use by another process${pid ? ` (PID ${pid})` : ''}; ` +
        'stop it first, or give this one another data directory',
    );
    this.name = 'StorageLockedError';
  }
}

/** The store exists but cannot be read as one (corrupted, not a database, a newer schema). */
export class StorageOpenError extends Error {
  constructor(
    readonly file: string,
    reason: string,
  ) {
    super(
      `cannot open the cluster store ${file}: ${reason}. ` +
        'Move the data directory aside to start an empty cluster, or restore it from a copy',
    );
    this.name = 'StorageOpenError';
  }
}

interface ChangeRow {
  revision: number;
  type: ChangeType;
  key: string;
  json: string;
  prev_revision: number | null;
  prev_json: string | null;
}

type Database = BetterSqlite3.Database;
type DatabaseConstructor = typeof BetterSqlite3;

let loaded: DatabaseConstructor | undefined;
/** Loaded on first use: the native module costs nothing to whoever keeps state in memory only. */
function sqlite(): DatabaseConstructor {
  loaded ??= createRequire(import.meta.url)('better-sqlite3') as DatabaseConstructor;
  return loaded;
}

function sqliteCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

function readOwner(dataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(path.join(dataDir, OWNER_FILE), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** The SQLite side: the schema, the write transaction, trimming, loading. */
class SqliteJournal implements StorageJournal {
  readonly file: string;
  private readonly db: Database;
  private readonly writeChange: (change: Change) => void;
  private readonly trimThrough: (through: number) => void;
  private appends = 0;
  private closed = false;
  /** The oldest revision memory still keeps (set once the index exists). */
  oldestKept: () => number = () => 0;

  constructor(
    readonly dataDir: string,
    synchronous: SqliteSynchronous,
  ) {
    mkdirSync(dataDir, { recursive: true });
    this.file = path.join(dataDir, STORE_FILE);
    let db: Database;
    try {
      // No busy wait: a lock held by a live process stays held; a dead one's is gone already.
      db = new (sqlite())(this.file, { timeout: 0 });
    } catch (err) {
      throw new StorageOpenError(this.file, (err as Error).message);
    }
    this.db = db;
    try {
      db.pragma('locking_mode = EXCLUSIVE');
      db.pragma('journal_mode = WAL');
      db.pragma(`synchronous = ${synchronous}`);
      this.migrate();
    } catch (err) {
      db.close();
      const code = sqliteCode(err);
      if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') throw new StorageLockedError(dataDir, readOwner(dataDir));
      if (err instanceof StorageOpenError) throw err;
      throw new StorageOpenError(this.file, `${(err as Error).message}${code ? ` (${code})` : ''}`);
    }
    writeFileSync(path.join(dataDir, OWNER_FILE), `${process.pid}\n`);

    const putObject = db.prepare(
      'INSERT INTO objects (key, revision, json) VALUES (?, ?, ?) ' +
        'ON CONFLICT (key) DO UPDATE SET revision = excluded.revision, json = excluded.json',
    );
    const deleteObject = db.prepare('DELETE FROM objects WHERE key = ?');
    const insertChange = db.prepare(
      'INSERT INTO changes (revision, type, key, json, prev_revision, prev_json) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.writeChange = db.transaction((c: Change) => {
      if (c.type === 'DELETED') deleteObject.run(c.key);
      else putObject.run(c.key, c.revision, c.json);
      insertChange.run(c.revision, c.type, c.key, c.json, c.prevRevision ?? null, c.prevJson ?? null);
    });
    const trimChanges = db.prepare('DELETE FROM changes WHERE revision <= ?');
    const setCompacted = db.prepare(
      "INSERT INTO meta (name, value) VALUES ('compacted_through', ?) " +
        'ON CONFLICT (name) DO UPDATE SET value = MAX(value, excluded.value)',
    );
    this.trimThrough = db.transaction((through: number) => {
      trimChanges.run(through);
      setCompacted.run(through);
    });
  }

  /** Creates the schema in a new store; refuses one written by a newer schema. */
  private migrate(): void {
    const db = this.db;
    // The first write takes the exclusive lock, held until close (EXCLUSIVE locking mode).
    db.transaction(() => {
      db.exec(`
        CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
        CREATE TABLE IF NOT EXISTS objects (key TEXT PRIMARY KEY, revision INTEGER NOT NULL, json TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS changes (
          revision INTEGER PRIMARY KEY, type TEXT NOT NULL, key TEXT NOT NULL, json TEXT NOT NULL,
          prev_revision INTEGER, prev_json TEXT);
      `);
      const row = db.prepare("SELECT value FROM meta WHERE name = 'schema'").get() as { value: number } | undefined;
      if (row === undefined) db.prepare("INSERT INTO meta (name, value) VALUES ('schema', ?)").run(SCHEMA_VERSION);
      else if (row.value !== SCHEMA_VERSION)
        throw new StorageOpenError(this.file, `schema version ${row.value}, this build reads ${SCHEMA_VERSION}`);
    }).exclusive();
  }

  append(change: Change): void {
    if (this.closed) throw new Error(`the cluster store ${this.file} is closed`);
    this.writeChange(change);
    if (++this.appends % TRIM_EVERY === 0) this.trimThrough(this.oldestKept());
  }

  compacted(through: number): void {
    if (this.closed) throw new Error(`the cluster store ${this.file} is closed`);
    this.trimThrough(through);
  }

  load(): StorageSnapshot {
    const db = this.db;
    const scalar = (sql: string): number => {
      const row = db.prepare(sql).get() as { v: number | null } | undefined;
      return row?.v ?? 0;
    };
    // One pass over each table: the objects' rows hold their JSON, so a second query would read it all again.
    let newest = 0;
    const objects: StoredObject[] = [];
    const objectRows = db.prepare('SELECT key, revision, json FROM objects').raw().all() as Array<
      [string, number, string]
    >;
    for (const [key, revision, json] of objectRows) {
      objects.push({ key, revision, json });
      if (revision > newest) newest = revision;
    }
    const changeRows = db.prepare('SELECT * FROM changes ORDER BY revision').all() as ChangeRow[];
    const history: Change[] = changeRows.map((r) => ({
      type: r.type,
      key: r.key,
      revision: r.revision,
      json: r.json,
      ...(r.prev_json !== null ? { prevJson: r.prev_json } : {}),
      ...(r.prev_revision !== null ? { prevRevision: r.prev_revision } : {}),
    }));
    const trimmed = Math.max(1, scalar("SELECT value AS v FROM meta WHERE name = 'compacted_through'"));
    const revision = Math.max(trimmed, newest, history.length > 0 ? history[history.length - 1].revision : 0);
    // Every revision after the trim point has its change, so the history starts right after it.
    const compactedThrough = history.length > 0 ? Math.max(trimmed, history[0].revision - 1) : revision;
    return { revision, compactedThrough, objects, history };
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (readOwner(this.dataDir) === process.pid) rmSync(path.join(this.dataDir, OWNER_FILE), { force: true });
    this.db.close();
  }
}

/** The durable backend of `npm start` and `peerpods cluster start --data-dir`. */
export class SqliteStorage extends MemoryStorage {
  private readonly sqlite: SqliteJournal;

  /** Opens (or creates) the store in `dataDir` and loads it; throws StorageLockedError / StorageOpenError. */
  constructor(dataDir: string, options: SqliteStorageOptions = {}) {
    const journal = new SqliteJournal(path.resolve(dataDir), options.synchronous ?? 'NORMAL');
    super({ ...options, journal });
    this.sqlite = journal;
    try {
      this.restore(journal.load());
    } catch (err) {
      journal.close();
      throw err instanceof StorageOpenError ? err : new StorageOpenError(journal.file, (err as Error).message);
    }
    journal.oldestKept = () => this.oldestRevision();
  }

  get file(): string {
    return this.sqlite.file;
  }

  /** Releases the database (and its lock); later writes fail. */
  close(): void {
    this.sqlite.close();
  }
}

// The durable storage (SQLite journal under the in-memory index): what one run wrote is there for
// the next, resourceVersions keep growing across restarts, watches resume from a kept revision and
// older ones answer 410, compaction trims the disk too, a SIGKILL loses no acknowledged write, and
// a store that is in use or unreadable is refused with a message that says so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type BetterSqlite3 from 'better-sqlite3';
import {
  MemoryStorage,
  RevisionCompactedError,
  SqliteStorage,
  StorageLockedError,
  StorageOpenError,
  STORE_FILE,
  type Change,
  type Storage,
} from '../../../src/kube/storage/index.ts';
import type { KubeObject } from '../../../src/apimachinery/meta/index.ts';
import { waitFor } from '../../helpers/wait.ts';
import { cm, key } from './fixtures.ts';

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'peerpods-sqlite-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function open(t: { after(fn: () => void): void }, dir: string, options = {}): SqliteStorage {
  const s = new SqliteStorage(dir, options);
  t.after(() => s.close());
  return s;
}

/** The same writes against any Storage: creates, updates and a delete. */
function writeSome(s: Storage): void {
  const a = s.create(key('a'), cm('a'));
  s.create(key('b'), cm('b'));
  const a2 = s.update(key('a'), cm('a', '2'), a.revision);
  s.create(key('c'), cm('c'));
  s.delete(key('a'), a2.revision);
}

function collect(s: Storage, prefix: string, from: number): Change[] {
  const seen: Change[] = [];
  s.watch(prefix, from, (c) => seen.push(c)).stop();
  return seen;
}

test('a reopened store has every object, the same revision, and keeps counting from it', (t) => {
  const dir = tempDir(t);
  const first = new SqliteStorage(dir);
  writeSome(first);
  const before = first.list('/core/configmaps/');
  const revision = first.currentRevision();
  first.close();

  const second = open(t, dir);
  assert.deepEqual(second.list('/core/configmaps/'), before);
  assert.equal(second.currentRevision(), revision);
  assert.deepEqual(
    second.list('/core/configmaps/').map((o) => o.key),
    [key('b'), key('c')],
  );
  const next = second.create(key('d'), cm('d'));
  assert.equal(next.revision, revision + 1, 'resourceVersions stay monotonic across a restart');
  assert.equal((JSON.parse(next.json) as KubeObject).metadata.resourceVersion, String(revision + 1));
  // Compare-and-swap still holds against the loaded revisions.
  const b = second.get(key('b'))!;
  assert.throws(() => second.update(key('b'), cm('b', 'x'), b.revision - 1), /revision mismatch/);
});

test('a watch from a kept revision after a restart replays exactly what a live watch saw', (t) => {
  const dir = tempDir(t);
  const reference = new MemoryStorage();
  const first = new SqliteStorage(dir);
  first.create(key('x'), cm('x'));
  reference.create(key('x'), cm('x'));
  const from = first.currentRevision();
  writeSome(first);
  writeSome(reference);
  const live = collect(first, '/core/configmaps/', from);
  first.close();

  const second = open(t, dir);
  const replayed = collect(second, '/core/configmaps/', from);
  assert.deepEqual(replayed, live);
  assert.deepEqual(replayed, collect(reference, '/core/configmaps/', from), 'the same events as the memory backend');
  assert.deepEqual(
    replayed.map((c) => `${c.type} ${c.key.split('/').pop()}`),
    ['ADDED a', 'ADDED b', 'MODIFIED a', 'ADDED c', 'DELETED a'],
  );
  // Snapshot reads at a past revision work from the loaded history too.
  assert.deepEqual(
    second.listAt('/core/configmaps/', from).map((o) => o.key),
    [key('x')],
  );
  // A new write after the restart reaches a watch started from before it.
  const seen: Change[] = [];
  const w = second.watch('/core/configmaps/', second.currentRevision(), (c) => seen.push(c));
  second.create(key('y'), cm('y'));
  w.stop();
  assert.deepEqual(
    seen.map((c) => c.type),
    ['ADDED'],
  );
});

test('revisions older than the kept history answer 410 after a restart, kept ones still resume', (t) => {
  const dir = tempDir(t);
  const first = new SqliteStorage(dir, { historySize: 3 });
  for (let i = 0; i < 10; i++) first.create(key(`n${i}`), cm(`n${i}`));
  const oldest = first.oldestRevision();
  first.close();

  const second = open(t, dir, { historySize: 3 });
  assert.equal(second.oldestRevision(), oldest);
  assert.throws(() => second.watch('/core/', oldest - 1, () => undefined), RevisionCompactedError);
  assert.throws(() => second.listAt('/core/configmaps/', oldest - 1), RevisionCompactedError);
  assert.equal(collect(second, '/core/', oldest).length, 3);
});

test('compaction is durable, and the changes table is trimmed to the kept history', (t) => {
  const dir = tempDir(t);
  const first = new SqliteStorage(dir, { historySize: 10 });
  for (let i = 0; i < 2500; i++) first.create(key(`n${i}`), cm(`n${i}`));
  first.close();
  const rows = (): number => {
    const db = new (createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3)(
      path.join(dir, STORE_FILE),
    );
    try {
      return (db.prepare('SELECT COUNT(*) AS n FROM changes').get() as { n: number }).n;
    } finally {
      db.close();
    }
  };
  // Trimmed every 1,000 writes to what memory keeps: never the whole 2,500.
  assert.ok(rows() <= 10 + 1000, `changes kept on disk: ${rows()}`);

  const second = new SqliteStorage(dir, { historySize: 10 });
  const revision = second.currentRevision();
  assert.equal(collect(second, '/core/', revision - 10).length, 10);
  second.compact();
  second.close();
  assert.equal(rows(), 0);

  const third = open(t, dir, { historySize: 10 });
  assert.equal(third.currentRevision(), revision);
  assert.equal(third.oldestRevision(), revision);
  assert.throws(() => third.watch('/core/', revision - 1, () => undefined), RevisionCompactedError);
  assert.equal(collect(third, '/core/', revision).length, 0);
  assert.equal(third.count('/core/configmaps/'), 2500);
});

test('SIGKILL in the middle of writes loses no acknowledged write', async (t) => {
  const dir = tempDir(t);
  const writer = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('./durable-writer.ts', import.meta.url)), dir],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  t.after(() => writer.kill('SIGKILL'));
  const acked = new Map<string, number>();
  let pid = 0;
  let buffered = '';
  writer.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines) {
      const [what, a, b] = line.split(' ');
      if (what === 'ready') pid = Number(a);
      if (what === 'ack') acked.set(a, Number(b));
    }
  });
  const exited = new Promise((r) => writer.once('exit', r));
  await waitFor(() => pid > 0, 'the writer to open the store', 30_000);
  // While it runs, the store is its own: a second opener is told who holds it.
  assert.throws(
    () => new SqliteStorage(dir),
    (e: unknown) =>
      e instanceof StorageLockedError && e.pid === pid && /in use by another process \(PID \d+\)/.test(e.message),
  );
  await waitFor(() => acked.size >= 2000, '2,000 acknowledged writes', 60_000);
  writer.kill('SIGKILL');
  await exited;

  const s = open(t, dir);
  assert.ok(acked.size >= 2000);
  for (const [name, revision] of acked) {
    const stored = s.get(key(name));
    assert.ok(stored, `acknowledged ${name} is there`);
    assert.equal(stored.revision, revision);
  }
  // Writes that were committed but not yet acknowledged may be there too; the revision covers them.
  assert.ok(s.currentRevision() >= Math.max(...acked.values()));
});

test('a second opener of the same directory is refused, and can open it once the first closed', (t) => {
  const dir = tempDir(t);
  const first = new SqliteStorage(dir);
  first.create(key('a'), cm('a'));
  assert.throws(
    () => new SqliteStorage(dir),
    (e: unknown) =>
      e instanceof StorageLockedError &&
      e.message.includes(dir) &&
      e.message.includes(`in use by another process (PID ${process.pid})`),
  );
  // The refused opener changed nothing.
  first.create(key('b'), cm('b'));
  first.close();
  assert.throws(() => first.create(key('c'), cm('c')), /closed/);
  const second = open(t, dir);
  assert.equal(second.count('/core/configmaps/'), 2);
});

test('a corrupted or unreadable store is refused with a clear error, not a crash', (t) => {
  const garbage = tempDir(t);
  writeFileSync(path.join(garbage, STORE_FILE), Buffer.alloc(8192, 'not a database '));
  assert.throws(
    () => new SqliteStorage(garbage),
    (e: unknown) =>
      e instanceof StorageOpenError &&
      e.message.startsWith(`cannot open the cluster store ${path.join(garbage, STORE_FILE)}: `) &&
      /not a database/.test(e.message),
  );

  const unreadable = tempDir(t);
  mkdirSync(path.join(unreadable, STORE_FILE));
  assert.throws(
    () => new SqliteStorage(unreadable),
    (e: unknown) => e instanceof StorageOpenError && e.message.includes('cannot open the cluster store'),
  );

  // A store written by a later schema is not guessed at.
  const newer = tempDir(t);
  new SqliteStorage(newer).close();
  const db = new (createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3)(
    path.join(newer, STORE_FILE),
  );
  db.prepare("UPDATE meta SET value = 99 WHERE name = 'schema'").run();
  db.close();
  assert.throws(
    () => new SqliteStorage(newer),
    (e: unknown) => e instanceof StorageOpenError && /schema version 99/.test(e.message),
  );
});

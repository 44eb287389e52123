// The etcd side of EtcdStorage, in a worker thread: the client, one watch over the whole prefix
// that feeds the storage's in-memory index, the conditional writes, and periodic compaction.
// Every write waits until the watch has delivered the revision it needs, so the storage sees its
// own write (and everything before it) in the same answer, in etcd's order.
import { workerData, type MessagePort } from 'node:worker_threads';
import { Etcd3, type IKeyValue, type IWatchResponse, type Watcher } from 'etcd3';
import {
  SLOT_ANSWERED,
  SLOT_QUEUED,
  SLOT_WATCHING,
  type Refusal,
  type WireEvent,
  type WireObject,
} from './protocol.ts';
import type { WorkerRequest, WorkerResponse } from './protocol.ts';
import type { Envelope } from './sync-channel.ts';

export interface EtcdWorkerData {
  endpoints: string[];
  /** Key prefix of this cluster's objects, e.g. `/registry` (kube-apiserver's --etcd-prefix). */
  prefix: string;
  /** Each etcd call's deadline. */
  requestTimeoutMs: number;
  /** How often etcd's history is compacted (0: never), as kube-apiserver's --etcd-compaction-interval. */
  compactionIntervalMs: number;
  /** Objects per page when the store is read whole (open, resync). */
  listPageSize: number;
  /** How long a broken watch waits before it is started again. */
  rewatchDelayMs: number;
}

const data = workerData as EtcdWorkerData & { port: MessagePort; wake: MessagePort; shared: Int32Array };
const { port, wake, shared } = data;
/** Keys under the prefix that are ours, not objects: the barrier each server writes to catch up. */
const RESERVED = '/~peerpods/';
/** kube-apiserver's compaction key: whoever moves it compacts, so several servers compact once. */
const COMPACT_KEY = 'compact_rev_key';

const client = new Etcd3({
  hosts: data.endpoints,
  grpcOptions: { 'grpc.max_receive_message_length': -1, 'grpc.max_send_message_length': -1 },
});
const prefix = data.prefix.replace(/\/+$/, '');
const barrierKey = `${RESERVED}barrier/${process.pid}-${Math.random().toString(36).slice(2)}`;

const enc = (key: string): Buffer => Buffer.from(prefix + key);
const dec = (key: Buffer): string => key.toString('utf8').slice(prefix.length);
/** The end of a range that holds exactly the keys starting with `p`. */
function rangeEnd(p: Buffer): Buffer {
  const end = Buffer.from(p);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i] < 0xff) {
      end[i]++;
      return end.subarray(0, i + 1);
    }
  }
  return Buffer.from([0]);
}
const allKeys = Buffer.from(`${prefix}/`);
const allKeysEnd = rangeEnd(allKeys);

// --- the watch and its queue -------------------------------------------------------------------

let queue: WireEvent[] = [];
let queuedCount = 0;
/** Highest revision the watch has delivered (events of every key under the prefix, ours included). */
let delivered = 0;
let watcher: Watcher | undefined;
let closing = false;
const waiters: Array<{ revision: number; resolve: () => void }> = [];

function enqueue(e: WireEvent): void {
  const wasEmpty = queue.length === 0;
  queue.push(e);
  queuedCount = (queuedCount + 1) | 0;
  Atomics.store(shared, SLOT_QUEUED, queuedCount);
  if (wasEmpty) wake.postMessage(0);
}

function advance(revision: number): void {
  if (revision <= delivered) return;
  delivered = revision;
  for (let i = waiters.length - 1; i >= 0; i--) {
    if (waiters[i].revision <= delivered) waiters.splice(i, 1)[0].resolve();
  }
}

function caughtUp(revision: number): Promise<void> {
  if (revision <= delivered) return Promise.resolve();
  return new Promise((resolve) => waiters.push({ revision, resolve }));
}

function onData(res: IWatchResponse): void {
  let newest = delivered;
  for (const ev of res.events) {
    const revision = Number(ev.kv.mod_revision);
    if (revision > newest) newest = revision;
    const key = dec(ev.kv.key);
    if (key.startsWith(RESERVED)) continue;
    if (ev.type === 'Put') enqueue({ type: 'put', key, value: ev.kv.value.toString('utf8'), revision });
    else enqueue({ type: 'delete', key, revision });
  }
  advance(newest);
}

async function watchFrom(revision: number): Promise<void> {
  const w = await client.watch().prefix(allKeys.toString('utf8')).startRevision(String(revision)).create();
  watcher = w;
  Atomics.store(shared, SLOT_WATCHING, 1);
  w.on('data', onData);
  // The library resumes from the last response's header, which can run ahead of the events it
  // delivered; so a broken stream is replaced here from what was really delivered.
  w.on('disconnected', () => rewatch(w, false));
  w.on('error', () => rewatch(w, true));
}

let rewatching = false;

function rewatch(w: Watcher, failed: boolean): void {
  if (watcher !== w || closing || rewatching) return;
  rewatching = true;
  watcher = undefined;
  Atomics.store(shared, SLOT_WATCHING, 0);
  w.cancel().catch(() => undefined);
  const retry = (fromScratch: boolean): void => {
    setTimeout(() => {
      if (closing) return;
      // A watch etcd cancelled (its start was compacted away) cannot resume: read it all again.
      (fromScratch ? resync() : watchFrom(delivered + 1)).then(
        () => (rewatching = false),
        () => retry(true),
      );
    }, data.rewatchDelayMs).unref();
  };
  retry(failed);
}

interface Page {
  revision: number;
  objects: WireObject[];
  more: boolean;
}

/**
 * Reads every object under the prefix at one revision, page by page, each page fetched while the
 * caller works on the one before.
 */
function pages(): () => Promise<Page> {
  let from: Buffer | undefined = allKeys;
  let revision = 0;
  const fetchPage = async (): Promise<Page> => {
    if (!from) return { revision, objects: [], more: false };
    const res = await client.kv.range({
      key: from,
      range_end: allKeysEnd,
      limit: data.listPageSize,
      ...(revision ? { revision } : {}),
    });
    if (!revision) revision = Number(res.header.revision);
    const objects: WireObject[] = [];
    for (const kv of res.kvs) {
      const key = dec(kv.key);
      if (!key.startsWith(RESERVED)) objects.push(wireObject(key, kv));
    }
    from =
      res.more && res.kvs.length > 0 ? Buffer.concat([res.kvs[res.kvs.length - 1].key, Buffer.from([0])]) : undefined;
    return { revision, objects, more: from !== undefined };
  };
  let ahead: Promise<Page> | undefined;
  return async () => {
    const page = await (ahead ?? fetchPage());
    ahead = page.more ? fetchPage() : undefined;
    // A prefetch nobody takes (the caller gave up) must not become an unhandled rejection.
    ahead?.catch(() => undefined);
    return page;
  };
}

/** Every object under the prefix at one revision. */
async function readAll(): Promise<{ revision: number; objects: WireObject[] }> {
  const next = pages();
  const objects: WireObject[] = [];
  for (;;) {
    const page = await next();
    objects.push(...page.objects);
    if (!page.more) return { revision: page.revision, objects };
  }
}

function wireObject(key: string, kv: IKeyValue): WireObject {
  return { key, value: kv.value.toString('utf8'), revision: Number(kv.mod_revision) };
}

/** The storage rebuilds its index from a fresh read; the watch goes on from there. */
async function resync(): Promise<void> {
  const snapshot = await readAll();
  enqueue({ type: 'reset', key: '', revision: snapshot.revision, objects: snapshot.objects });
  advance(snapshot.revision);
  await watchFrom(snapshot.revision + 1);
}

// --- requests ----------------------------------------------------------------------------------

let opening: (() => Promise<Page>) | undefined;

/** One page of the first read; after the last one the watch starts from the revision read. */
async function openPage(): Promise<WorkerResponse> {
  if (!opening) throw new Error('no open in progress');
  const page = await opening();
  if (!page.more) {
    opening = undefined;
    advance(page.revision);
    await watchFrom(page.revision + 1);
    if (data.compactionIntervalMs > 0) scheduleCompaction();
  }
  return { ok: true, events: [], page };
}

function take(): WireEvent[] {
  const events = queue;
  queue = [];
  return events;
}

function withDeadline<T>(what: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${data.requestTimeoutMs} ms`)), data.requestTimeoutMs);
  });
  return Promise.race([what, deadline]).finally(() => clearTimeout(timer));
}

/**
 * A refused write is answered once the index has the key's current state, so the caller's retry
 * reads what beat it. Where the key is gone, the barrier (a write of our own, delivered in order)
 * shows that its deletion has been delivered.
 */
async function refuse(refusal: Refusal, current: IKeyValue | undefined): Promise<WorkerResponse> {
  if (current) await caughtUp(Number(current.mod_revision));
  else await barrier();
  return { ok: false, refusal, events: take() };
}

async function barrier(): Promise<void> {
  const res = await client.kv.put({ key: enc(barrierKey), value: Buffer.from(String(Date.now())) });
  await caughtUp(Number(res.header.revision));
}

async function conditionalWrite(
  key: string,
  compare: { target: 'Create' | 'Mod'; revision: number },
  op: { request_put: { key: Buffer; value: Buffer } } | { request_delete_range: { key: Buffer } },
  refusal: (current: IKeyValue | undefined) => Refusal,
): Promise<WorkerResponse> {
  const res = await client.kv.txn({
    compare: [
      {
        key: enc(key),
        target: compare.target,
        result: 'Equal',
        ...(compare.target === 'Create' ? { create_revision: compare.revision } : { mod_revision: compare.revision }),
      },
    ],
    success: [op],
    failure: [{ request_range: { key: enc(key) } }],
  });
  if (!res.succeeded) {
    const current = res.responses[0]?.response_range?.kvs[0];
    return refuse(refusal(current), current);
  }
  const revision = Number(res.header.revision);
  await caughtUp(revision);
  return { ok: true, revision, events: take() };
}

async function handle(req: WorkerRequest): Promise<WorkerResponse> {
  switch (req.op) {
    case 'open':
      opening = pages();
      return openPage();
    case 'page':
      return openPage();
    case 'create':
      return conditionalWrite(
        req.key,
        { target: 'Create', revision: 0 },
        { request_put: { key: enc(req.key), value: Buffer.from(req.value) } },
        () => 'exists',
      );
    case 'update':
      return conditionalWrite(
        req.key,
        { target: 'Mod', revision: req.expected },
        { request_put: { key: enc(req.key), value: Buffer.from(req.value) } },
        (current) => (current ? 'mismatch' : 'not-found'),
      );
    case 'delete':
      return conditionalWrite(
        req.key,
        { target: 'Mod', revision: req.expected },
        { request_delete_range: { key: enc(req.key) } },
        (current) => (current ? 'mismatch' : 'not-found'),
      );
    case 'drain':
      return { ok: true, events: take() };
    case 'compact':
      // Already compacted further (by the periodic compaction or another server) is as good.
      await client.kv.compact({ revision: req.revision }).catch((err: Error) => {
        if (!/compacted/.test(err.message)) throw err;
      });
      return { ok: true, events: take() };
    case 'close':
      closing = true;
      if (compactionTimer) clearTimeout(compactionTimer);
      await watcher?.cancel().catch(() => undefined);
      // This server's barrier key goes with it (a killed server leaves one small key behind).
      await client.kv.deleteRange({ key: enc(barrierKey) }).catch(() => undefined);
      client.close();
      return { ok: true, events: take() };
  }
}

// --- compaction, as kube-apiserver's compactor ---------------------------------------------------

let compactionTimer: NodeJS.Timeout | undefined;
let compactVersion = 0;
let compactTarget = 0;

/**
 * Each interval, the revision seen at the previous one is compacted, by whichever server first
 * moves the shared compaction key: the history always covers at least one interval.
 */
function scheduleCompaction(): void {
  compactionTimer = setTimeout(() => {
    compactOnce()
      .catch(() => undefined)
      .finally(() => {
        if (!closing) scheduleCompaction();
      });
  }, data.compactionIntervalMs);
  compactionTimer.unref();
}

async function compactOnce(): Promise<void> {
  const key = Buffer.from(COMPACT_KEY);
  const res = await client.kv.txn({
    compare: [{ key, target: 'Version', result: 'Equal', version: compactVersion }],
    success: [{ request_put: { key, value: Buffer.from(String(compactTarget)), prev_kv: true } }],
    failure: [{ request_range: { key } }],
  });
  const seen = res.succeeded ? undefined : res.responses[0]?.response_range?.kvs[0];
  const previousTarget = compactTarget;
  compactVersion = seen ? Number(seen.version) : compactVersion + 1;
  compactTarget = Number(res.header.revision);
  if (res.succeeded && previousTarget > 0) await client.kv.compact({ revision: previousTarget });
}

// --- the loop ------------------------------------------------------------------------------------

port.on('message', (envelope: Envelope<WorkerRequest>) => {
  // Opening reads every object, page by page: the caller bounds it with its own (longer) timeout.
  const answer = envelope.body.op === 'open' ? handle(envelope.body) : withDeadline(handle(envelope.body));
  answer
    .catch((err: unknown): WorkerResponse => ({ ok: false, error: (err as Error).message, events: take() }))
    .then((body) => {
      port.postMessage({ seq: envelope.seq, body } satisfies Envelope<WorkerResponse>);
      Atomics.store(shared, SLOT_ANSWERED, envelope.seq);
      Atomics.notify(shared, SLOT_ANSWERED);
    });
});

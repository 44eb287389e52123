import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger } from '../../../src/runtime/util/logger.ts';

test('createLogger redacts credentials and honours LOG_LEVEL', () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  const log = createLogger('t', { destination: sink, level: 'info' });
  log.info(
    { token: 'sekret-1', headers: { authorization: 'Bearer sekret-2' }, user: { password: 'sekret-3' }, ok: 'visible' },
    'hello',
  );
  log.debug('hidden at info');
  assert.equal(lines.length, 1);
  assert.doesNotMatch(lines[0]!, /sekret/);
  assert.match(lines[0]!, /visible/);
  assert.match(lines[0]!, /"name":"t"/);

  const saved = process.env.LOG_LEVEL;
  process.env.LOG_LEVEL = 'warn';
  try {
    assert.equal(createLogger('x', { destination: sink }).level, 'warn');
  } finally {
    if (saved === undefined) delete process.env.LOG_LEVEL;
    else process.env.LOG_LEVEL = saved;
  }
});

// pino writes a child's bindings after its parent's as text: a key bound twice, or bound and
// logged, appeared twice in one line (issue #16: `component`, `informer`, `name`, `pid`).
test('every key appears once in a line: the nearest binding or the logged field wins', () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  const root = createLogger('peerpod-adaptor', { destination: sink, level: 'debug' });
  const cache = root.child({ component: 'kube-client' }).child({ component: 'cache' });
  const informer = cache.child({ informer: 'pods' }).child({ informer: 'nodes' });
  informer.info({ component: 'reflector', name: 'peer-pod-1', pid: 4242, token: 'sekret' }, 'list/watch healthy');
  cache.child({ key: 'default/a' }, { level: 'warn' }).info('dropped below warn');

  assert.equal(lines.length, 1);
  const line = lines[0]!;
  // JSON.parse keeps only the last of duplicate keys, so count the raw `"key":` occurrences too.
  for (const key of ['component', 'informer', 'name', 'pid', 'token'])
    // name and pid: once at the top (the process's) and once under fields (the logged ones).
    assert.equal(line.split(`"${key}":`).length - 1, key === 'name' || key === 'pid' ? 2 : 1, `${key}: ${line}`);
  const parsed = JSON.parse(line) as Record<string, unknown>;
  assert.equal(parsed.name, 'peerpod-adaptor', "the logger's own name stays the top-level name");
  assert.equal(parsed.pid, process.pid, "the process's pid stays the top-level pid");
  assert.deepEqual(parsed.fields, { name: 'peer-pod-1', pid: 4242 }, 'fields named like a base key move under fields');
  assert.equal(parsed.component, 'reflector');
  assert.equal(parsed.informer, 'nodes');
  assert.equal(parsed.token, '[redacted]');
});

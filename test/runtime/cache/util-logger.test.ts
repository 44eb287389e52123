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

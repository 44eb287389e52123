// The process runtime's pure parts: which images run as processes and with what command line
// (the image's entrypoint is `peerpods`; kubecontainer.ExpandContainerCommandAndArgs for $(VAR)),
// and the bounded per-instance log with kube's fixed-width RFC 3339 nano timestamps
// (pkg/kubelet/kuberuntime/kuberuntime_logs.go timeFormatOut).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ContainerLog,
  formatLogTimestamp,
  readContainerLog,
} from '../../../../src/kube/kubelet/process/container-log.ts';
import { containerArgv, imageRepository, isProcessImage } from '../../../../src/kube/kubelet/process/options.ts';

const images = ['ghcr.io/peerpods/peerpods'];

describe('process images and command lines', () => {
  test('an image matches as written or by its repository', () => {
    assert.equal(imageRepository('ghcr.io/peerpods/peerpods:v1.2'), 'ghcr.io/peerpods/peerpods');
    assert.equal(imageRepository('localhost:5000/peerpods@sha256:abc'), 'localhost:5000/peerpods');
    assert.equal(imageRepository('localhost:5000/peerpods'), 'localhost:5000/peerpods');
    assert.ok(isProcessImage('ghcr.io/peerpods/peerpods:latest', images));
    assert.ok(isProcessImage('ghcr.io/peerpods/peerpods@sha256:0123', images));
    assert.ok(isProcessImage('ghcr.io/peerpods/peerpods', images));
    assert.ok(!isProcessImage('ghcr.io/peerpods/peerpods-other:latest', images));
    assert.ok(!isProcessImage('nginx', images));
    assert.ok(isProcessImage('example.com/op:dev', ['example.com/op:dev']));
    assert.ok(!isProcessImage('example.com/op:v2', ['example.com/op:dev']));
  });

  test('entrypoint + args; peerpods as command; any other command as given', () => {
    const ep = ['/usr/bin/node', '/src/bin/peerpods.js'];
    assert.deepEqual(containerArgv(ep, { args: ['run', 'x'] }, {}), [...ep, 'run', 'x']);
    assert.deepEqual(containerArgv(ep, { command: ['peerpods', 'run'], args: ['x'] }, {}), [...ep, 'run', 'x']);
    assert.deepEqual(containerArgv(ep, { command: ['/usr/local/bin/peerpods'] }, {}), ep);
    assert.deepEqual(containerArgv(ep, { command: ['sh', '-c'], args: ['exit 1'] }, {}), ['sh', '-c', 'exit 1']);
    assert.deepEqual(containerArgv(ep, { args: ['--ns=$(NS)', '$$(NS)', '$(MISSING)'] }, { NS: 'a' }), [
      ...ep,
      '--ns=a',
      '$(NS)',
      '$(MISSING)',
    ]);
    assert.deepEqual(containerArgv(ep, { args: ['$(A)$(B)'] }, { A: '1', B: '2' }), [...ep, '12']);
  });
});

describe('container log', () => {
  test('timestamps are fixed width, nanoseconds, UTC', () => {
    assert.equal(formatLogTimestamp(1_700_000_000_000_000_000n), '2023-11-14T22:13:20.000000000Z');
    assert.equal(formatLogTimestamp(1_700_000_000_123_456_789n), '2023-11-14T22:13:20.123456789Z');
  });

  test('lines are cut at newlines per stream; the oldest go beyond the limit; an unfinished line is kept on exit', async () => {
    const log = new ContainerLog(12);
    log.write('stdout', 'aaaa\nbb');
    log.write('stderr', 'cccc\n');
    log.write('stdout', 'bb\n');
    assert.deepEqual(
      log.lines.map((l) => [l.stream, l.text]),
      [
        ['stderr', 'cccc\n'],
        ['stdout', 'bbbb\n'],
      ],
    );
    log.write('stdout', 'tail');
    log.close();
    assert.equal(log.lines.at(-1)?.text, 'tail');
    assert.ok(log.lines.every((l, i) => i === 0 || l.at > log.lines[i - 1].at));
    let text = '';
    const signal = new AbortController().signal;
    for await (const c of readContainerLog(
      log,
      { container: 'c', previous: false, follow: true, timestamps: false },
      signal,
    ))
      text += String(c);
    assert.equal(text, 'bbbb\ntail');
  });

  test('follow streams new lines and ends when the instance exits or the client goes', async () => {
    const log = new ContainerLog(1024);
    log.write('stdout', 'one\n');
    const chunks: string[] = [];
    const stream = readContainerLog(
      log,
      { container: 'c', previous: false, follow: true, timestamps: false, tailLines: 0 },
      new AbortController().signal,
    );
    stream.on('data', (d) => chunks.push(String(d)));
    const ended = new Promise((r) => stream.once('end', r));
    log.write('stdout', 'two\nthree\n');
    log.close();
    await ended;
    assert.equal(chunks.join(''), 'two\nthree\n');
    const abort = new AbortController();
    const open = new ContainerLog(1024);
    const s2 = readContainerLog(
      open,
      { container: 'c', previous: false, follow: true, timestamps: false },
      abort.signal,
    );
    s2.resume();
    const ended2 = new Promise((r) => s2.once('end', r));
    abort.abort();
    await ended2;
  });
});

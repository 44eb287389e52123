import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CertWatcher } from '../../../src/runtime/webhook/index.ts';
import type { KeyPair } from '../../../src/runtime/webhook/index.ts';
import { waitFor } from '../../helpers/wait.ts';
import { issue, makeCa } from './certs.ts';

describe('CertWatcher', () => {
  it('picks up a rotation by polling alone when fs.watch is off', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'certwatch-'));
    try {
      const ca = makeCa();
      const a = issue(ca, 'a');
      const certFile = join(dir, 'tls.crt');
      const keyFile = join(dir, 'tls.key');
      await writeFile(certFile, a.certPem);
      await writeFile(keyFile, a.keyPem);
      const w = new CertWatcher({ certFile, keyFile, pollIntervalMs: 50, fsWatch: false });
      await w.load();
      const seen: KeyPair[] = [];
      w.start((p) => seen.push(p));
      const b = issue(ca, 'b');
      await writeFile(keyFile, b.keyPem);
      await writeFile(certFile, b.certPem);
      await waitFor(() => seen.length === 1, 'the polled reload');
      assert.equal(seen[0].cert.toString(), b.certPem);
      w.stop();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses to start from missing or mismatched files', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'certwatch-'));
    try {
      const ca = makeCa();
      const a = issue(ca, 'a');
      const b = issue(ca, 'b');
      await writeFile(join(dir, 'tls.crt'), a.certPem);
      await writeFile(join(dir, 'tls.key'), b.keyPem);
      await assert.rejects(new CertWatcher({ certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key') }).load());
      await assert.rejects(
        new CertWatcher({ certFile: join(dir, 'x.crt'), keyFile: join(dir, 'x.key') }).load(),
        /ENOENT/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

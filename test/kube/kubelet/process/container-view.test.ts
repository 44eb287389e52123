// The container view: a real `node` child started with the environment containerViewEnv returns
// sees its volumes at their container paths, cannot write a read-only mount (EROFS, as a
// container's read-only bind mount), starts in its workingDir, and a server listening on
// 0.0.0.0 lands on the pod's IP only.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ContainerConfig } from '../../../../src/kube/kubelet/process/container-config.ts';
import {
  CONTAINER_VIEW_ENV,
  SHIM_URL,
  containerViewEnv,
} from '../../../../src/kube/kubelet/process/container-view/view.ts';
import { waitFor } from '../../../helpers/wait.ts';

const POD_IP = '127.244.0.99';

// Reads a mounted file, tries to write to the read-only mount, writes to the writable one
// through a relative path (its cwd is the workingDir), then serves on 0.0.0.0 and reports.
const SCRIPT = `
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
const out = {};
out.read = readFileSync('/etc/app/config.yaml', 'utf8');
out.exists = existsSync('/etc/app/config.yaml');
try { writeFileSync('/etc/app/config.yaml', 'changed'); out.syncWrite = 'ok'; } catch (e) { out.syncWrite = e.code + ' ' + e.message; }
try { await writeFile('/etc/app/new', 'x'); out.asyncWrite = 'ok'; } catch (e) { out.asyncWrite = e.code; }
writeFileSync('relative.txt', 'from the container');
out.cwd = process.cwd();
out.nodeOptions = process.env.NODE_OPTIONS;
const server = http.createServer((req, res) => res.end('pod says hi'));
server.listen(0, '0.0.0.0', () => {
  out.address = server.address();
  process.stdout.write(JSON.stringify(out) + '\\n');
});
`;

let dir: string;
let child: ChildProcess | undefined;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'peerpods-view-'));
});
after(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

function canConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('container view', () => {
  test('containerViewEnv appends the shim to the container NODE_OPTIONS and names the view file', () => {
    const viewDir = join(dir, 'env-only');
    mkdirSync(viewDir);
    const config: ContainerConfig = {
      env: { NODE_OPTIONS: '--max-old-space-size=256' },
      mounts: [{ mountPath: '/data', hostPath: '/somewhere', readOnly: false }],
    };
    const added = containerViewEnv(config, POD_IP, viewDir);
    assert.equal(added.NODE_OPTIONS, `--max-old-space-size=256 --import ${SHIM_URL}`);
    assert.equal(added[CONTAINER_VIEW_ENV], join(viewDir, 'container-view.json'));
    assert.deepEqual(JSON.parse(readFileSync(added[CONTAINER_VIEW_ENV], 'utf8')), {
      podIP: POD_IP,
      mounts: config.mounts,
    });
    assert.equal(containerViewEnv({ env: {}, mounts: [] }, POD_IP, viewDir).NODE_OPTIONS, `--import ${SHIM_URL}`);
  });

  test('a real node process sees its mounts, gets EROFS on a read-only one and listens on the pod IP', async () => {
    const config = join(dir, 'volumes', 'config');
    const work = join(dir, 'volumes', 'work');
    mkdirSync(config, { recursive: true });
    mkdirSync(work, { recursive: true });
    writeFileSync(join(config, 'config.yaml'), 'level: debug\n');
    const script = join(dir, 'main.mjs');
    writeFileSync(script, SCRIPT);
    const viewDir = join(dir, 'view');
    mkdirSync(viewDir);
    const containerConfig: ContainerConfig = {
      env: { GREETING: 'hi', NODE_OPTIONS: '--no-warnings' },
      mounts: [
        { mountPath: '/etc/app', hostPath: config, readOnly: true },
        { mountPath: '/work', hostPath: work, readOnly: false },
      ],
      workingDir: '/work',
    };
    const env = {
      PATH: process.env.PATH ?? '',
      ...containerConfig.env,
      ...containerViewEnv(containerConfig, POD_IP, viewDir),
    };
    child = spawn(process.execPath, [script], { env, cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    await waitFor(() => stdout.includes('\n') || child!.exitCode !== null, 'the container to report', 20_000);
    assert.ok(stdout.includes('\n'), `no report; stderr: ${stderr}`);
    const out = JSON.parse(stdout.split('\n')[0]) as Record<string, unknown> & {
      address: { address: string; port: number };
    };

    assert.equal(out.read, 'level: debug\n');
    assert.equal(out.exists, true);
    assert.equal(out.syncWrite, "EROFS EROFS: read-only file system, open '/etc/app/config.yaml'");
    assert.equal(out.asyncWrite, 'EROFS');
    assert.equal(readFileSync(join(config, 'config.yaml'), 'utf8'), 'level: debug\n');
    assert.equal(out.cwd, work);
    assert.equal(readFileSync(join(work, 'relative.txt'), 'utf8'), 'from the container');
    assert.equal(out.nodeOptions, `--no-warnings --import ${SHIM_URL}`);

    assert.equal(out.address.address, POD_IP);
    assert.equal(await canConnect(POD_IP, out.address.port), true);
    assert.equal(await canConnect('127.0.0.1', out.address.port), false);
    const body = await fetch(`http://${POD_IP}:${out.address.port}/`).then((r) => r.text());
    assert.equal(body, 'pod says hi');
  });

  test("a volume mounted over the checkout's directory does not hide the program itself", async () => {
    // A clone under /tmp with an emptyDir at /tmp (the controller-manager Deployment mounts one):
    // the CLI, its sources and node_modules are the image and stay visible.
    const repo = fileURLToPath(new URL('../../../../', import.meta.url));
    const top = `/${repo.split('/').filter(Boolean)[0]}`;
    const empty = join(dir, 'volumes', 'empty');
    mkdirSync(empty, { recursive: true });
    const viewDir = join(dir, 'view-over-repo');
    mkdirSync(viewDir);
    const containerConfig: ContainerConfig = {
      env: {},
      mounts: [{ mountPath: top, hostPath: empty, readOnly: false }],
    };
    const env = { PATH: process.env.PATH ?? '', ...containerViewEnv(containerConfig, POD_IP, viewDir) };
    const cli = join(repo, 'bin', 'peerpods.js');
    const probe = `const fs = require('node:fs'); process.stdout.write(String(fs.existsSync(${JSON.stringify(cli)})) + ' ' + String(fs.existsSync(${JSON.stringify(`${top}/peerpods-view-probe`)})));`;
    writeFileSync(join(empty, 'peerpods-view-probe'), 'in the volume');
    const ran = await new Promise<string>((resolve, reject) => {
      const c = spawn(process.execPath, ['-e', probe], { env, cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      c.stdout.on('data', (d) => (out += d));
      c.once('error', reject);
      c.once('exit', () => resolve(out));
    });
    // The checkout's file is found where it is; any other path under the mount goes to the volume.
    assert.equal(ran, 'true true');
  });
});

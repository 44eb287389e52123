// The pod webhook served in this process, as the `peer-pods-webhook` Deployment serves it in a real
// cluster: the PeerPodConfig controller generates its certificate into Secret
// peer-pods-webhook-svc-secret; here we play the kubelet's part and project that Secret's tls.crt
// and tls.key into a directory (rewritten on every change, so a rotation reaches the server through
// its CertWatcher), then the caller points the webhook Service at our port.
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Registry } from 'prom-client';
import { Secrets } from '../../runtime/index.ts';
import type { KubeObject, Logger, Manager, WebhookServer } from '../../runtime/index.ts';
import { nameScope } from '../providers/index.ts';
import { WEBHOOK_SECRET } from '../controllers/index.ts';
import { podWebhookServer } from '../webhook/index.ts';
import { RUNTIME_CLASS } from './settings.ts';

interface SecretObject extends KubeObject {
  data?: Record<string, string>;
}

export interface WebhookHost {
  /** Resolves with the local address once the certificate is there and the server listens. */
  listening: Promise<{ host: string; port: number }>;
  server: WebhookServer;
  /** Times the certificate files were (re)written from the Secret. */
  certWrites(): number;
}

async function writeAtomic(file: string, content: Buffer): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, content, { mode: 0o600 });
  await rename(tmp, file);
}

/** Registers the Secret informer and the server on `manager`; both run when the manager starts. */
export function hostPodWebhook(
  manager: Manager,
  o: { namespace: string; certDir: string; logger: Logger; metricsRegistry?: Registry },
): WebhookHost {
  const secrets = manager.informerFor<SecretObject>(Secrets, nameScope(o.namespace, WEBHOOK_SECRET));
  let writes = 0;
  let lastPair = '';
  let chain: Promise<void> = mkdir(o.certDir, { recursive: true, mode: 0o700 }).then(() => undefined);
  let firstWritten: () => void = () => undefined;
  const certReady = new Promise<void>((resolve) => (firstWritten = resolve));
  const project = (s: SecretObject): void => {
    const crt = s.data?.['tls.crt'];
    const key = s.data?.['tls.key'];
    if (!crt || !key || `${crt}/${key}` === lastPair) return;
    lastPair = `${crt}/${key}`;
    chain = chain
      .then(async () => {
        // Key first: the watcher reloads on the certificate change and must find the matching key.
        await writeAtomic(path.join(o.certDir, 'tls.key'), Buffer.from(key, 'base64'));
        await writeAtomic(path.join(o.certDir, 'tls.crt'), Buffer.from(crt, 'base64'));
        writes++;
        if (writes > 1) o.logger.info('webhook serving certificate rotated; reloading');
        firstWritten();
      })
      .catch((err: unknown) => o.logger.error({ err }, 'writing the webhook certificate failed'));
  };
  secrets.addHandler({ onAdd: project, onUpdate: (_old, s) => project(s) });

  const server = podWebhookServer({
    port: 0,
    host: '127.0.0.1',
    certDir: o.certDir,
    certPollIntervalMs: 2000,
    targetRuntimeClass: RUNTIME_CLASS,
    logger: o.logger.child({ component: 'webhook' }),
    ...(o.metricsRegistry ? { metricsRegistry: o.metricsRegistry } : {}),
  });
  manager.add({
    name: 'peer-pods-webhook',
    needLeaderElection: false,
    async start(signal: AbortSignal) {
      await Promise.race([certReady, new Promise((r) => signal.addEventListener('abort', r, { once: true }))]);
      if (signal.aborted) return;
      await server.start(signal);
    },
  });
  const listening = server.address().then((a) => ({ host: '127.0.0.1', port: a.port }));
  return { listening, server, certWrites: () => writes };
}

// The webhook's CA and serving certificate, kept in Secret peer-pods-webhook-svc-secret (tls.crt,
// tls.key for the pods; ca.crt, ca.key for us). The serving certificate is re-issued at 2/3 of its
// validity by the same CA, so the caBundle does not change. When the CA itself is replaced, the old
// one stays in ca.crt (and so in the caBundle) until it expires: webhook pods still serving the old
// certificate keep being trusted while the Secret volume update reaches them.
import { Secrets, isNotFound } from '../../../runtime/index.ts';
import type { KubeClient, KubeObject } from '../../../runtime/index.ts';
import { certInfo, createCa, issueServingCert, renewAt, verifyPair } from '../../../apimachinery/certs/index.ts';
import type { PemPair } from '../../../apimachinery/certs/index.ts';
import type { PeerPodConfig } from '../../api/peerpodconfig.ts';
import { ensure } from './ensure.ts';
import { MANAGED_BY, MANAGED_BY_LABEL, WEBHOOK_SECRET, serviceDnsNames } from './objects.ts';
import type { ResolvedWebhookOptions } from './options.ts';

interface SecretObject extends KubeObject {
  type?: string;
  data?: Record<string, string>;
}

export interface WebhookCertResult {
  /** Base64 PEM bundle for clientConfig.caBundle. */
  caBundle: string;
  /** When the Secret next needs attention (a renewal, or an old CA to drop). */
  nextCheckMs: number;
  /** What changed this time, for events. */
  issued: Array<'ca' | 'serving'>;
}

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;
const b64 = (s: string): string => Buffer.from(s).toString('base64');
const unb64 = (s: string | undefined): string =>
  s ? Buffer.from(s, 'base64').toString('utf8').replace(/\r\n/g, '\n') : '';

export async function ensureWebhookCertificates(
  client: KubeClient,
  cfg: PeerPodConfig,
  w: ResolvedWebhookOptions,
  now: number,
  signal: AbortSignal,
): Promise<WebhookCertResult> {
  const ns = cfg.metadata.namespace as string;
  let live: SecretObject | undefined;
  try {
    live = await client.get<SecretObject>(Secrets, WEBHOOK_SECRET, ns, { signal });
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  const data = live?.data ?? {};
  const issued: WebhookCertResult['issued'] = [];

  const bundle = (unb64(data['ca.crt']).match(PEM_CERT) ?? []).filter((c) => (certInfo(c)?.notAfter ?? 0) > now);
  let ca: PemPair = { certPem: bundle[0] ?? '', keyPem: unb64(data['ca.key']) };
  const caInfo = certInfo(ca.certPem);
  if (!caInfo || !ca.keyPem || now >= renewAt(caInfo, w.renewFraction)) {
    ca = createCa(`peer-pods-webhook-ca.${ns}`, { validMs: w.caValidityMs, now });
    bundle.unshift(ca.certPem);
    issued.push('ca');
  }

  const names = serviceDnsNames(ns);
  let serving: PemPair = { certPem: unb64(data['tls.crt']), keyPem: unb64(data['tls.key']) };
  const sInfo = certInfo(serving.certPem);
  const servingOk =
    sInfo !== undefined &&
    now < renewAt(sInfo, w.renewFraction) &&
    names.every((n) => sInfo.dnsNames.includes(n)) &&
    verifyPair(ca.certPem, serving.certPem, serving.keyPem);
  if (!servingOk) {
    serving = issueServingCert(ca, { dnsNames: names, validMs: w.certValidityMs, now });
    issued.push('serving');
  }

  const caCrt = bundle.map((c) => `${c.trimEnd()}\n`).join('');
  await ensure<SecretObject>(
    client,
    Secrets,
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: WEBHOOK_SECRET, namespace: ns, labels: { [MANAGED_BY_LABEL]: MANAGED_BY } },
      type: 'kubernetes.io/tls',
      data: {
        'tls.crt': b64(serving.certPem),
        'tls.key': b64(serving.keyPem),
        'ca.crt': b64(caCrt),
        'ca.key': b64(ca.keyPem),
      },
    },
    { owner: cfg, signal },
  );

  const deadlines = bundle.map((c) => {
    const i = certInfo(c);
    return i ? (c.trimEnd() === ca.certPem.trimEnd() ? renewAt(i, w.renewFraction) : i.notAfter) : now;
  });
  const servingInfo = certInfo(serving.certPem);
  if (servingInfo) deadlines.push(renewAt(servingInfo, w.renewFraction));
  return { caBundle: b64(caCrt), nextCheckMs: Math.min(...deadlines), issued };
}

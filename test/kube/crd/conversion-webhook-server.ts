// A CRD conversion webhook served by a test over HTTPS on loopback: Widget v1alpha1 keeps the
// replica count as a string (`spec.size: "3"`), v1 as an integer (`spec.replicas: 3`). It records
// every ConversionReview and can be told to answer the ways a broken webhook does.
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createCa, issueServingCert } from '../../../src/apimachinery/certs/index.ts';
import type { JsonObject } from '../../../src/apimachinery/meta/index.ts';

export type Misbehaviour = 'none' | 'wrong-uid' | 'wrong-count' | 'wrong-apiVersion' | 'changed-name' | 'failure';

export interface ReceivedReview {
  apiVersion: string;
  desiredAPIVersion: string;
  /** `name@apiVersion` of each object sent. */
  objects: string[];
  /** The review's `response` as sent with the request. */
  response: unknown;
}

export interface ConversionWebhook {
  url: string;
  port: number;
  caBundle: string;
  reviews: ReceivedReview[];
  misbehave: Misbehaviour;
  /** Milliseconds to wait before answering a review that converts an object of this name. */
  delays: Map<string, number>;
  close(): Promise<void>;
}

function convert(obj: JsonObject, desired: string): JsonObject {
  const out = structuredClone(obj);
  out.apiVersion = desired;
  const spec = (out.spec ?? {}) as JsonObject;
  if (desired.endsWith('/v1')) {
    if (spec.size !== undefined) spec.replicas = Number(spec.size);
    delete spec.size;
  } else {
    if (spec.replicas !== undefined) spec.size = String(spec.replicas);
    delete spec.replicas;
  }
  out.spec = spec;
  return out;
}

function answer(hook: ConversionWebhook, review: JsonObject): JsonObject {
  const request = review.request as { uid: string; desiredAPIVersion: string; objects: JsonObject[] };
  let converted = request.objects.map((o) => convert(o, request.desiredAPIVersion));
  let uid = request.uid;
  let result: JsonObject = { status: 'Success' };
  switch (hook.misbehave) {
    case 'wrong-uid':
      uid = 'not-the-request-uid';
      break;
    case 'wrong-count':
      converted = [...converted, ...converted];
      break;
    case 'wrong-apiVersion':
      converted = request.objects;
      break;
    case 'changed-name':
      for (const o of converted) (o.metadata as JsonObject).name = `${String((o.metadata as JsonObject).name)}-renamed`;
      break;
    case 'failure':
      result = { status: 'Failure', message: 'size is not a number' };
      converted = [];
      break;
  }
  return {
    apiVersion: review.apiVersion,
    kind: 'ConversionReview',
    response: { uid, convertedObjects: converted, result },
  };
}

export async function startConversionWebhook(): Promise<ConversionWebhook> {
  const ca = createCa('conversion-webhook-test-ca');
  const serving = issueServingCert(ca, {
    commonName: 'webhook',
    dnsNames: ['localhost', 'conversion.webhooks.svc'],
    ips: ['127.0.0.1'],
  });
  let hook!: ConversionWebhook;
  const server: Server = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as JsonObject;
      const request = review.request as { desiredAPIVersion: string; objects: JsonObject[] };
      const names = request.objects.map((o) => String((o.metadata as JsonObject).name));
      hook.reviews.push({
        apiVersion: String(review.apiVersion),
        desiredAPIVersion: request.desiredAPIVersion,
        objects: request.objects.map((o, i) => `${names[i]}@${String(o.apiVersion)}`),
        response: review.response,
      });
      const delay = Math.max(0, ...names.map((n) => hook.delays.get(n) ?? 0));
      setTimeout(() => {
        const body = JSON.stringify(answer(hook, review));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(body);
      }, delay);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  hook = {
    url: `https://127.0.0.1:${port}/convert`,
    port,
    caBundle: Buffer.from(ca.certPem).toString('base64'),
    reviews: [],
    misbehave: 'none',
    delays: new Map(),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return hook;
}

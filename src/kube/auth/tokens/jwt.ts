// Compact JWS with RS256, the only form service-account tokens take: sign, and split-and-verify.
import { createSign, createVerify, type KeyObject } from 'node:crypto';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';

/** Keys sorted at every level, as go-jose's claim builder marshals them. */
function sorted(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sorted);
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(o)
        .sort()
        .map((k) => [k, sorted(o[k])]),
    );
  }
  return v;
}

function segment(v: unknown): string {
  return Buffer.from(JSON.stringify(v)).toString('base64url');
}

export function signJwt(kid: string, claims: JsonObject, privateKey: KeyObject): string {
  const signingInput = `${segment({ alg: 'RS256', kid })}.${segment(sorted(claims))}`;
  const signature = createSign('RSA-SHA256').update(signingInput).sign(privateKey).toString('base64url');
  return `${signingInput}.${signature}`;
}

export interface ParsedJwt {
  header: JsonObject;
  claims: JsonObject;
  signingInput: string;
  signature: Buffer;
}

/** The token's parts, or undefined when it is not a compact JWS at all. */
export function parseJwt(token: string): ParsedJwt | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]*$/.test(p))) return undefined;
  try {
    const header = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8')) as unknown;
    const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as unknown;
    if (!isObject(header) || !isObject(claims)) return undefined;
    return {
      header,
      claims,
      signingInput: `${parts[0]}.${parts[1]}`,
      signature: Buffer.from(parts[2], 'base64url'),
    };
  } catch {
    return undefined;
  }
}

function isObject(v: unknown): v is JsonObject {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

export function verifySignature(jwt: ParsedJwt, publicKey: KeyObject): boolean {
  if (jwt.header.alg !== 'RS256') return false;
  return createVerify('RSA-SHA256').update(jwt.signingInput).verify(publicKey, jwt.signature);
}

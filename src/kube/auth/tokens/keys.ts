// The service-account signing key: an RSA key pair made when the control plane starts, as
// kube-apiserver's --service-account-signing-key-file. Its `kid` is what kube derives from the
// public key (pkg/serviceaccount/jwt.go keyIDFromPublicKey): base64url, unpadded, of the SHA-256
// of the DER-encoded SubjectPublicKeyInfo.
import { createHash, generateKeyPair, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';

export interface SigningKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
  kid: string;
}

export function keyId(publicKey: KeyObject): string {
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('base64url');
}

/** Generated off the event loop: RSA key generation takes a noticeable fraction of a second. */
export async function generateSigningKey(): Promise<SigningKey> {
  const { privateKey, publicKey } = await promisify(generateKeyPair)('rsa', { modulusLength: 2048 });
  return { privateKey, publicKey, kid: keyId(publicKey) };
}

/** The public key as a JSON Web Key (served at /openid/v1/jwks). */
export function publicJwk(key: SigningKey): Record<string, string> {
  const jwk = key.publicKey.export({ format: 'jwk' });
  return { use: 'sig', kty: 'RSA', kid: key.kid, alg: 'RS256', n: String(jwk.n), e: String(jwk.e) };
}

// Test certificates: a CA and serving certificates it signs, for 127.0.0.1 and localhost.
import { createCa, issueServingCert } from '../../../src/apimachinery/index.ts';
import type { PemPair } from '../../../src/apimachinery/index.ts';

export function makeCa(cn = 'test-ca'): PemPair {
  return createCa(cn);
}

/** A serving certificate for 127.0.0.1/localhost with common name `cn`. */
export function issue(ca: PemPair, cn: string): PemPair {
  return issueServingCert(ca, { commonName: cn, dnsNames: ['localhost'], ips: ['127.0.0.1'] });
}

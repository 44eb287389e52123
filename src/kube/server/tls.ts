// The embedded API server's certificates: a CA generated at start and a serving certificate it
// signs, so clients verify the server with the CA embedded in the kubeconfig instead of skipping
// verification.
import { createCa, issueServingCert } from '../../apimachinery/certs/index.ts';
import type { PemPair } from '../../apimachinery/certs/index.ts';

export interface ServingCertificates {
  ca: PemPair;
  serving: PemPair;
}

/** A CA and a serving certificate for the in-cluster names of the API server and `hosts`. */
export function generateServingCertificates(hosts: string[]): ServingCertificates {
  const ca = createCa('peerpods-ca');
  const ips = hosts.filter((h) => /^[\d.]+$/.test(h) || h.includes(':'));
  const dns = [
    'localhost',
    'kubernetes',
    'kubernetes.default',
    'kubernetes.default.svc',
    ...hosts.filter((h) => !ips.includes(h)),
  ];
  const serving = issueServingCert(ca, {
    commonName: 'kube-apiserver',
    dnsNames: [...new Set(dns)],
    ips: [...new Set(['127.0.0.1', ...ips])],
  });
  return { ca, serving };
}

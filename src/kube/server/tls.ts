// A certificate authority generated at start and a serving certificate it signs, so clients
// verify the server with the CA embedded in the kubeconfig instead of skipping verification.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';

export interface KeyPair {
  certPem: string;
  keyPem: string;
}

export interface ServingCertificates {
  ca: KeyPair;
  serving: KeyPair;
}

function rsaKeys(): { publicKey: forge.pki.PublicKey; privateKey: forge.pki.PrivateKey; privatePem: string } {
  // Node's native generator: node-forge's pure-JS one takes seconds for 2048 bits.
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return {
    publicKey: forge.pki.publicKeyFromPem(publicKey),
    privateKey: forge.pki.privateKeyFromPem(privateKey),
    privatePem: privateKey,
  };
}

function serial(): string {
  // Positive 16-byte serial (leading bit cleared).
  const b = randomBytes(16);
  b[0] &= 0x7f;
  return b.toString('hex');
}

export function generateCa(
  commonName: string,
  validDays = 3650,
): KeyPair & { key: forge.pki.PrivateKey; cert: forge.pki.Certificate } {
  const keys = rsaKeys();
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = serial();
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + validDays * 86_400_000);
  const attrs = [{ name: 'commonName', value: commonName }];
  cert.setSubject(attrs);
  cert.setIssuer(attrs);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(keys.privateKey as forge.pki.rsa.PrivateKey, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: keys.privatePem, key: keys.privateKey, cert };
}

/** A serving certificate for `dnsNames` and `ips`, signed by `ca`. */
export function issueServingCert(
  ca: { key: forge.pki.PrivateKey; cert: forge.pki.Certificate },
  commonName: string,
  dnsNames: string[],
  ips: string[],
  validDays = 365,
): KeyPair & { notAfter: Date } {
  const keys = rsaKeys();
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = serial();
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + validDays * 86_400_000);
  cert.setSubject([{ name: 'commonName', value: commonName }]);
  cert.setIssuer(ca.cert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      altNames: [...dnsNames.map((value) => ({ type: 2, value })), ...ips.map((ip) => ({ type: 7, ip }))],
    },
  ]);
  cert.sign(ca.key as forge.pki.rsa.PrivateKey, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: keys.privatePem, notAfter: cert.validity.notAfter };
}

export function generateServingCertificates(hosts: string[]): ServingCertificates {
  const ca = generateCa('peerpods-ca');
  const ips = hosts.filter((h) => /^[\d.]+$/.test(h) || h.includes(':'));
  const dns = [
    'localhost',
    'kubernetes',
    'kubernetes.default',
    'kubernetes.default.svc',
    ...hosts.filter((h) => !ips.includes(h)),
  ];
  const serving = issueServingCert(ca, 'kube-apiserver', [...new Set(dns)], [...new Set(['127.0.0.1', ...ips])]);
  return { ca: { certPem: ca.certPem, keyPem: ca.keyPem }, serving };
}

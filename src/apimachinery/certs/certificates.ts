// A small certificate authority and the serving certificates it signs, for every TLS server the
// project runs: the embedded API server, admission webhooks, and tests. node-forge signs; Node
// generates the RSA keys (forge's pure-JS generator takes seconds for 2048 bits). Certificates are
// handled as PEM so a caller can keep a CA in a Secret and sign with it again later.
import { X509Certificate, createPrivateKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';

export interface PemPair {
  certPem: string;
  keyPem: string;
}

const DAY_MS = 86_400_000;
// Clock skew between the issuer and whoever verifies.
const BACKDATE_MS = 5 * 60_000;

export interface Validity {
  /** How long the certificate is valid from `now`. */
  validMs?: number;
  /** Epoch ms to issue at. Default: now. */
  now?: number;
}

export interface ServingCertRequest extends Validity {
  /** Default: the first DNS name. */
  commonName?: string;
  /** Subject alternative names. */
  dnsNames: string[];
  ips?: string[];
}

function rsa(): { pub: forge.pki.PublicKey; priv: forge.pki.rsa.PrivateKey; privPem: string } {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return {
    pub: forge.pki.publicKeyFromPem(publicKey),
    priv: forge.pki.privateKeyFromPem(privateKey) as forge.pki.rsa.PrivateKey,
    privPem: privateKey,
  };
}

/** node-forge writes CRLF; Node and everything else write LF. One form keeps byte compares stable. */
function unix(pem: string): string {
  return pem.replace(/\r\n/g, '\n');
}

function serial(): string {
  const b = randomBytes(16);
  b[0] &= 0x7f; // positive
  return b.toString('hex');
}

function newCertificate(
  pub: forge.pki.PublicKey,
  commonName: string,
  validMs: number,
  now: number,
): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = pub;
  cert.serialNumber = serial();
  cert.validity.notBefore = new Date(now - BACKDATE_MS);
  cert.validity.notAfter = new Date(now + validMs);
  cert.setSubject([{ name: 'commonName', value: commonName }]);
  return cert;
}

/** A self-signed CA; ten years unless told otherwise. */
export function createCa(commonName: string, { validMs = 3650 * DAY_MS, now = Date.now() }: Validity = {}): PemPair {
  const k = rsa();
  const cert = newCertificate(k.pub, commonName, validMs, now);
  cert.setIssuer(cert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(k.priv, forge.md.sha256.create());
  return { certPem: unix(forge.pki.certificateToPem(cert)), keyPem: k.privPem };
}

/** A TLS server certificate for `req`'s names and addresses, signed by `ca`; one year unless told otherwise. */
export function issueServingCert(ca: PemPair, req: ServingCertRequest): PemPair {
  const { dnsNames, ips = [], validMs = 365 * DAY_MS, now = Date.now() } = req;
  const caCert = forge.pki.certificateFromPem(ca.certPem);
  const caKey = forge.pki.privateKeyFromPem(ca.keyPem) as forge.pki.rsa.PrivateKey;
  const k = rsa();
  const cert = newCertificate(k.pub, req.commonName ?? dnsNames[0] ?? 'server', validMs, now);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      altNames: [...dnsNames.map((value) => ({ type: 2, value })), ...ips.map((ip) => ({ type: 7, ip }))],
    },
  ]);
  cert.sign(caKey, forge.md.sha256.create());
  return { certPem: unix(forge.pki.certificateToPem(cert)), keyPem: k.privPem };
}

export interface CertInfo {
  notBefore: number;
  notAfter: number;
  dnsNames: string[];
}

/** Validity and DNS SANs of the first certificate in `pem`; undefined when it does not parse. */
export function certInfo(pem: string): CertInfo | undefined {
  try {
    const x = new X509Certificate(pem);
    const dnsNames = (x.subjectAltName ?? '')
      .split(', ')
      .filter((s) => s.startsWith('DNS:'))
      .map((s) => s.slice(4));
    return { notBefore: Date.parse(x.validFrom), notAfter: Date.parse(x.validTo), dnsNames };
  } catch {
    return undefined;
  }
}

/** When a certificate should be replaced: after `fraction` of its validity (default 2/3). */
export function renewAt(info: CertInfo, fraction = 2 / 3): number {
  return info.notBefore + (info.notAfter - info.notBefore) * fraction;
}

/** True when `certPem` was signed by `caPem` and `keyPem` is its private key. */
export function verifyPair(caPem: string, certPem: string, keyPem: string): boolean {
  try {
    const ca = new X509Certificate(caPem);
    const x = new X509Certificate(certPem);
    return x.checkIssued(ca) && x.verify(ca.publicKey) && x.checkPrivateKey(createPrivateKey(keyPem));
  } catch {
    return false;
  }
}

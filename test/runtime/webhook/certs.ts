// Test certificates: a CA and serving certificates it signs, for 127.0.0.1 and localhost.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';

export interface TestCa {
  certPem: string;
  key: forge.pki.PrivateKey;
  cert: forge.pki.Certificate;
}

function keys(): { pub: forge.pki.PublicKey; priv: forge.pki.PrivateKey; privPem: string } {
  // Node's generator: forge's pure-JS RSA takes seconds.
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return {
    pub: forge.pki.publicKeyFromPem(publicKey),
    priv: forge.pki.privateKeyFromPem(privateKey),
    privPem: privateKey,
  };
}

function base(cn: string, pub: forge.pki.PublicKey): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = pub;
  const serial = randomBytes(16);
  serial[0] &= 0x7f;
  cert.serialNumber = serial.toString('hex');
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 86_400_000);
  cert.setSubject([{ name: 'commonName', value: cn }]);
  return cert;
}

export function makeCa(cn = 'test-ca'): TestCa {
  const k = keys();
  const cert = base(cn, k.pub);
  cert.setIssuer(cert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
  ]);
  cert.sign(k.priv as forge.pki.rsa.PrivateKey, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), key: k.priv, cert };
}

/** A serving certificate for 127.0.0.1/localhost with common name `cn`. */
export function issue(ca: TestCa, cn: string): { certPem: string; keyPem: string } {
  const k = keys();
  const cert = base(cn, k.pub);
  cert.setIssuer(ca.cert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      altNames: [
        { type: 2, value: 'localhost' },
        { type: 7, ip: '127.0.0.1' },
      ],
    },
  ]);
  cert.sign(ca.key as forge.pki.rsa.PrivateKey, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: k.privPem };
}

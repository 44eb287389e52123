export { certInfo, createCa, issueServingCert, renewAt, verifyPair } from './certificates.ts';
export type { CertInfo, PemPair, ServingCertRequest, Validity } from './certificates.ts';

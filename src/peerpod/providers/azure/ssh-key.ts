// Azure Linux VMs must be given an SSH public key. Like upstream (4096-bit RSA, in memory, private
// half thrown away), the pod VM gets a key nobody holds: access goes through the agent, not SSH.
import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';

const generate = promisify(generateKeyPair);

function sshString(buf: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(buf.length);
  return Buffer.concat([len, buf]);
}

/** SSH mpint: big-endian, with a leading zero byte when the top bit is set (it is not negative). */
function sshMpint(b64url: string): Buffer {
  let raw = Buffer.from(b64url, 'base64url');
  if (raw[0] & 0x80) raw = Buffer.concat([Buffer.from([0]), raw]);
  return sshString(raw);
}

/** `ssh-rsa AAAA…` (authorized_keys format) of a fresh key pair. */
export async function generateSshPublicKey(bits = 4096): Promise<string> {
  const { publicKey } = await generate('rsa', { modulusLength: bits });
  const jwk = publicKey.export({ format: 'jwk' });
  if (!jwk.e || !jwk.n) throw new Error('RSA public key without e/n');
  const blob = Buffer.concat([sshString(Buffer.from('ssh-rsa')), sshMpint(jwk.e), sshMpint(jwk.n)]);
  return `ssh-rsa ${blob.toString('base64')}`;
}

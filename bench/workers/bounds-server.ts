// The control plane whose memory the bounds benchmark measures, alone in this process so its RSS
// is the server's own. Sends `{ ready: { url, caPem, token } }`, then serves until told `stop`.
import { startControlPlane } from '../../src/kube/index.ts';

const cp = await startControlPlane({ publishRootCaConfigMaps: false });
process.send?.({ ready: { url: cp.url, caPem: cp.caPem, token: cp.token } });
process.on('message', (m: unknown) => {
  if (m === 'stop') void cp.stop().then(() => process.exit(0));
});

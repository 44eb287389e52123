import { startControlPlane } from '../src/kube/index.ts';
const cp = await startControlPlane();
console.log('ok', cp.url);
await cp.stop();

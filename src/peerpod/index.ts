// peerpods/peerpod: the PeerPod and PeerPodConfig APIs, their controllers, the pod webhook and the
// cloud providers they drive.
export * from './api/index.ts';
export * from './controllers/index.ts';
export * as providers from './providers/index.ts';
export * as webhook from './webhook/index.ts';
export * as adaptor from './adaptor/index.ts';
export * from './main/index.ts';
export * from './demo/index.ts';

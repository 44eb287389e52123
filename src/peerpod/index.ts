// peerpods/peerpod: the PeerPod API, its controller and the cloud providers it drives.
export * from './api/index.ts';
export * from './controllers/index.ts';
export * as providers from './providers/index.ts';

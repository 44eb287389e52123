export * from './peerpod/index.ts';
export { Semaphore } from './semaphore.ts';
export * from './peerpodconfig/index.ts';

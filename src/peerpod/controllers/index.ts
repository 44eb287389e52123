export * from './peerpod/index.ts';
export { Semaphore } from './semaphore.ts';

export * from './storage.ts';
export { MemoryStorage, type MemoryStorageOptions } from './memory.ts';

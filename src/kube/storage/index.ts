export * from './storage.ts';
export { MemoryStorage, type MemoryStorageOptions } from './memory.ts';
export type { StorageJournal, StorageSnapshot } from './journal.ts';
export {
  SqliteStorage,
  StorageLockedError,
  StorageOpenError,
  STORE_FILE,
  type SqliteStorageOptions,
  type SqliteSynchronous,
} from './sqlite.ts';
export { EtcdStorage, EtcdStorageError, type EtcdStorageOptions } from './etcd/storage.ts';
export { LocalEtcd, type LocalEtcdOptions } from './etcd/local.ts';

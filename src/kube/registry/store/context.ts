// What every verb of the object store shares, passed explicitly instead of living on a class.
import type { Storage } from '../../storage/storage.ts';
import type { Admission } from '../context.ts';

export interface StoreContext {
  readonly storage: Storage;
  /** Replaced once the webhook dispatcher is wired, after the store exists. */
  admission: Admission;
  readonly now: () => Date;
}

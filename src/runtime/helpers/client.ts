// The client calls the helpers make, as a structural type so tests can pass a fake.
import type { KubeClient } from '../client/client.ts';

export type HelperClient = Pick<KubeClient, 'get' | 'create' | 'patch'>;

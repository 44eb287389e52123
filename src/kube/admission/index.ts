export { WebhookAdmission } from './dispatcher.ts';
export type { WebhookAdmissionOptions } from './dispatcher.ts';
export { endpointsResolver } from './resolver.ts';
export type { ServiceAddress, ServiceResolver } from './types.ts';

// CRD conversion webhooks: the ConversionReview exchange and its checks.
export { WebhookConverter, webhookConverterFor } from './webhook-converter.ts';

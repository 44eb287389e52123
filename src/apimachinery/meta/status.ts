// metav1.Status: the body of every API error (and of some successful deletes). Fields are
// optional as a client must read them; the server's StatusError always fills them in.

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion?: string;
  metadata?: Record<string, unknown>;
  status?: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code?: number;
}

/** Recognises a Status body among other responses (a watch ERROR object, a plain-text 404, ...). */
export function isStatus(body: unknown): body is Status {
  return typeof body === 'object' && body !== null && (body as { kind?: unknown }).kind === 'Status';
}

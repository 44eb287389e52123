// The Service Quotas endpoint at the SDK's transport layer (AWS JSON 1.1: `X-Amz-Target` names the
// operation, the body is JSON), given to the ServiceQuotasClient as its `requestHandler`, so the
// real SDK builds, signs, retries and parses every request; only the network is fake.

export interface QuotasCall {
  /** The operation, e.g. `GetServiceQuota` (the target without `ServiceQuotasV20190624.`). */
  operation: string;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

export interface QuotasReply {
  status?: number;
  body: unknown;
}

/** An error as the service sends it: the type in `__type` (and the header the SDK also reads). */
export function quotasError(type: string, message: string, status = 400): QuotasReply {
  return { status, body: { __type: type, message } };
}

export function quotaReply(value: number, code = 'L-1216C47A'): QuotasReply {
  return {
    body: {
      Quota: {
        ServiceCode: 'ec2',
        QuotaCode: code,
        QuotaName: 'Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances',
        Value: value,
        Unit: 'None',
      },
    },
  };
}

export class FakeServiceQuotas {
  readonly calls: QuotasCall[] = [];
  private readonly replies = new Map<string, QuotasReply[]>();

  /** Queues a reply for the next call of `operation`. */
  once(operation: string, reply: QuotasReply): this {
    this.replies.set(operation, [...(this.replies.get(operation) ?? []), reply]);
    return this;
  }

  operations(): string[] {
    return this.calls.map((c) => c.operation);
  }

  readonly requestHandler = {
    handle: async (req: { body?: unknown; headers: Record<string, string> }) => {
      const target = req.headers['x-amz-target'] ?? '';
      const call: QuotasCall = {
        operation: target.replace(/^ServiceQuotasV20190624\./, ''),
        body: JSON.parse(String(req.body ?? '{}')) as Record<string, unknown>,
        headers: req.headers,
      };
      this.calls.push(call);
      const reply = this.replies.get(call.operation)?.shift();
      if (!reply) throw new Error(`fake Service Quotas: no reply for ${target}`);
      const type = (reply.body as { __type?: string }).__type;
      return {
        response: {
          statusCode: reply.status ?? 200,
          headers: {
            'content-type': 'application/x-amz-json-1.1',
            ...(type ? { 'x-amzn-errortype': type } : {}),
          },
          body: Buffer.from(JSON.stringify(reply.body)),
        },
      };
    },
  };
}

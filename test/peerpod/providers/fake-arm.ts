// Azure Resource Manager at the SDK's transport layer: passed as `httpClient` to the compute
// client, so the real SDK builds requests, authenticates, retries and polls long-running operations.
import {
  createHttpHeaders,
  type HttpClient,
  type PipelineRequest,
  type PipelineResponse,
} from '@azure/core-rest-pipeline';

export interface ArmCall {
  method: string;
  url: URL;
  body: unknown;
  authorization: string | undefined;
}

export interface ArmReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

type Route = { method: string; path: RegExp; reply: ArmReply | ((call: ArmCall) => ArmReply); times: number };

export const ARM = 'https://management.azure.com';

export class FakeArm {
  readonly calls: ArmCall[] = [];
  private readonly routes: Route[] = [];

  /** Replies to `times` matching calls (Infinity by default); earlier routes win while they last. */
  on(method: string, path: RegExp, reply: ArmReply | ((call: ArmCall) => ArmReply), times = Infinity): this {
    this.routes.push({ method, path, reply, times });
    return this;
  }

  once(method: string, path: RegExp, reply: ArmReply | ((call: ArmCall) => ArmReply)): this {
    return this.on(method, path, reply, 1);
  }

  summary(): string[] {
    return this.calls.map((c) => `${c.method} ${c.url.pathname}`);
  }

  readonly httpClient: HttpClient = {
    sendRequest: async (request: PipelineRequest): Promise<PipelineResponse> => {
      const url = new URL(request.url);
      const body = typeof request.body === 'string' && request.body ? (JSON.parse(request.body) as unknown) : undefined;
      const call: ArmCall = { method: request.method, url, body, authorization: request.headers.get('authorization') };
      this.calls.push(call);
      const route = this.routes.find((r) => r.times > 0 && r.method === request.method && r.path.test(url.pathname));
      if (!route) throw new Error(`fake ARM: no route for ${request.method} ${url.pathname}`);
      route.times--;
      const reply = typeof route.reply === 'function' ? route.reply(call) : route.reply;
      const headers = createHttpHeaders({ 'content-type': 'application/json', ...reply.headers });
      return {
        request,
        status: reply.status,
        headers,
        bodyAsText: reply.body === undefined ? '' : JSON.stringify(reply.body),
      };
    },
  };
}

export function armError(status: number, code: string, message = code): ArmReply {
  return { status, body: { error: { code, message } } };
}

export const fakeCredential = {
  getToken: async () => ({ token: 'fake-token', expiresOnTimestamp: Date.now() + 3_600_000 }),
};

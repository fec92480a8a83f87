import { randomUUID } from 'node:crypto';
import type { Client } from '@a2a-js/sdk/client';
import type { Part, SendMessageRequest } from '@a2a-js/sdk';

export type A2aSdk = typeof import('@a2a-js/sdk');

// The SDK's main entry points load jose (ESM-only): jest reaches them through import(), so they load once, in a beforeAll.
let sdk: A2aSdk | undefined;

/** The SDK's main module (its enums: TaskState, Role); call it in a beforeAll, before messageRequest. */
export async function loadA2aSdk(): Promise<A2aSdk> {
  sdk ??= await import('@a2a-js/sdk');
  return sdk;
}

/** A fetch that adds the bearer key to every request, the way an agent's HTTP layer would; none without a key. */
export const withKey =
  (key?: string): typeof fetch =>
  (input, init) => {
    const headers = new Headers(init?.headers);
    if (key) headers.set('Authorization', `Bearer ${key}`);
    return fetch(input, { ...init, headers });
  };

/** The SDK's v1.0 client with a key, resolved from the service's origin (it fetches /.well-known/agent-card.json itself). */
export async function a2aClient(baseUrl: string, key?: string): Promise<Client> {
  const { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } = await import('@a2a-js/sdk/client');
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory({ fetchImpl: withKey(key) })] });
  return new ClientFactory(options).createFromUrl(baseUrl);
}

/** A part carrying JSON (a skill call: `{ skill, input }`). */
export const dataPart = (value: unknown): Part => ({ content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' });

/** A user's SendMessage request of these parts, in a context, with a push notification config set at send when given. */
export function messageRequest(parts: Part[], contextId = '', push?: { url: string; token: string }): SendMessageRequest {
  if (!sdk) throw new Error('messageRequest before loadA2aSdk(): load the SDK in a beforeAll');
  return {
    tenant: '',
    message: { messageId: randomUUID(), contextId, taskId: '', role: sdk.Role.ROLE_USER, parts, metadata: undefined, extensions: [], referenceTaskIds: [] },
    configuration: push
      ? {
          acceptedOutputModes: [],
          returnImmediately: false,
          taskPushNotificationConfig: { tenant: '', id: 'at-send', taskId: '', url: push.url, token: push.token, authentication: undefined },
        }
      : undefined,
    metadata: undefined,
  };
}

// A `Backend` for unit tests: the methods a test gives, recorded; any other call rejects, so a
// test notices when the code under test asks for something it did not expect.

import type { Backend } from '../src/backend/backend';
import type { SettingsView } from '../src/backend/types';

export type Calls = { method: string; args: unknown[] }[];

export function fakeBackend(methods: Partial<Backend>): { backend: Backend; calls: Calls } {
  const calls: Calls = [];
  const backend = new Proxy({} as Backend, {
    get(_target, prop: string) {
      return (...args: unknown[]) => {
        calls.push({ method: prop, args });
        const fn = (methods as Record<string, ((...a: unknown[]) => unknown) | undefined>)[prop];
        return fn ? Promise.resolve().then(() => fn(...args)) : Promise.reject(new Error(`fake backend: unexpected ${prop}()`));
      };
    },
  });
  return { backend, calls };
}

export function settingsView(over: Partial<SettingsView> = {}): SettingsView {
  return {
    custom_instructions: '',
    endpoint_url: 'http://127.0.0.1:8080/v1',
    api_key_set: false,
    model: '',
    temperature: null,
    top_p: null,
    max_tokens: null,
    context_length: null,
    first_byte_timeout_secs: 300,
    idle_timeout_secs: 60,
    language: 'en',
    theme: 'system',
    attachment_max_mb: 50,
    ...over,
  };
}

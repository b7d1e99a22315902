import { beforeEach, describe, expect, it } from 'vitest';
import { App } from '../src/app';
import { ApiError } from '../src/backend/backend';
import type { DemoModel } from '../src/backend/generated';
import type { FoundServer } from '../src/backend/types';
import { setLanguage } from '../src/lib/i18n';
import { mountServerBanner } from '../src/views/serverBanner';
import { connection, connectionRoutes, fakeBackend, settingsView } from './fakeBackend';

const LLAMA: FoundServer = { base_url: 'http://127.0.0.1:8000/v1', kind_guess: 'llama.cpp', models: ['SmolLM2-135M-Instruct', 'b', 'c'], needs_api_key: false };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const unreachable = () => Promise.reject(new ApiError('model_server.unreachable', 'Cannot connect to http://127.0.0.1:8080/v1', 502));

function setup(methods: Parameters<typeof fakeBackend>[0], settings = settingsView()) {
  const { backend, calls } = fakeBackend(methods);
  const app = new App(backend);
  app.config.settings = settings;
  const el = document.createElement('div');
  document.body.replaceChildren(el);
  mountServerBanner(app, el);
  return { app, el, calls };
}

describe('offering a local model server at start', () => {
  beforeEach(() => setLanguage('en'));

  it('offers what answers when the configured server cannot be reached; Use it adds it as a server and makes it the default', async () => {
    const routes = connectionRoutes([connection()]);
    const { app, el, calls } = setup({ ...routes.methods, listModels: unreachable, probeServers: async () => [LLAMA] });
    expect(el.hidden).toBe(true);
    await app.config.checkModelServer();
    expect(el.hidden).toBe(false);
    expect(el.textContent).toContain('The model server at http://127.0.0.1:8080/v1 does not answer.');
    const offer = el.querySelector('[data-testid=server-offer]')!;
    expect(offer.textContent).toContain('Found llama.cpp at http://127.0.0.1:8000/v1 (SmolLM2-135M-Instruct, b…) — ');
    (offer.querySelector('[data-testid=use-server]') as HTMLButtonElement).click();
    await sleep(10);
    expect(routes.store.map((c) => [c.name, c.base_url, c.is_default]), 'kept as a server of the user’s, named after what it is and its port, and the default: the one that was did not answer')
      .toEqual([['127.0.0.1:8080', 'http://127.0.0.1:8080/v1', false], ['llama.cpp (8000)', 'http://127.0.0.1:8000/v1', true]]);
    expect(routes.store[1].default_model, 'its first model is its default model').toBe('SmolLM2-135M-Instruct');
    expect(calls.filter((c) => c.method === 'updateConnection').map((c) => c.args), 'made the default with its model in one request: the settings never show the new address with the old model')
      .toEqual([[2, { is_default: true, default_model: 'SmolLM2-135M-Instruct' }]]);
    expect([app.config.settings?.endpoint_url, app.config.settings?.model], 'the settings’ address and model are the new default server’s').toEqual(['http://127.0.0.1:8000/v1', 'SmolLM2-135M-Instruct']);
    expect(app.config.serverOffer).toBeNull();
    expect(el.hidden).toBe(true);
    expect(calls.map((c) => c.method).filter((m) => m !== 'listModels')).toEqual(['probeServers', 'listConnections', 'createConnection', 'updateConnection']);
  });

  it('Use it never adds a server twice: one with the address already is made the default (and on), and a double click adds one', async () => {
    const routes = connectionRoutes([connection(), connection({ id: 2, name: 'My llama', base_url: 'http://127.0.0.1:8000/v1/', enabled: false, is_default: false })]);
    const { app, el, calls } = setup({ ...routes.methods, listModels: unreachable, probeServers: async () => [LLAMA] });
    await app.config.checkModelServer();
    const use = el.querySelector<HTMLButtonElement>('[data-testid=use-server]')!;
    use.click();
    use.click();
    await sleep(10);
    expect(calls.filter((c) => c.method === 'createConnection'), 'the address is known already (a trailing slash aside): nothing is added').toEqual([]);
    expect(calls.filter((c) => c.method === 'updateConnection').map((c) => c.args), 'the one with that address becomes the default, turned on, with the first model it lists, once')
      .toEqual([[2, { enabled: true, is_default: true, default_model: 'SmolLM2-135M-Instruct' }]]);
    expect(routes.store.map((c) => [c.name, c.is_default, c.enabled])).toEqual([['127.0.0.1:8080', false, true], ['My llama', true, true]]);

    // A server not known yet, asked twice before the first answer: one server.
    const fresh = connectionRoutes([connection()]);
    const second = setup({ ...fresh.methods, listModels: unreachable, probeServers: async () => [LLAMA] });
    await second.app.config.checkModelServer();
    const twice = second.el.querySelector<HTMLButtonElement>('[data-testid=use-server]')!;
    twice.click();
    twice.click();
    await sleep(10);
    expect(fresh.store.filter((c) => c.base_url === LLAMA.base_url), 'one server for one address').toHaveLength(1);
  });

  it('offers the demo model when nothing answers and it can run here, and makes it the default server', async () => {
    const routes = connectionRoutes([connection()]);
    const { app, el, calls } = setup({
      ...routes.methods,
      listModels: unreachable,
      probeServers: async () => [],
      demoModel: async () => ({ available: true, base_url: null, model: 'SmolLM2-135M-demo', starting: false, connection_id: null }),
      startDemoModel: async () => ({ available: true, base_url: 'http://127.0.0.1:41000/v1', model: 'SmolLM2-135M-demo', starting: false, connection_id: null }),
    });
    await app.config.checkModelServer();
    expect(el.textContent, 'the offer says plainly it is a tiny demo and how to connect a real server').toContain('tiny demo model');
    expect(el.textContent).toContain('vLLM, Ollama or LM Studio');
    (el.querySelector('[data-testid=start-demo]') as HTMLButtonElement).click();
    await sleep(10);
    expect(routes.store.find((c) => c.is_default)?.base_url, 'the next message goes to the demo model').toBe('http://127.0.0.1:41000/v1');
    expect(app.config.settings?.model, 'and its model').toBe('SmolLM2-135M-demo');
    expect(app.config.serverOffer, 'once it runs, the banner goes').toBeNull();
    expect(calls.map((c) => c.method).filter((m) => m !== 'listModels')).toEqual(['probeServers', 'demoModel', 'startDemoModel', 'listConnections', 'createConnection', 'updateConnection']);
  });

  it('on a first run (no server set up) asks for one without naming an address, and shows the demo model loading', async () => {
    const routes = connectionRoutes([]);
    let started!: (v: DemoModel) => void;
    const { app, el } = setup({
      ...routes.methods,
      listModels: () => Promise.reject(new ApiError('no_server', 'no model server is set up yet', 400)),
      probeServers: async () => [],
      demoModel: async () => ({ available: true, base_url: null, model: 'SmolLM2-135M-demo', starting: false, connection_id: null }),
      startDemoModel: () => new Promise((resolve) => (started = resolve)),
    }, settingsView({ endpoint_url: '' }));
    await app.config.checkModelServer();
    expect(el.textContent, 'a first run says no server is set up; it names no address nobody chose').toContain('No model server is set up yet.');
    expect(el.textContent).not.toContain('does not answer');
    const start = el.querySelector<HTMLButtonElement>('[data-testid=start-demo]')!;
    start.click();
    await sleep(0);
    const loading = el.querySelector<HTMLButtonElement>('[data-testid=start-demo]')!;
    expect([loading.disabled, loading.textContent], 'while it loads the button says so and cannot start a second one').toEqual([true, 'Starting the demo model…']);
    started({ available: true, base_url: 'http://127.0.0.1:41000/v1', model: 'SmolLM2-135M-demo', starting: false, connection_id: 1 });
    await sleep(10);
    expect(app.config.serverOffer, 'once it runs, the banner goes').toBeNull();
  });

  it('does not offer the demo model when it is not on this machine', async () => {
    const { app, el } = setup({ listModels: unreachable, probeServers: async () => [], demoModel: async () => ({ available: false, base_url: null, model: 'm', starting: false, connection_id: null }) });
    await app.config.checkModelServer();
    expect(el.querySelector('[data-testid=start-demo]')).toBeNull();
  });

  it('says so when nothing answers on the usual ports, in Korean too', async () => {
    const { app, el } = setup({ listModels: unreachable, probeServers: async () => [] });
    await app.config.checkModelServer();
    expect(el.textContent).toContain('No model server found on the usual ports (8000, 8080, 11434, 1234). Start one, or set its address in Settings.');
    expect(el.querySelector('[data-testid=server-banner-settings]')?.textContent).toBe('Settings');
    expect(el.querySelector('[data-testid=server-offer]')).toBeNull();
    setLanguage('ko');
    app.emit('settings');
    expect(el.textContent).toContain('모델 서버를 찾지 못했습니다');
    app.config.dismissServerOffer();
    expect(el.hidden).toBe(true);
  });

  it('leaves the configured server out of the offers', async () => {
    const here: FoundServer = { ...LLAMA, base_url: 'http://127.0.0.1:8080/v1' };
    const { app, el } = setup({ listModels: unreachable, probeServers: async () => [here] });
    await app.config.checkModelServer();
    expect(el.querySelector('[data-testid=server-offer]')).toBeNull();
    expect(el.textContent).toContain('No model server found');
  });

  it('does nothing when the configured server lists models', async () => {
    const { app, el, calls } = setup({ listModels: async () => [{ id: 'm', context_length: null, owned_by: null }] });
    await app.config.checkModelServer();
    expect(app.config.serverOffer).toBeNull();
    expect(el.hidden).toBe(true);
    expect(calls.map((c) => c.method)).toEqual(['listModels']);
  });

  it('does not probe for errors other than an unreachable server', async () => {
    const { app, calls } = setup({ listModels: () => Promise.reject(new ApiError('model_server.unauthorized', 'The server requires an API key', 502)) });
    await app.config.checkModelServer();
    expect(app.config.serverOffer).toBeNull();
    expect(calls.map((c) => c.method)).toEqual(['listModels']);
  });

  it('offers another server when no model is set and the configured one lists none', async () => {
    const { app, el } = setup({ listModels: async () => [], probeServers: async () => [LLAMA] });
    await app.config.checkModelServer();
    expect(el.textContent).toContain('No model is set, and the server at http://127.0.0.1:8080/v1 lists none.');
    expect(el.querySelectorAll('[data-testid=server-offer]')).toHaveLength(1);
  });

  it('stays quiet when a model is set even if none is listed', async () => {
    const { app, calls } = setup({ listModels: async () => [] }, settingsView({ model: 'my-model' }));
    await app.config.checkModelServer();
    expect(app.config.serverOffer).toBeNull();
    expect(calls.map((c) => c.method)).toEqual(['listModels']);
  });
});

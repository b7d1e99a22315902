// The few W3C WebDriver commands the window test needs, over fetch (tauri-driver speaks the
// protocol on a local port and drives the real Maru window through WebKitWebDriver).

const ELEMENT = 'element-6066-11e4-a52e-4f735466cecf';

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export class WebDriver {
  constructor(base) {
    this.base = base;
    this.session = null;
  }

  async cmd(method, route, body) {
    const res = await fetch(this.base + route, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      // A launch that fails leaves the driver waiting for a window: say so instead of hanging.
      signal: AbortSignal.timeout(90_000),
    }).catch((e) => {
      throw new Error(`${method} ${route}: ${e.name === 'TimeoutError' ? 'no answer within 90 s' : e.message}`);
    });
    const json = await res.json().catch(() => ({}));
    if (!res.ok || json.value?.error) throw new Error(`${method} ${route}: ${json.value?.error ?? res.status}: ${json.value?.message ?? ''}`);
    return json.value;
  }

  s(route) {
    return `/session/${this.session}${route}`;
  }

  /** Launches the app: `tauri:options` names the binary and its arguments. */
  async start(application, args) {
    const value = await this.cmd('POST', '/session', { capabilities: { alwaysMatch: { 'tauri:options': { application, args } } } });
    this.session = value.sessionId;
  }

  async quit() {
    if (this.session) await this.cmd('DELETE', `/session/${this.session}`).catch(() => {});
    this.session = null;
  }

  /** Runs a script in the page; `args` are passed as `arguments`, async scripts may return a promise. */
  exec(script, args = []) {
    return this.cmd('POST', this.s('/execute/sync'), { script, args });
  }

  async find(css) {
    const found = await this.cmd('POST', this.s('/elements'), { using: 'css selector', value: css });
    return found.map((e) => e[ELEMENT]);
  }

  /** Waits for an element matching `css` (and holding `text`, when given); returns its id. */
  async waitFor(css, { text, timeout = 15_000, why = '' } = {}) {
    const until = Date.now() + timeout;
    let seen = [];
    while (Date.now() < until) {
      seen = [];
      for (const id of await this.find(css)) {
        const t = await this.text(id).catch(() => '');
        seen.push(t);
        if (text === undefined || t.includes(text)) return id;
      }
      await sleep(100);
    }
    throw new Error(`no ${css}${text ? ` holding ${JSON.stringify(text)}` : ''} within ${timeout} ms (${why}); saw ${JSON.stringify(seen.slice(0, 5))}`);
  }

  /** A reference to an element, to pass to `exec`. */
  ref(id) {
    return { [ELEMENT]: id };
  }

  /** The element's text as the page holds it (the driver's "visible text" skips parts of it). */
  text(id) {
    return this.exec('return arguments[0].textContent', [this.ref(id)]);
  }

  click(id) {
    return this.cmd('POST', this.s(`/element/${id}/click`), {});
  }

  type(id, text) {
    return this.cmd('POST', this.s(`/element/${id}/value`), { text });
  }

  rect(id) {
    return this.cmd('GET', this.s(`/element/${id}/rect`));
  }

  /** A PNG of one element, as the window draws it. */
  async shot(id) {
    return Buffer.from(await this.cmd('GET', this.s(`/element/${id}/screenshot`)), 'base64');
  }

  async windowShot() {
    return Buffer.from(await this.cmd('GET', this.s('/screenshot')), 'base64');
  }
}

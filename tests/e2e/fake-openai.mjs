// A tiny OpenAI-compatible model server for the browser test: `/v1/models`, and
// `/v1/chat/completions` streamed as SSE chunks (content pieces with a short pause between them,
// a finish chunk, a usage chunk, `data: [DONE]`). It records every chat request it gets.

import http from 'node:http';

export const MODEL = 'fake-model-7b';

/** The pieces of every reply; joined: REPLY_TEXT. */
export const REPLY_PIECES = [
  'Hello', ' from', ' the', ' **fake**', ' model', '.', '\n\n',
  'Here', ' is', ' some', ' code:', '\n\n',
  '```js\n', 'console.log("<b>not bold</b>");\n', '```\n\n',
  '- one\n', '- two\n',
];
export const REPLY_TEXT = REPLY_PIECES.join('');

/** Listens on 127.0.0.1:`port` (any free port by default); rejects when the port is taken. */
export async function startFakeOpenAi({ pieceDelayMs = 120, port: wanted = 0 } = {}) {
  const requests = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', async () => {
      const url = new URL(req.url, 'http://localhost');
      if (req.method === 'GET' && url.pathname === '/v1/models') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [{ id: MODEL, object: 'model', owned_by: 'e2e', max_model_len: 8192 }] }));
        return;
      }
      if (req.method === 'POST' && url.pathname === '/v1/chat/completions') {
        let parsed = null;
        try {
          parsed = JSON.parse(body);
        } catch {
          res.writeHead(400, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { message: 'bad json' } }));
          return;
        }
        requests.push(parsed);
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
        const id = `chatcmpl-${requests.length}`;
        const chunk = (obj) => res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model: MODEL, ...obj })}\n\n`);
        chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
        for (const piece of REPLY_PIECES) {
          await sleep(pieceDelayMs);
          if (res.destroyed) return;
          chunk({ choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] });
        }
        chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
        chunk({ choices: [], usage: { prompt_tokens: 412, completion_tokens: REPLY_PIECES.length, total_tokens: 412 + REPLY_PIECES.length, prompt_tokens_details: { cached_tokens: 384 } } });
        res.write('data: [DONE]\n\n');
        res.end();
        return;
      }
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `no route ${req.method} ${url.pathname}` } }));
    });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(wanted, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address();
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise((resolve) => {
      server.closeAllConnections?.();
      server.close(() => resolve());
    }),
  };
}

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

// A tiny OpenAI-compatible model server for the browser test: `/v1/models`, and
// `/v1/chat/completions` streamed as SSE chunks (content pieces with a short pause between them,
// a finish chunk, a usage chunk, `data: [DONE]`). It records every chat request it gets.
//
// Scripted tool calls: when the last message is the user's and holds a marker of `toolScripts`
// (REMEMBER_MARKER by default) and the request offers that tool, the reply is a call to it, as
// OpenAI streams one (`tool_calls` deltas, the arguments in pieces, `finish_reason: "tool_calls"`).
// Asked again after the tool's result (the last message is `role: "tool"`), it answers with
// AFTER_TOOL_TEXT.

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

/** In the user's last message: the reply comes slowly (SLOW_PIECE_MS between pieces), to leave and come back meanwhile. */
export const SLOW_MARKER = '#slow';
export const SLOW_PIECE_MS = 700;

/** In the user's last message: a reply with highlighted code, math and a table (MARKDOWN_PIECES). */
export const MARKDOWN_MARKER = '#markdown';
export const MARKDOWN_PIECES = [
  'Sorting', ' in', ' Python:', '\n\n',
  '```python\n', 'def total(xs):\n', '    # add them up\n', '    return sum(sorted(xs))\n', '```\n\n',
  'It', ' runs', ' in', ' $O(n', ' \\log n)$', ' time,', ' and', '\n\n',
  '$$\n', '\\sum_{i=1}^{n} i = \\frac{n(n+1)}{2}\n', '$$\n\n',
  '| n | sum |\n', '|---|---|\n', '| 3 | 6 |\n\n',
  'snake__case__word', ' stays', ' as', ' written.',
];

/** In the user's last message: the reply names the request, "Answer N." (N counts the turns' requests), so versions differ. */
export const NUMBERED_MARKER = '#numbered';

/** In the user's last message: a long reply, `longPieces` words `longPieceMs` apart (200 a second by default). */
export const LONG_MARKER = '#long';
/** The last words of a long reply. */
export const LONG_END = 'The end of the long reply.';

/** A long reply's pieces: numbered words in paragraphs of 40, a list now and then, then LONG_END. */
export function longPieces(n) {
  const pieces = [];
  for (let i = 1; i <= n; i++) {
    pieces.push(i % 40 === 0 ? ` w${i}.\n\n` : i % 100 === 50 ? '\n\n- item one\n- item **two**\n\n' : ` w${i}`);
  }
  pieces.push(` ${LONG_END}`);
  return pieces;
}

/** In a user message: the model calls `remember` with REMEMBER_FACT. */
export const REMEMBER_MARKER = '#remember';
export const REMEMBER_FACT = 'Prefers answers in Korean.';
/** What the model says once a tool has answered. */
export const AFTER_TOOL_PIECES = ['Noted', ' —', ' I', ' will', ' keep', ' that', ' in', ' mind', '.'];
export const AFTER_TOOL_TEXT = AFTER_TOOL_PIECES.join('');

/** The scripted calls: a marker in the user's message, the tool to call and its arguments. */
export const DEFAULT_TOOL_SCRIPTS = [{ marker: REMEMBER_MARKER, name: 'remember', arguments: { fact: REMEMBER_FACT } }];

/** A message's text, whether its content is a string or a list of parts. */
export function textOf(message) {
  const c = message?.content;
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map((p) => (typeof p?.text === 'string' ? p.text : '')).join('');
  return '';
}

/** The names of the tools a request offers. */
export function offeredTools(request) {
  return (request?.tools ?? []).map((t) => t?.function?.name).filter(Boolean);
}

/** Listens on 127.0.0.1:`port` (any free port by default); rejects when the port is taken. */
/** `replyPieces`: the plain reply's pieces (REPLY_PIECES by default; the Korean test sends Korean ones). */
/** `model`: the one model it lists and answers as (MODEL by default; a second server lists another). */
export async function startFakeOpenAi({ model: listed = MODEL, pieceDelayMs = 120, port: wanted = 0, toolScripts = DEFAULT_TOOL_SCRIPTS, longPieces: longCount = 600, longPieceMs = 5, maxModelLen = 8192, replyPieces = REPLY_PIECES } = {}) {
  const requests = [];
  const extractions = [];
  const titles = [];
  /** What the next title requests answer, in order (an empty answer once they run out). */
  const titleAnswers = [];
  /** The tool calls made, in order: `{ id, name, arguments }` (arguments as sent, a JSON string). */
  const toolCalls = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', async () => {
      const url = new URL(req.url, 'http://localhost');
      if (req.method === 'GET' && url.pathname === '/v1/models') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [{ id: listed, object: 'model', owned_by: 'e2e', max_model_len: maxModelLen }] }));
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
        // Maru's background memory extraction (the chat, then its task: the template's first words) is answered with an
        // empty list and kept apart, so that turn assertions count only the turns' requests.
        // A chat's title, asked after its first exchange or from the chat's menu: `titleAnswers`,
        // else an empty answer (the first message's title stays, which the tests read), kept apart the same way.
        if (textOf(parsed.messages?.at(-1) ?? {}).startsWith('Write a title for this conversation')) {
          titles.push(parsed);
          res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
          const content = titleAnswers.shift() ?? '';
          res.write(`data: ${JSON.stringify({ id: 'title', object: 'chat.completion.chunk', created: 0, model: listed, choices: [{ index: 0, delta: { content }, finish_reason: 'stop' }] })}\n\n`);
          res.end('data: [DONE]\n\n');
          return;
        }
        if (textOf(parsed.messages?.at(-1) ?? {}).startsWith('Find lasting facts about the user')) {
          extractions.push(parsed);
          res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
          res.write(`data: ${JSON.stringify({ id: 'extract', object: 'chat.completion.chunk', created: 0, model: listed, choices: [{ index: 0, delta: { content: '[]' }, finish_reason: 'stop' }] })}\n\n`);
          res.end('data: [DONE]\n\n');
          return;
        }
        requests.push(parsed);
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
        const id = `chatcmpl-${requests.length}`;
        const chunk = (obj) => res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model: listed, ...obj })}\n\n`);
        const last = parsed.messages?.at(-1);
        const script = last?.role === 'user'
          ? toolScripts.find((s) => textOf(last).includes(s.marker) && offeredTools(parsed).includes(s.name))
          : undefined;
        chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
        if (script) {
          // A call to the tool: its id and name first, then the arguments in two pieces.
          const call = { id: `call_${toolCalls.length + 1}`, name: script.name, arguments: JSON.stringify(script.arguments) };
          toolCalls.push(call);
          const cut = Math.ceil(call.arguments.length / 2);
          await sleep(pieceDelayMs);
          chunk({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments.slice(0, cut) } }] }, finish_reason: null }] });
          await sleep(pieceDelayMs);
          if (res.destroyed) return;
          chunk({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: call.arguments.slice(cut) } }] }, finish_reason: null }] });
          chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] });
          chunk({ choices: [], usage: { prompt_tokens: 400, completion_tokens: 12, total_tokens: 412 } });
          res.write('data: [DONE]\n\n');
          res.end();
          return;
        }
        const long = last?.role === 'user' && textOf(last).includes(LONG_MARKER);
        const markdown = last?.role === 'user' && textOf(last).includes(MARKDOWN_MARKER);
        const numbered = last?.role === 'user' && textOf(last).includes(NUMBERED_MARKER) ? ['Answer ', String(requests.length), '.'] : null;
        const pieces = last?.role === 'tool' ? AFTER_TOOL_PIECES : long ? longPieces(longCount) : markdown ? MARKDOWN_PIECES : numbered ?? replyPieces;
        const delay = last?.role === 'user' && textOf(last).includes(SLOW_MARKER) ? SLOW_PIECE_MS : long ? longPieceMs : pieceDelayMs;
        // Sleeps are kept to the schedule (setTimeout is late by a millisecond or so each time).
        const begun = Date.now();
        for (const [i, piece] of pieces.entries()) {
          if (long) await sleep(Math.max(0, begun + (i + 1) * delay - Date.now()));
          else await sleep(delay);
          if (res.destroyed) return;
          chunk({ choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] });
        }
        chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
        chunk({ choices: [], usage: { prompt_tokens: 412, completion_tokens: pieces.length, total_tokens: 412 + pieces.length, prompt_tokens_details: { cached_tokens: 384 } } });
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
    extractions,
    titles,
    titleAnswers,
    toolCalls,
    close: () => new Promise((resolve) => {
      server.closeAllConnections?.();
      server.close(() => resolve());
    }),
  };
}

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

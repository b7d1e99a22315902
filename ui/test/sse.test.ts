import { describe, expect, it } from 'vitest';
import { SseParser, readSse, type SseEvent } from '../src/backend/sse';

function feed(chunks: string[]): SseEvent[] {
  const p = new SseParser();
  return chunks.flatMap((c) => p.push(c)).concat(p.end());
}

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const c of chunks) controller.enqueue(c);
      controller.close();
    },
  });
}

async function collect(stream: ReadableStream<Uint8Array>): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const ev of readSse(stream)) out.push(ev);
  return out;
}

const TURN = 'event: token\ndata: {"type":"token","text":"Hel"}\n\nevent: token\ndata: {"type":"token","text":"lo"}\n\n' +
  ': keep-alive\n\nevent: done\ndata: {"type":"done","message":{"id":7}}\n\n';

describe('SseParser', () => {
  it('parses whole events with names and data', () => {
    const events = feed([TURN]);
    expect(events.map((e) => e.event)).toEqual(['token', 'token', 'done']);
    expect(JSON.parse(events[1].data)).toEqual({ type: 'token', text: 'lo' });
  });

  it('gives the same events however the stream is split', () => {
    const whole = feed([TURN]);
    for (let size = 1; size <= 7; size++) {
      const chunks: string[] = [];
      for (let i = 0; i < TURN.length; i += size) chunks.push(TURN.slice(i, i + size));
      expect(feed(chunks)).toEqual(whole);
    }
    // split at every single position into two chunks
    for (let cut = 0; cut <= TURN.length; cut++) {
      expect(feed([TURN.slice(0, cut), TURN.slice(cut)])).toEqual(whole);
    }
  });

  it('waits for the blank line before dispatching', () => {
    const p = new SseParser();
    expect(p.push('event: token\ndata: {"text":"a"}\n')).toEqual([]);
    expect(p.push('\n')).toEqual([{ event: 'token', data: '{"text":"a"}' }]);
  });

  it('handles several events in one chunk and CRLF / CR line ends, even split between \\r and \\n', () => {
    expect(feed(['data: a\r\n\r\ndata: b\r\rdata: c\n\n'])).toEqual([
      { event: 'message', data: 'a' },
      { event: 'message', data: 'b' },
      { event: 'message', data: 'c' },
    ]);
    expect(feed(['event: x\r', '\ndata: 1\r', '\n\r', '\n'])).toEqual([{ event: 'x', data: '1' }]);
  });

  it('joins multi-line data, ignores comments and unknown fields, keeps ids', () => {
    expect(feed([': hi\nretry: 10\nid: 4\nfoo: bar\ndata: one\ndata:two\ndata\n\n'])).toEqual([
      { event: 'message', data: 'one\ntwo\n', id: '4' },
    ]);
  });

  it('drops an event left without its closing blank line at the end', () => {
    expect(feed(['data: complete\n\ndata: partial'])).toEqual([{ event: 'message', data: 'complete' }]);
  });

  it('does not dispatch events with no data', () => {
    expect(feed(['event: token\n\n'])).toEqual([]);
  });
});

describe('readSse', () => {
  it('keeps UTF-8 characters whole when their bytes are split across chunks', async () => {
    const text = 'event: token\ndata: {"text":"안녕 🌸"}\n\n';
    const bytes = new TextEncoder().encode(text);
    const chunks: Uint8Array[] = [];
    for (let i = 0; i < bytes.length; i += 1) chunks.push(bytes.slice(i, i + 1));
    const events = await collect(streamOf(chunks));
    expect(events).toEqual([{ event: 'token', data: '{"text":"안녕 🌸"}' }]);
    expect(JSON.parse(events[0].data).text).toBe('안녕 🌸');
  });

  it('reads a stream split at arbitrary byte boundaries', async () => {
    const bytes = new TextEncoder().encode(TURN);
    const events = await collect(streamOf([bytes.slice(0, 5), bytes.slice(5, 40), bytes.slice(40, 41), bytes.slice(41)]));
    expect(events.map((e) => e.event)).toEqual(['token', 'token', 'done']);
  });
});

// A Server-Sent Events parser for streams read with fetch (EventSource cannot POST).
// Follows the WHATWG rules: lines end in \n, \r\n or \r (which may be split across chunks);
// `:` lines are comments; `data` lines are joined with \n; a blank line dispatches.

export interface SseEvent {
  /** The `event:` field, or "message". */
  event: string;
  data: string;
  id?: string;
}

export class SseParser {
  private buffer = '';
  /** The last chunk ended in \r: a \n starting the next one belongs to the same line break. */
  private pendingCr = false;
  private event = '';
  private data: string[] = [];
  private id: string | undefined;

  /** Feeds decoded text; returns the events completed by it. */
  push(text: string): SseEvent[] {
    if (this.pendingCr && text.startsWith('\n')) text = text.slice(1);
    this.pendingCr = false;
    this.buffer += text;
    const out: SseEvent[] = [];
    let start = 0;
    for (let i = 0; i < this.buffer.length; i++) {
      const ch = this.buffer[i];
      if (ch !== '\n' && ch !== '\r') continue;
      this.line(this.buffer.slice(start, i), out);
      if (ch === '\r') {
        if (i + 1 < this.buffer.length) {
          if (this.buffer[i + 1] === '\n') i++;
        } else {
          this.pendingCr = true;
        }
      }
      start = i + 1;
    }
    this.buffer = this.buffer.slice(start);
    return out;
  }

  /** The stream ended: an event without its closing blank line is dropped, as the spec says. */
  end(): SseEvent[] {
    this.buffer = '';
    this.reset();
    return [];
  }

  private reset(): void {
    this.event = '';
    this.data = [];
    this.id = undefined;
  }

  private line(line: string, out: SseEvent[]): void {
    if (line === '') {
      if (this.data.length > 0) {
        const ev: SseEvent = { event: this.event || 'message', data: this.data.join('\n') };
        if (this.id !== undefined) ev.id = this.id;
        out.push(ev);
      }
      this.reset();
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        this.event = value;
        break;
      case 'data':
        this.data.push(value);
        break;
      case 'id':
        if (!value.includes('\0')) this.id = value;
        break;
      default:
        // `retry` and unknown fields are ignored.
        break;
    }
  }
}

/**
 * Reads a byte stream as SSE events; UTF-8 characters split across chunks are kept whole.
 * `signal` ends the reading (the stream is cancelled) as if the stream had ended.
 */
export async function* readSse(stream: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<SseEvent> {
  const reader = stream.getReader();
  const decoder = new TextDecoder('utf-8');
  const parser = new SseParser();
  const cancel = () => void reader.cancel().catch(() => {});
  if (signal?.aborted) cancel();
  signal?.addEventListener('abort', cancel);
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      yield* parser.push(decoder.decode(value, { stream: true }));
    }
    yield* parser.push(decoder.decode());
    yield* parser.end();
  } finally {
    signal?.removeEventListener('abort', cancel);
    reader.releaseLock();
  }
}

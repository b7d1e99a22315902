// Stored records as the server sends them, for unit tests: the defaults of a plain, complete
// message, with what a test cares about given.

import type { Message } from '../src/backend/types';

export function message(over: Partial<Message> = {}): Message {
  return {
    id: 1, session_id: 1, role: 'user', content: '', status: 'complete', error: null, error_code: null, model: null, server: null,
    prompt_tokens: null, completion_tokens: null, cached_tokens: null, ttft_ms: null, tokens_per_second: null,
    runtime_note: null, reasoning: null, tool_calls: [], tool_call_id: null, tool_name: null, tool_outcome: null, images: [], parent_id: null, versions: [],
    created_at: 0, updated_at: 0,
    ...over,
  };
}

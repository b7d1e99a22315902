import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, errorMessage } from '../src/backend/backend';
import { ERRORS } from '../src/lib/errors';
import { errorText, setLanguage } from '../src/lib/i18n';

// Every code the server (src-tauri/src) or the UI (src/backend) can send, model-server ones as
// `model_server.<code>` (src-tauri/src/llm/error.rs `fn code`, plus `no_model`).
const SERVER_CODES = [
  'invalid_name', 'invalid_title', 'invalid_description', 'invalid_prompt', 'invalid_memory', 'invalid_file_name',
  'name_taken', 'default_project', 'unknown_preset', 'instructions_too_long', 'message_too_long', 'empty_message',
  'secret_refused', 'memory_off', 'turn_running', 'no_turn_running', 'message_streaming', 'reply_deleted',
  'nothing_to_regenerate', 'not_a_user_message', 'images_unsupported', 'file_too_large', 'empty_file', 'binary_file',
  'type_mismatch', 'not_an_image', 'image_not_here', 'scope_full', 'invalid_upload', 'invalid_scope',
  'invalid_endpoint', 'invalid_temperature', 'invalid_top_p', 'invalid_max_tokens', 'invalid_context_length',
  'invalid_timeout', 'invalid_language', 'invalid_attachment_limit', 'invalid_budget', 'invalid_memory_mode',
  'invalid_theme', 'invalid_json', 'invalid_query', 'invalid_id', 'invalid_cursor', 'body_too_large', 'url_too_long',
  'headers_too_long', 'bad_host', 'not_found', 'unauthorized', 'method_not_allowed', 'no_such_route', 'internal',
  'newer_schema', 'data_dir_unusable', 'data_dir_in_use', 'bad_template', 'bind_failed', 'invalid_host',
  'remote_refused', 'offline', 'bad_response', 'reply_too_long', 'too_many_tool_rounds', 'interrupted',
  'interrupted_before_start',
];
const MODEL_SERVER_CODES = [
  'invalid_url', 'unreachable', 'dns', 'network', 'timeout_connect', 'timeout_first_byte', 'timeout_idle',
  'unauthorized', 'unknown_model', 'not_found', 'context_too_long', 'rejected', 'server_error', 'bad_response',
  'stream_error', 'disconnected', 'cancelled', 'no_model',
].map((c) => `model_server.${c}`);
const ALL = [...SERVER_CODES, ...MODEL_SERVER_CODES];

describe('error texts', () => {
  afterEach(() => setLanguage('en'));

  it.each(ALL)('%s has an English and a Korean sentence', (code) => {
    const w = ERRORS[code];
    expect(w, code).toBeDefined();
    expect(w.en.trim()).not.toBe('');
    expect(w.ko.trim()).not.toBe('');
    expect(w.ko).toMatch(/[가-힣]/);
    expect(w.en).not.toMatch(/[가-힣]/);
  });

  it('knows no code outside the list (the list above is the whole table)', () => {
    expect(Object.keys(ERRORS).sort()).toEqual([...ALL].sort());
  });

  it('shows the server’s own message in English', () => {
    setLanguage('en');
    const taken = { code: 'name_taken', message: 'a project named "Work" already exists' };
    expect(errorText(taken)).toBe('a project named "Work" already exists');
    expect(errorText({ code: 'model_server.unreachable', message: 'cannot reach http://127.0.0.1:8080' })).toBe('cannot reach http://127.0.0.1:8080');
    expect(errorText({ code: 'what_is_this', message: 'something new' })).toBe('something new');
  });

  it('shows the Korean sentence, with the server’s specifics in parentheses', () => {
    setLanguage('ko');
    expect(errorText({ code: 'name_taken', message: 'a project named "Work" already exists' }))
      .toBe('같은 이름이 이미 있습니다. 다른 이름을 쓰세요. (a project named "Work" already exists)');
    expect(errorText({ code: 'secret_refused', message: 'Maru does not keep this as a fact because it looks like a password' }))
      .toBe(`${ERRORS.secret_refused.ko} (Maru does not keep this as a fact because it looks like a password)`);
    expect(errorText({ code: 'model_server.unreachable', message: 'cannot reach the model server at http://127.0.0.1:8080' }))
      .toBe('모델 서버에 연결할 수 없습니다. 서버가 켜져 있는지, 설정의 주소가 맞는지 확인하세요. (cannot reach the model server at http://127.0.0.1:8080)');
  });

  it('leaves the English out in Korean when it says nothing more', () => {
    setLanguage('ko');
    expect(errorText({ code: 'empty_message', message: 'the message is empty' })).toBe('메시지가 비어 있습니다.');
    expect(errorText({ code: 'invalid_temperature', message: 'temperature must be between 0 and 2' })).toBe('온도는 0에서 2 사이여야 합니다.');
    // A number the sentence lacks is a specific.
    expect(errorText({ code: 'invalid_title', message: 'a session title can have at most 200 characters (this one has 250)' }))
      .toBe(`${ERRORS.invalid_title.ko} (a session title can have at most 200 characters (this one has 250))`);
  });

  it('shows an unknown code’s message as it is, in Korean too', () => {
    setLanguage('ko');
    expect(errorText({ code: 'http_418', message: 'The server answered 418 I’m a teapot' })).toBe('The server answered 418 I’m a teapot');
  });

  it('errorMessage translates an ApiError', () => {
    setLanguage('ko');
    expect(errorMessage(new ApiError('no_turn_running', 'no reply is being written in this chat', 409))).toBe('이 대화에서 쓰고 있는 답이 없습니다.');
    expect(errorMessage(new Error('plain'))).toBe('plain');
  });
});

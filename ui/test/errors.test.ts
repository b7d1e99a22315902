import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, errorMessage } from '../src/backend/backend';
import { ERRORS } from '../src/lib/errors';
import { errorText, setLanguage } from '../src/lib/i18n';

// Which codes need words is tested in serverCodes.test.ts (read from the Rust sources).

describe('error texts', () => {
  afterEach(() => setLanguage('en'));

  it('shows the server’s own message in English', () => {
    setLanguage('en');
    const taken = { code: 'name_taken', message: 'a project named "Work" already exists' };
    expect(errorText(taken)).toBe('a project named "Work" already exists');
    expect(errorText({ code: 'model_server.unreachable', message: 'cannot reach http://127.0.0.1:8080' })).toBe('cannot reach http://127.0.0.1:8080');
    expect(errorText({ code: 'what_is_this', message: 'something new' })).toBe('something new');
  });

  it('shows the Korean sentence, with the server’s specifics in parentheses', () => {
    setLanguage('ko');
    expect(errorText({ code: 'name_taken', message: 'a project named "Work" already exists' }), 'only the name, not the English around it')
      .toBe('같은 이름이 이미 있습니다. 다른 이름을 쓰세요. (“Work”)');
    expect(errorText({ code: 'secret_refused', message: 'Maru does not keep this as a fact because it looks like a password' }))
      .toBe(`${ERRORS.secret_refused.ko} (Maru does not keep this as a fact because it looks like a password)`);
    expect(errorText({ code: 'model_server.unreachable', message: 'Nothing is listening at http://127.0.0.1:8080/v1/chat/completions: the connection was refused.' }), 'only the address')
      .toBe('모델 서버에 연결할 수 없습니다. 서버가 켜져 있는지, 설정의 주소가 맞는지 확인하세요. (http://127.0.0.1:8080/v1/chat/completions)');
    expect(errorText({ code: 'name_taken', message: 'already exists' }), 'a message naming nothing is shown whole')
      .toBe('같은 이름이 이미 있습니다. 다른 이름을 쓰세요. (already exists)');
  });

  it('leaves the English out in Korean when it says nothing more', () => {
    setLanguage('ko');
    expect(errorText({ code: 'empty_message', message: 'the message is empty' })).toBe('메시지가 비어 있습니다.');
    expect(errorText({ code: 'invalid_temperature', message: 'temperature must be between 0 and 2' })).toBe('온도는 0에서 2 사이여야 합니다.');
    // A number the sentence lacks is a specific.
    expect(errorText({ code: 'invalid_title', message: 'a session title can have at most 200 characters (this one has 250)' }))
      .toBe(`${ERRORS.invalid_title.ko} (a session title can have at most 200 characters (this one has 250))`);
  });

  it('puts what the server names into the Korean sentence, without any of its English', () => {
    setLanguage('ko');
    expect(errorText({ code: 'empty_file', message: 'notes.txt is empty (0 bytes): there is nothing to read', params: { file: 'notes.txt' } }))
      .toBe('notes.txt 파일이 비어 있습니다(0바이트).');
    expect(errorText({ code: 'message_too_long', message: 'a message can have at most 1000000 characters (this one has 1200000)', params: { max: '1000000', length: '1200000' } }))
      .toBe('메시지가 너무 깁니다(1,200,000자, 최대 1,000,000자). 긴 글은 파일로 첨부하세요.');
    expect(errorText({ code: 'secret_refused', message: 'Maru does not keep this as a fact because it looks like a card number', params: { kind: 'card_number' } }), 'a kind is said in words')
      .toMatch(/^카드 번호처럼 보여서/);
    expect(errorText({ code: 'invalid_text_limit', message: 'the text indexed per file must be between 10000 and 100000000 characters', params: { min: '10000', max: '100000000' } }))
      .toBe('파일당 색인할 텍스트는 10,000자에서 100,000,000자 사이여야 합니다.');
    expect(errorText({ code: 'invalid_request', message: 'Failed to parse the request body as JSON: expected value' }), 'a malformed request: the server’s text too')
      .toBe('서버가 이 요청을 받아들이지 못했습니다. (Failed to parse the request body as JSON: expected value)');
    expect(errorMessage(new ApiError('name_taken', 'a project named "Work" already exists', 409, { name: 'Work' }))).toBe('“Work” 이름이 이미 있습니다. 다른 이름을 쓰세요.');
    expect(errorText({ code: 'empty_file', message: 'x.txt is empty', params: {} }), 'without the param: the sentence with the message')
      .toBe('파일이 비어 있습니다. (x.txt is empty)');
    setLanguage('en');
    expect(errorText({ code: 'empty_file', message: 'notes.txt is empty (0 bytes): there is nothing to read', params: { file: 'notes.txt' } }), 'English: the server’s own sentence')
      .toBe('notes.txt is empty (0 bytes): there is nothing to read');
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

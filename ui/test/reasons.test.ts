import { afterEach, describe, expect, it } from 'vitest';
import { setLanguage } from '../src/lib/i18n';
import { reasonsText, reasonText } from '../src/lib/reasons';
import type { ReasonCode } from '../src/backend/types';

describe('reasons the server gives, in the UI’s language', () => {
  afterEach(() => setLanguage('en'));

  it('English shows the server’s own sentence', () => {
    setLanguage('en');
    expect(reasonText({ code: 'no_attachments', params: {} }, 'no files are attached to this session or its project'))
      .toBe('no files are attached to this session or its project');
  });

  it('Korean words a section left out, a cut, a change and a file note by code, with their values', () => {
    setLanguage('ko');
    expect(reasonText({ code: 'no_project_instructions', params: { project: '가족' } }, 'the project "가족" has no instructions'))
      .toBe('“가족” 프로젝트에 지침이 없습니다');
    expect(reasonText({ code: 'total_budget', params: { kept: '3', of: '10', items: 'facts' } }, 'x')).toBe('전체 프롬프트 예산에 맞추려고 줄였습니다: 사실 10개 중 3개 유지');
    expect(reasonsText([{ code: 'moved_to_project', params: { section: '3', project: '가족' } }, { code: 'custom_instructions_added', params: { section: '2' } }], 'x'))
      .toBe('③ “가족” 프로젝트로 옮김; ② 사용자 지침을 추가함');
    expect(reasonText({ code: 'unread_pages', params: { pages: '1, 2, 3, 4, 5, 6, 7, 8, 9, 10', more: '4' } }, 'x'))
      .toBe('1, 2, 3, 4, 5, 6, 7, 8, 9, 10 외 4쪽에서 텍스트를 읽지 못했습니다');
  });

  it('a file’s text cut at the limit: counts grouped, the page only when sent, in both languages', () => {
    const server = 'only the first 10000000 characters of its text were indexed (up to page 812); the rest cannot be searched (the limit is a setting: attachment_text_max_chars)';
    const pdf = { code: 'text_cut' as const, params: { chars: '10000000', max: '10000000', page: '812' } };
    const text = { code: 'text_cut' as const, params: { chars: '9999998', max: '10000000' } };
    setLanguage('ko');
    expect(reasonText(pdf, server)).toBe('텍스트의 앞 10,000,000자만 색인했습니다 (812쪽까지). 나머지는 검색되지 않습니다. 설정에서 한도를 늘리세요');
    expect(reasonText(text, server)).toBe('텍스트의 앞 9,999,998자만 색인했습니다. 나머지는 검색되지 않습니다. 설정에서 한도를 늘리세요');
    setLanguage('en');
    expect(reasonText(pdf, server), 'English names Settings, not the setting’s key')
      .toBe('only the first 10,000,000 characters were indexed (up to page 812); the rest cannot be searched — raise the limit in Settings');
    expect(reasonText(text, server)).toBe('only the first 9,999,998 characters were indexed; the rest cannot be searched — raise the limit in Settings');
    expect(reasonText({ code: 'text_cut', params: { max: '10000000' } }, server), 'without the count: the server’s sentence').toBe(server);
  });

  it('an unknown code (a newer server) or none (an old snapshot) falls back to the English', () => {
    setLanguage('ko');
    expect(reasonText({ code: 'something_new' as ReasonCode, params: {} }, 'something new'), 'a newer server\'s code').toBe('something new');
    expect(reasonText(null, 'old note')).toBe('old note');
    expect(reasonsText(null, 'first request of this session')).toBe('first request of this session');
  });
});

// Why the server says something is as it is (a section left out of the prompt, a cut, a changed
// prompt, a file that could not be read), in the UI's language. The server sends a `Reason`
// (`{code, params}`) beside its English sentence: English shows the server's sentence as it is,
// other languages the sentence for the code with its `{param}`s filled in. An unknown code (a
// newer server) falls back to the English sentence. A few codes (`ownEnglish`) use the UI's English
// too, where the server's sentence names a setting by its key rather than where to change it.

import type { Reason, ReasonCode } from '../backend/types';
import { language, t } from './i18n';

/** One code's sentences; `{name}` is filled from the reason's params, and a `[…]` part is kept
 *  only when every param in it was sent (an optional one). `ownEnglish`: English shows `en` too,
 *  not the server's sentence. */
export interface ReasonWords {
  en: string;
  ko: string;
  ownEnglish?: boolean;
}

/** Params that are counts, shown with thousands separators ("10,000,000"). */
const COUNTS = new Set(['chars', 'max', 'tokens', 'system', 'tools', 'limit']);

const CIRCLED = ['', '①', '②', '③', '④', '⑤'];

/** A sentence for every code the server sends (the generated `ReasonCode` makes a missing one a
 *  build error); a newer server's code, unknown here, shows the server's English. */
export const REASONS: Readonly<Record<ReasonCode, ReasonWords>> = {
  // Why a section is not in the prompt.
  no_custom_instructions: { en: 'no custom instructions are set', ko: '사용자 지침이 없습니다' },
  default_project: { en: 'the session is in the Default project', ko: '이 대화는 기본 프로젝트에 있습니다' },
  no_project_instructions: { en: 'the project "{project}" has no instructions', ko: '“{project}” 프로젝트에 지침이 없습니다' },
  no_attachments: { en: 'no files are attached to this session or its project', ko: '이 대화와 프로젝트에 첨부된 파일이 없습니다' },
  // Why a section was cut.
  section_budget: { en: 'longer than its section budget', ko: '섹션 예산보다 깁니다' },
  total_budget: { en: 'cut to fit the whole prompt’s budget', ko: '전체 프롬프트 예산에 맞추려고 줄였습니다' },
  context_window: { en: 'cut to fit the model’s context window', ko: '모델의 컨텍스트 창에 맞추려고 줄였습니다' },
  // Why the prompt changed (each may name its section, shown as ① to ⑤ before it).
  first_request: { en: 'first request of this session', ko: '이 대화의 첫 요청' },
  no_visible_change: { en: 'no visible change', ko: '보이는 변화 없음' },
  base_changed: { en: 'base prompt changed to {name}', ko: '기본 프롬프트가 {name}(으)로 바뀜' },
  base_template_changed: { en: 'base prompt template changed', ko: '기본 프롬프트 템플릿이 바뀜' },
  custom_instructions_added: { en: 'custom instructions added', ko: '사용자 지침을 추가함' },
  custom_instructions_removed: { en: 'custom instructions removed', ko: '사용자 지침을 지움' },
  custom_instructions_edited: { en: 'custom instructions edited', ko: '사용자 지침을 고침' },
  moved_to_project: { en: 'moved to project "{project}"', ko: '“{project}” 프로젝트로 옮김' },
  project_instructions_edited: { en: 'project instructions edited', ko: '프로젝트 지침을 고침' },
  attachments_changed: { en: 'attachments changed', ko: '첨부 파일이 바뀜' },
  date_changed: { en: 'the date changed to {date}', ko: '날짜가 {date}(으)로 바뀜' },
  date_and_memory_changed: { en: 'the date changed to {date}; long-term memory changed', ko: '날짜가 {date}(으)로 바뀌고 장기 기억이 바뀜' },
  memory_changed: { en: 'long-term memory changed', ko: '장기 기억이 바뀜' },
  // Why the context inspector does not offer Compact now (the server words none of these).
  nothing_to_compact: { en: 'Nothing older than the last turn to summarise.', ko: '마지막 턴보다 오래된, 요약할 내용이 없습니다.', ownEnglish: true },
  temporary_chat: { en: 'A temporary chat keeps no summaries.', ko: '임시 대화는 요약을 남기지 않습니다.', ownEnglish: true },
  prompt_fills_window: {
    en: 'The system prompt ({system} tokens) and the tools ({tools}) alone take more than a request may fill of this window ({limit}). Compacting summarises only the chat, so it cannot help: choose a model with a larger window, or turn off tool servers in this project.',
    ko: '시스템 프롬프트({system} 토큰)와 도구({tools} 토큰)만으로 이 창에서 요청이 쓸 수 있는 양({limit} 토큰)을 넘습니다. 압축은 대화만 요약하므로 도움이 되지 않습니다. 창이 더 큰 모델을 고르거나, 이 프로젝트의 도구 서버를 끄세요.',
    ownEnglish: true,
  },
  last_message_fills_window: {
    en: 'The last message ({tokens} tokens) does not fit beside the system prompt and the tools ({limit} for all). Compacting summarises only older turns, so it cannot help: shorten the message, or choose a model with a larger window.',
    ko: '마지막 메시지({tokens} 토큰)가 시스템 프롬프트, 도구와 함께 들어가지 않습니다(모두 합쳐 {limit} 토큰까지). 압축은 이전 턴만 요약하므로 도움이 되지 않습니다. 메시지를 줄이거나, 창이 더 큰 모델을 고르세요.',
    ownEnglish: true,
  },
  // What reading an mcp.json says of a server: what stops it being added, and what to know.
  mcp_server_incomplete: { en: 'It has neither a command nor a url: nothing to start or reach.', ko: '명령도 url도 없어서 시작하거나 연결할 수 없습니다.', ownEnglish: true },
  mcp_server_bad_field: {
    en: '“{field}” is not what it should be (a text, a list of texts, or names with texts).',
    ko: '“{field}” 값의 형식이 맞지 않습니다(텍스트, 텍스트 목록, 또는 이름과 텍스트의 쌍이어야 합니다).',
    ownEnglish: true,
  },
  mcp_server_invalid: { en: 'Maru cannot add it as it is: {detail}', ko: '지금 상태로는 추가할 수 없습니다: {detail}', ownEnglish: true },
  command_split: { en: 'Its command was a whole command line: split into the program and its arguments.', ko: '명령에 명령줄 전체가 들어 있어서 프로그램과 인수로 나눴습니다.', ownEnglish: true },
  sse_transport: {
    en: 'This address uses the older SSE transport. Maru speaks Streamable HTTP, which most such servers answer too (often at /mcp instead of /sse).',
    ko: '이 주소는 예전 SSE 방식을 씁니다. 마루는 Streamable HTTP로 연결하며, 대부분의 서버가 이 방식도 받습니다(/sse 대신 /mcp인 경우가 많습니다).',
    ownEnglish: true,
  },
  ignored_fields: { en: 'Maru does not use: {fields}.', ko: '마루가 쓰지 않는 항목: {fields}.', ownEnglish: true },
  // Why a tool server did not start or answer ({detail} and {said} are its and the system's own words).
  tool_server_cannot_run: { en: 'the program “{command}” could not be run ({detail})', ko: '“{command}” 프로그램을 실행하지 못했습니다({detail})', ownEnglish: true },
  tool_server_no_handshake: { en: 'it ran but did not answer as an MCP server ({detail})[; it said: {said}]', ko: '실행됐지만 MCP 서버로 응답하지 않았습니다({detail})[. 서버가 남긴 말: {said}]', ownEnglish: true },
  tool_server_no_answer: { en: '{url} did not answer as an MCP server ({detail})', ko: '{url}이(가) MCP 서버로 응답하지 않았습니다({detail})', ownEnglish: true },
  tool_server_bad_header: { en: 'the header “{name}” has a name or value HTTP does not allow', ko: '헤더 “{name}”의 이름이나 값은 HTTP에서 쓸 수 없습니다', ownEnglish: true },
  tool_server_no_tool_list: { en: 'it started but did not list its tools ({detail})[; it said: {said}]', ko: '시작했지만 도구 목록을 주지 않았습니다({detail})[. 서버가 남긴 말: {said}]', ownEnglish: true },
  tool_server_timed_out: { en: 'no answer within {seconds} s[; it said: {said}]', ko: '{seconds}초 안에 응답이 없었습니다[. 서버가 남긴 말: {said}]', ownEnglish: true },
  // Why a file's text could not be read (all of it, or some pages).
  image_no_text: { en: 'images are sent to models that can see them; they have no text to search', ko: '이미지는 볼 수 있는 모델에 그대로 보냅니다. 검색할 텍스트는 없습니다' },
  pdf_no_pages: { en: 'the PDF has no pages Maru can read (it may be damaged)', ko: 'PDF에 마루가 읽을 수 있는 쪽이 없습니다 (손상되었을 수 있습니다)' },
  pdf_timeout: { en: 'reading the PDF took longer than {seconds} s; it was given up', ko: 'PDF를 읽는 데 {seconds}초가 넘게 걸려 그만두었습니다' },
  pdf_reader_failed: { en: 'the PDF reader failed on this file (it may be damaged)', ko: 'PDF 읽기 도구가 이 파일에서 실패했습니다 (손상되었을 수 있습니다)' },
  pdf_unreadable: { en: 'the PDF could not be read', ko: 'PDF를 읽을 수 없습니다' },
  html_unreadable: { en: 'the HTML could not be read', ko: 'HTML을 읽을 수 없습니다' },
  not_utf8: { en: 'the file is not UTF-8 text', ko: '파일이 UTF-8 텍스트가 아닙니다' },
  stored_file_unreadable: { en: 'the stored file cannot be read', ko: '저장된 파일을 읽을 수 없습니다' },
  image_unreadable: { en: 'the image could not be read', ko: '이미지를 읽을 수 없습니다' },
  no_text_in_pages: { en: 'no text could be read from any page (a scanned PDF has only images of text)', ko: '어느 쪽에서도 텍스트를 읽지 못했습니다 (스캔한 PDF에는 글자의 이미지만 있습니다)' },
  no_text: { en: 'the file has no text', ko: '파일에 텍스트가 없습니다' },
  unread_pages: { en: 'no text could be read from pages {pages}', ko: '{pages}쪽에서 텍스트를 읽지 못했습니다' },
  text_cut: {
    en: 'only the first {chars} characters were indexed[ (up to page {page})]; the rest cannot be searched — raise the limit in Settings',
    ko: '텍스트의 앞 {chars}자만 색인했습니다[ ({page}쪽까지)]. 나머지는 검색되지 않습니다. 설정에서 한도를 늘리세요',
    ownEnglish: true,
  },
};

/** `english` (the server's sentence) in English; otherwise the sentence for `reason`'s code. */
export function reasonText(reason: Reason | null | undefined, english: string): string {
  const lang = language();
  const words = reason ? (REASONS as Partial<Record<string, ReasonWords>>)[reason.code] : undefined;
  if (!reason || !words || (lang === 'en' && !words.ownEnglish)) return english;
  const p = projectNamed(reason.code, reason.params ?? {});
  const filled = fill(lang === 'en' ? words.en : words.ko, p, lang);
  if (filled === null) return english; // a param it needs is missing
  if (lang === 'en') return filled;
  let s = filled;
  if (reason.code === 'unread_pages' && Number(p.more) > 0) s = s.replace(/쪽에서/, ` 외 ${p.more}쪽에서`);
  if ((reason.code === 'section_budget' || reason.code === 'total_budget' || reason.code === 'context_window') && p.items) {
    s += p.items === 'facts' ? `: 사실 ${p.of}개 중 ${p.kept}개 유지`
      : p.items === 'instructions_files' ? `: 지침 파일 ${p.of}개 중 ${p.kept}개 보냄`
      : p.items === 'skills' ? `: 스킬 ${p.of}개 중 ${p.kept}개 표시`
      : `: 파일 ${p.of}개 중 ${p.kept}개 표시`;
  }
  const n = Number(p.section);
  return n >= 1 && n <= 5 ? `${CIRCLED[n]} ${s}` : s;
}

/** The name of the Default project as stored (it cannot be renamed, and no other project may
 *  take it): the UI calls it by its own word in every language (기본 in Korean). */
const DEFAULT_PROJECT_STORED = 'Default';

/** A reason that names a project names the Default one as the rest of the UI does. */
function projectNamed(code: string, p: Record<string, string>): Record<string, string> {
  return code === 'moved_to_project' && p.project === DEFAULT_PROJECT_STORED ? { ...p, project: t('defaultProject') } : p;
}

/** `sentence` with its params in (counts grouped); null when one outside a `[…]` is missing. */
function fill(sentence: string, p: Record<string, string>, lang: string): string | null {
  const optional = sentence.replace(/\[([^[\]]*)\]/g, (_, part: string) =>
    [...part.matchAll(/\{(\w+)\}/g)].every((m) => p[m[1]] !== undefined) ? part : '');
  let missing = false;
  const s = optional.replace(/\{(\w+)\}/g, (whole, k: string) => {
    const v = p[k];
    if (v === undefined) {
      missing = true;
      return whole;
    }
    return COUNTS.has(k) && /^\d+$/.test(v) ? Number(v).toLocaleString(lang) : v;
  });
  return missing ? null : s;
}

/** Several reasons (a prompt's changes) as one line, or `english` when there are none to word. */
export function reasonsText(reasons: Reason[] | null | undefined, english: string): string {
  if (language() === 'en' || !reasons?.length || reasons.some((r) => !(r.code in REASONS))) return english;
  const worded = reasons.map((r) => reasonText(r, ''));
  return worded.some((w) => !w) ? english : worded.join('; ');
}

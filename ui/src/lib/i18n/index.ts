// The UI's words in English and Korean. `t(key, vars)` fills `{name}` placeholders, and chooses
// among plural forms written as `{n, plural, one {# chat} other {# chats}}` (`#` is the number) by
// the language's `Intl.PluralRules`.
// Server errors arrive as `{code, message}` with an English message: `errorText` shows them in the
// UI's language by their code (the sentences are in errors.ts). Other server texts (absent
// reasons, file notes) are shown as they are.
// The words themselves are in one file per area of the UI (`app.ts`, `chat.ts`, …), merged here.

import { ERRORS, PARAM_WORDS } from '../errors';
import * as app from './app';
import * as chat from './chat';
import * as context from './context';
import * as exports from './exports';
import * as files from './files';
import * as memory from './memory';
import * as project from './project';
import * as servers from './servers';
import * as settings from './settings';
import * as sharing from './sharing';
import * as sidebar from './sidebar';
import * as skills from './skills';
import * as tools from './tools';

/** Each area of the UI with its words (one file each, English and Korean side by side). */
export const AREAS = { app, chat, context, exports, files, memory, project, servers, settings, sharing, sidebar, skills, tools } as const;

const en = {
  ...app.en, ...chat.en, ...context.en, ...exports.en, ...files.en, ...memory.en, ...project.en, ...servers.en, ...settings.en, ...sharing.en, ...sidebar.en, ...skills.en, ...tools.en,
} as const;

export type Key = keyof typeof en;
type Dict = Record<Key, string>;

const ko: Dict = {
  ...app.ko, ...chat.ko, ...context.ko, ...exports.ko, ...files.ko, ...memory.ko, ...project.ko, ...servers.ko, ...settings.ko, ...sharing.ko, ...sidebar.ko, ...skills.ko, ...tools.ko,
};

/** Every dictionary, by language (read by the tests too). */
export const dicts: Readonly<Record<string, Readonly<Dict>>> = { en, ko };
let current: Dict = en;
let currentLang = 'en';

/** Sets the UI's language (English for one it does not have), and `lang` on <html>, which the
 *  stylesheet's Korean line breaking (`html:lang(ko)`) and the browser's fonts follow. */
export function setLanguage(lang: string): void {
  current = dicts[lang] ?? en;
  currentLang = dicts[lang] ? lang : 'en';
  document.documentElement.lang = currentLang;
}

// ---- which language: the user's choice, else the browser's (or the system's, in the desktop window)
//
// The server's settings always hold a language: "en" until someone sets one (its default,
// `Language::En` in store/settings.rs), so "en" there cannot tell "never chosen" from "chose
// English". The settings dialog therefore also notes, in this browser's localStorage, that the
// user picked a language (`rememberLanguageChoice`, called by `saveSettings` for a patch that
// sets one; the dialog sends one only when the user changed the choice). The UI then shows:
// - the server's language when it is not the default (someone chose it, here or elsewhere),
//   or when the user chose one in this browser (English included);
// - otherwise the browser's preferred language (Korean when it prefers Korean, else English).
// Nothing is written to the server until the user chooses, so a first run in a Korean browser
// stays "unchosen" and keeps following the browser. A choice of English made in another browser
// is not seen here (the server cannot tell it from the default): this browser follows its own
// language until the user chooses here too.

/** The server's language until one is set (`Language::En`). */
export const DEFAULT_LANGUAGE = 'en';
const CHOSEN_KEY = 'maru.language';

/** The browser's preferred languages, most preferred first ("ko-KR", "en-US"). */
function preferredLanguages(): readonly string[] {
  if (typeof navigator === 'undefined') return [];
  const list = navigator.languages?.length ? navigator.languages : [navigator.language];
  return list.filter((l): l is string => typeof l === 'string' && l !== '');
}

/** The first of `preferred` that the UI has, by its primary subtag ("ko-KR" is Korean); English
 *  when none is. */
export function browserLanguage(preferred: readonly string[] = preferredLanguages()): string {
  for (const tag of preferred) {
    const primary = tag.toLowerCase().split(/[-_]/)[0];
    if (dicts[primary]) return primary;
  }
  return DEFAULT_LANGUAGE;
}

/** The language the user picked in this browser, or null when they never did (or storage is off). */
export function chosenLanguage(): string | null {
  try {
    const lang = localStorage.getItem(CHOSEN_KEY);
    return lang && dicts[lang] ? lang : null;
  } catch {
    return null;
  }
}

/** Notes that the user picked `lang` (in the settings dialog). */
export function rememberLanguageChoice(lang: string): void {
  try {
    localStorage.setItem(CHOSEN_KEY, lang);
  } catch {
    // storage can be off: the choice is still saved on the server, and a non-default one followed
  }
}

/** The language to show for the settings' `saved` one (see above). */
export function uiLanguage(saved: string, chosen: string | null = chosenLanguage(), preferred: readonly string[] = preferredLanguages()): string {
  if (saved !== DEFAULT_LANGUAGE || chosen !== null) return saved;
  return browserLanguage(preferred);
}

/** Before the settings arrive: the language last chosen here, else the browser's. */
export function startLanguage(): string {
  return chosenLanguage() ?? browserLanguage();
}

export function language(): string {
  return currentLang;
}

export function t(key: Key, vars?: Record<string, string | number>): string {
  let s: string = current[key] ?? en[key];
  if (vars) {
    s = plurals(s, vars);
    for (const [k, v] of Object.entries(vars)) s = s.split(`{${k}}`).join(String(v));
  }
  return s;
}

/** `{n, plural, =0 {…} one {…} other {…}}`: the form for the number (exact `=N` first, then its category). */
function plurals(s: string, vars: Record<string, string | number>): string {
  return s.replace(/\{(\w+), plural,((?:\s*=?\w+ \{[^{}]*\})+)\s*\}/g, (whole, name: string, body: string) => {
    const v = vars[name];
    if (v === undefined) return whole;
    const forms = new Map<string, string>();
    for (const m of body.matchAll(/(=?\w+) \{([^{}]*)\}/g)) forms.set(m[1], m[2]);
    // A count already formatted ("1,234") is read back as a number for the choice.
    const n = typeof v === 'number' ? v : Number(String(v).replace(/[,\s]/g, ''));
    const category = Number.isFinite(n) ? new Intl.PluralRules(currentLang).select(n) : 'other';
    const form = forms.get(`=${n}`) ?? forms.get(category) ?? forms.get('other') ?? '';
    return form.split('#').join(String(v));
  });
}

/**
 * An error from the server (or the UI's own `offline`/`bad_response`) in the UI's language.
 * English: the server's message, which is the most specific. Korean: the sentence for the code,
 * then the server's message in parentheses when it carries specifics the sentence lacks: always
 * for codes marked `detail` (names, URLs, reasons), otherwise when it has a number the sentence
 * does not. Codes marked `detail: 'names'` show only the addresses and quoted names the message
 * holds, so no English shows (the whole message when it holds none). An unknown code: the
 * server's message as it is.
 */
export function errorText(e: { code: string; message: string; params?: Record<string, string> }): string {
  const words = ERRORS[e.code];
  const message = e.message.trim();
  if (currentLang === 'en') return message || words?.en || e.code;
  if (!words) return message || e.code;
  const named = words.named !== undefined && e.params ? withParams(words.named, e.params) : null;
  if (named !== null) return named;
  const sentence = currentLang === 'ko' ? words.ko : words.en;
  if (!message) return sentence;
  const numbers = message.match(/\d+(?:[.,]\d+)*/g) ?? [];
  const names = words.detail === 'names' ? namesIn(message) : [];
  if (names.length) return `${sentence} (${names.join(', ')})`;
  const specific = words.detail || numbers.some((n) => !sentence.includes(n));
  return specific ? `${sentence} (${message})` : sentence;
}

/** `sentence` with each `{name}` replaced by its param (numbers grouped, codes in words); null
 *  when one is missing. */
function withParams(sentence: string, params: Record<string, string>): string | null {
  let missing = false;
  const text = sentence.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) {
      missing = true;
      return '';
    }
    const word = PARAM_WORDS[name]?.[value];
    if (word) return currentLang === 'ko' ? word.ko : word.en;
    return /^\d+$/.test(value) ? Number(value).toLocaleString(currentLang) : value;
  });
  return missing ? null : text;
}

/** The URLs and the "quoted" names in a server message, in order, each once. */
function namesIn(message: string): string[] {
  const found: string[] = [];
  for (const m of message.matchAll(/https?:\/\/[^\s"'()]+|"([^"]+)"/g)) {
    const name = m[1] !== undefined ? `“${m[1]}”` : m[0].replace(/[.,:;]+$/, '');
    if (!found.includes(name)) found.push(name);
  }
  return found;
}

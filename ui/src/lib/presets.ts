// Built-in presets (prompts/presets/*.md) come from the server with English names; the UI names
// them in its language by their stable key (the file's stem). The user's own presets keep the
// name and description they typed.

import type { Preset } from '../backend/types';
import { language, t } from './i18n';

export const BUILTIN_PRESETS: Readonly<Record<string, { ko: { name: string; description: string } }>> = {
  'code-reviewer': { ko: { name: '코드 리뷰어', description: '코드의 버그, 명확성, 위험을 중요한 것부터 검토합니다.' } },
  'writing-helper': { ko: { name: '글쓰기 도우미', description: '사용자 자신의 말투로 글을 다듬고 초안을 씁니다.' } },
};

type Named = Pick<Preset, 'key' | 'name' | 'description' | 'builtin'>;

function words(p: Named): { name: string; description: string } | undefined {
  return p.builtin && language() === 'ko' ? BUILTIN_PRESETS[p.key]?.ko : undefined;
}

export const presetName = (p: Named): string => words(p)?.name ?? p.name;
export const presetDescription = (p: Named): string => words(p)?.description ?? p.description;

/** The inspector's ① source: "preset: <English name>" for a preset, else a template path. */
export function presetSourceText(source: string, presets: readonly Named[], presetLabel: string): string {
  const m = /^preset: (.*)$/.exec(source);
  if (!m) return source.replace(/ \(your override\)$/, ` (${t('yourOverride')})`);
  const p = presets.find((x) => x.name === m[1]);
  return `${presetLabel}: ${p ? presetName(p) : m[1]}`;
}

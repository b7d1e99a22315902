import { beforeEach, describe, expect, it } from 'vitest';
import { App } from '../src/app';
import type { ContextView, SectionReport, Session } from '../src/backend/types';
import { setLanguage } from '../src/lib/i18n';
import { loadMarkdownFor } from '../src/lib/markdown';
import { mountContextPanel, sectionSize } from '../src/views/contextPanel';
import { contextView, fakeBackend, settingsView, summary } from './fakeBackend';

const SESSION: Session = { id: 9, project_id: 1, title: 'Trip', preset: null, model: null, connection_id: null, created_at: 0, updated_at: 0, imported_at: null, temporary: false };

/** The inspector open on chat 9, the server answering `view`. */
function open(view: ContextView) {
  return openWith({ context: async () => view });
}

/** The inspector open on chat 9, over a backend with these methods, in the settings' language. */
async function openWith(methods: Parameters<typeof fakeBackend>[0], settings = settingsView()) {
  const fake = fakeBackend(methods);
  const app = new App(fake.backend);
  app.config.settings = settings;
  app.chat.session = SESSION;
  app.panels.panel = 'context';
  const root = document.createElement('aside');
  document.body.replaceChildren(root);
  const render = mountContextPanel(app, root, () => app.panels.closePanel());
  render();
  await app.panels.loadContext();
  return { app, root, ...fake };
}

const segments = (root: HTMLElement) =>
  [...root.querySelectorAll<HTMLElement>('[data-testid=plan-bar] .plan-seg')].map((el) => ({ part: el.dataset.part, tokens: el.dataset.tokens, width: el.style.width }));
const legend = (root: HTMLElement) =>
  [...root.querySelectorAll<HTMLElement>('[data-testid=plan-legend] li')].map((li) => [...li.querySelectorAll('span')].map((s) => s.textContent).filter(Boolean).join(' | '));

describe('the context inspector', () => {
  beforeEach(() => {
    setLanguage('en');
    document.body.replaceChildren();
  });

  it('draws how the next request spends the window: system, tools, summaries, history, reserve and what is left', async () => {
    const { root, calls } = await open(contextView({
      token_plan: { context: 10000, system: 1000, tools: 1000, summaries: 500, history: 5000, reserve: 2000 },
      summaries: [summary()],
      tools: [{ name: 'search_attachment', chars: 2400, tokens: 600 }, { name: 'read_tool_output', chars: 1600, tokens: 400 }],
    }));
    expect(calls.map((c) => c.method)).toEqual(['context']);
    const card = root.querySelector<HTMLElement>('[data-testid=context-window]')!;
    expect(card.querySelector('h3')?.textContent).toBe('Context window');
    expect(card.textContent).toContain('10,000 tokens');
    expect(segments(root)).toEqual([
      { part: 'system', tokens: '1000', width: '10%' },
      { part: 'tools', tokens: '1000', width: '10%' },
      { part: 'summaries', tokens: '500', width: '5%' },
      { part: 'history', tokens: '5000', width: '50%' },
      { part: 'reserve', tokens: '2000', width: '20%' },
      { part: 'free', tokens: '500', width: '5%' },
    ]);
    expect(legend(root)).toEqual([
      'System prompt | 1,000 | 10%',
      'Tools | 1,000 | 10%',
      'Summaries | 500 | 5%',
      'Chat history | 5,000 | 50%',
      'Reserved for the reply | 2,000 | 20%',
      'Free | 500 | 5%',
    ]);
    // The bar says the same in words for screen readers.
    const bar = root.querySelector('[data-testid=plan-bar]')!;
    expect(bar.getAttribute('role')).toBe('img');
    expect(bar.getAttribute('aria-label')).toBe(
      'Next request: System prompt 1,000 tokens, Tools 1,000 tokens, Summaries 500 tokens, Chat history 5,000 tokens, Reserved for the reply 2,000 tokens, Free 500 tokens, of a 10,000-token window');
    expect(root.querySelector('[data-testid=compacts-next]')).toBeNull();
    expect(root.querySelector('[data-testid=window-unknown]')).toBeNull();
  });

  /** The line under the plan bar that says how its tokens were counted, in `lang`. */
  async function countsLine(plan_counts: ContextView['plan_counts'], lang: 'en' | 'ko') {
    setLanguage(lang);
    const { root } = await open(contextView({ plan_counts }));
    const line = root.querySelector<HTMLElement>('[data-testid=plan-counts]');
    return { text: line?.textContent, afterBar: line?.previousElementSibling?.getAttribute('data-testid') };
  }

  it('says the plan was counted by the model server when all of it was', async () => {
    const all = { server: 1310, fitted: 0, estimated: 0 };
    const en = await countsLine(all, 'en');
    expect(en.text, 'a user can trust the bar: the server counted every token').toBe('Counted by the model server');
    expect(en.afterBar, 'the line sits next to the bar it describes').toBe('plan-bar');
    expect((await countsLine(all, 'ko')).text, 'Korean users read the same').toBe('모델 서버가 센 토큰');
  });

  it('says how many of the plan’s tokens the model server counted when the rest were estimated', async () => {
    const mixed = { server: 1204, fitted: 100, estimated: 6 };
    expect((await countsLine(mixed, 'en')).text, 'the user sees how much of the bar is exact, numbers as the UI writes them')
      .toBe('1,204 of 1,310 tokens counted by the model server, the rest estimated');
    expect((await countsLine(mixed, 'ko')).text, 'the same in Korean, the whole before the part').toBe('1,310개 중 1,204개는 모델 서버가 셌고 나머지는 추정');
  });

  it('says the plan is estimated when the model server cannot count tokens', async () => {
    const plain = { server: 0, fitted: 0, estimated: 4200 };
    expect((await countsLine(plain, 'en')).text, 'a user knows the bar may be off, and why').toBe('Estimated (this server cannot count tokens)');
    expect((await countsLine(plain, 'ko')).text, 'the same in Korean').toBe('추정치 (이 서버는 토큰을 셀 수 없음)');
  });

  it('says an estimate follows the model server’s earlier counts, and says nothing when nothing was counted', async () => {
    const fitted = { server: 0, fitted: 4200, estimated: 0 };
    expect((await countsLine(fitted, 'en')).text, 'an estimate fitted to the server is not called a server without a tokenizer')
      .toBe('Estimated at the rate of the model server’s counts so far');
    expect((await countsLine(fitted, 'ko')).text, 'the same in Korean').toBe('모델 서버가 지금까지 센 비율로 추정');
    expect((await countsLine({ server: 0, fitted: 0, estimated: 0 }, 'en')).text, 'no tokens, no claim about how they were counted').toBeUndefined();
  });

  it('lists each tool offered with what it takes of the window, so a user sees why the prompt is bigger than its text', async () => {
    const { root } = await open(contextView({ tools: [{ name: 'search_attachment', chars: 1000, tokens: 250 }, { name: 'remember', chars: 400, tokens: 100 }] }));
    const rows = [...root.querySelectorAll('[data-testid=context-tools] li')].map((li) => li.textContent);
    expect(rows, 'one row per tool, in the order they are offered').toEqual(['search_attachment250 tokens', 'remember100 tokens']);
    const none = await open(contextView({ tools: [] }));
    expect(none.root.querySelector('[data-testid=context-tools]')?.textContent, 'a chat without tools says so').toContain('No tools are offered');
  });

  it('leaves empty parts out of the bar but keeps them in the legend, and shows by how much a request overflows', async () => {
    const { root } = await open(contextView({
      token_plan: { context: 8000, system: 2000, tools: 0, summaries: 0, history: 6000, reserve: 2000 },
      compacts_next: true,
    }));
    expect(segments(root).map((s) => [s.part, s.width])).toEqual([['system', '20%'], ['history', '60%'], ['reserve', '20%']]);
    expect(legend(root)).toContain('Summaries | 0 | 0%');
    expect(legend(root)).toContain('Free | 0 | 0%');
    expect(legend(root)).toContain('Over by | 2,000');
  });

  it('names the facts this chat taught, which its ⑤ leaves out, and says why, in both languages', async () => {
    const base = contextView();
    const memorySection = { ...base.sections[0], id: 'memory' as const, text: '[Long-term memory]\n(none)', source: 'memory' };
    const view = { ...base, sections: [...base.sections, memorySection], facts_taught_here: ['Grows tomatoes on the balcony.'] };
    const { root } = await open(view);
    const note = root.querySelector('[data-section=memory] [data-testid=memory-taught-here]');
    expect(note?.textContent, 'the fact is named in ⑤, so the user sees where it went').toContain('Grows tomatoes on the balcony.');
    expect(note?.textContent, 'with why it is not in this chat’s prompt').toContain('as this chat taught it');
    setLanguage('ko');
    const ko = (await open(view)).root.querySelector('[data-testid=memory-taught-here]');
    expect(ko?.textContent, 'in Korean too').toContain('이 대화에서 알게 된 사실 1개는 여기서 빠집니다');
    setLanguage('en');
    const none = (await open({ ...view, facts_taught_here: [] })).root;
    expect(none.querySelector('[data-testid=memory-taught-here]'), 'nothing is said when nothing is left out').toBeNull();
  });

  it('names the server the next request goes to, and its address', async () => {
    const laptop = { id: 2, name: 'Laptop', base_url: 'http://192.168.1.20:1234/v1', api_key_set: false, default_model: '', enabled: true, is_default: false, demo: false, created_at: 0, updated_at: 0 };
    const { root } = await open(contextView({ model: 'qwen2.5-7b', server: laptop }));
    const server = root.querySelector<HTMLElement>('[data-testid=context-server]')!;
    expect(server.closest('.kv')?.querySelector('.k')?.textContent, 'with several servers, the model alone does not say where the chat goes').toBe('Next request’s server');
    expect(server.textContent, 'the name the user gave it, and the address it stands for').toBe('Laptop http://192.168.1.20:1234/v1');
    expect(root.querySelector('[data-testid=context-model]')?.textContent).toBe('qwen2.5-7b');
    setLanguage('ko');
    const ko = await open(contextView({ server: laptop }));
    expect(ko.root.querySelector('[data-testid=context-server]')?.closest('.kv')?.querySelector('.k')?.textContent).toBe('다음 요청의 서버');
  });

  it('says when older turns will be summarised before the next reply', async () => {
    const { root } = await open(contextView({ compacts_next: true }));
    const note = root.querySelector('[data-testid=compacts-next]');
    expect(note?.textContent).toContain('Older turns will be summarised before the next reply');
    expect(note?.closest('[data-testid=context-window]')).not.toBeNull();
  });

  it('says when the window is unknown and where to set it', async () => {
    const { root } = await open(contextView({ token_plan: null }));
    const card = root.querySelector('[data-testid=context-window]')!;
    expect(card.querySelector('[data-testid=plan-bar]')).toBeNull();
    expect(card.querySelector('[data-testid=window-unknown]')?.textContent).toBe(
      'The model’s context window is unknown, so Maru cannot plan how the next request fits it. Set it in Settings → Servers → Context length.');
    expect(card.querySelector('button.link-btn')?.textContent).toBe('Set it in Settings → Servers → Context length.');
  });

  it('lists the summaries as text, oldest first, with the turns each replaces; none, no card', async () => {
    const none = await open(contextView());
    expect(none.root.querySelector('[data-testid=context-summaries]')).toBeNull();

    const now = Date.now();
    const { root } = await open(contextView({
      summaries: [
        summary({ id: 1, turns: 1, content: 'Planned a trip <img src=x onerror=alert(1)>', created_at: now - 2 * 3600_000 }),
        summary({ id: 2, turns: 4, content: 'Booked the train.\nChose a hotel.', created_at: now }),
      ],
    }));
    const card = root.querySelector<HTMLElement>('[data-testid=context-summaries]')!;
    expect(card.querySelector('h3')?.textContent).toBe('Summaries (2)');
    const items = [...card.querySelectorAll<HTMLElement>('[data-testid=context-summary-item]')];
    expect(items.map((li) => li.dataset.id)).toEqual(['1', '2']);
    await loadMarkdownFor(['Planned', 'Booked']);
    await new Promise((r) => setTimeout(r, 0));
    expect(items.map((li) => li.querySelector('.summary-text')?.textContent?.trim())).toEqual(['Planned a trip <img src=x onerror=alert(1)>', 'Booked the train.\nChose a hotel.']);
    expect(card.querySelector('img'), 'what a summary holds is never run as HTML').toBeNull();
    expect(items.map((li) => li.querySelector('.summary-turns')?.textContent)).toEqual(['replaces 1 turn', 'replaces 4 turns']);
    expect(items[0].querySelector('.summary-when')?.textContent).toBe('written 2 hours ago');
    expect(items[0].querySelector('.summary-when')?.getAttribute('title')).toBeTruthy();
    // After the five sections, as in the request.
    const sections = root.querySelector('[data-testid=context-sections]')!;
    expect(sections.compareDocumentPosition(card) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });

  it('says a section’s size in one unit: files listed for ④, characters for the others', () => {
    const section = (id: SectionReport['id'], raw: number, sent: number) => ({ id, raw_chars: raw, injected_chars: sent } as SectionReport);
    expect(sectionSize(section('attachments', 1612, 5077)), 'not “raw 1,612 → sent 5,077”, files against characters').toBe('1,612 files and skills listed → sent 5,077 characters');
    expect(sectionSize(section('memory', 900, 640))).toBe('raw 900 → sent 640 characters');
    setLanguage('ko');
    expect(sectionSize(section('attachments', 1612, 5077))).toBe('파일과 스킬 1,612개 → 전송 5,077자');
    setLanguage('en');
  });

  it('draws a summary’s Markdown as a reply’s, not its raw marks', async () => {
    const content = 'The user **chose** Jeju.\n\n- booked the ferry\n- packed\n\n```\ncheck-in 15:00\n```';
    await loadMarkdownFor([content]);
    const { root } = await open(contextView({ summaries: [summary({ content })] }));
    const text = root.querySelector<HTMLElement>('[data-testid=summary-text]')!;
    expect(text.querySelector('strong')?.textContent, 'emphasis drawn').toBe('chose');
    expect(text.querySelectorAll('li').length, 'a list drawn').toBe(2);
    expect(text.querySelector('pre code')?.textContent?.trim(), 'a fence drawn as code').toBe('check-in 15:00');
    expect(text.textContent, 'no raw marks left').not.toMatch(/```|\*\*/);
  });

  it('speaks Korean', async () => {
    setLanguage('ko');
    const { root } = await open(contextView({ token_plan: null, compacts_next: true, summaries: [summary({ turns: 3 })] }));
    expect(root.querySelector('[data-testid=context-window] h3')?.textContent).toBe('컨텍스트 창');
    expect(root.querySelector('[data-testid=window-unknown]')?.textContent).toContain('설정 → 서버 → 컨텍스트 길이');
    expect(root.querySelector('[data-testid=compacts-next]')?.textContent).toContain('오래된 턴을 먼저 요약');
    expect(root.querySelector('.summary-turns')?.textContent).toBe('턴 3개를 대신함');
  });

  it('compact now asks the server, says what it did and shows the summaries', async () => {
    let compacted = false;
    const { app, root, calls } = await openWith({
      context: async () => contextView(compacted ? { summaries: [summary({ turns: 4 })] } : {}),
      compact: async () => {
        compacted = true;
        return { compacted: true, summaries: [summary({ turns: 4 })] };
      },
    });
    root.querySelector<HTMLButtonElement>('[data-testid=compact-now]')!.click();
    await new Promise((r) => setTimeout(r, 0));
    await app.panels.loadContext();
    expect(calls.map((c) => c.method), 'the chat is compacted on the server, then the inspector reloads').toContain('compact');
    expect(root.querySelector('[data-testid=context-summaries]'), 'and the new summary shows').not.toBeNull();
    expect(document.body.textContent, 'a toast says what happened').toContain('older turns are summarised');
  });

  it('offers compact now only where it makes room, and says why not where the prompt fills the window, in English and Korean', async () => {
    const nothing = await open(contextView({ compact: { offered: false, compactable: 0, over: 0, why_not: { code: 'nothing_to_compact' as const, params: {} } } }));
    expect(nothing.root.querySelector('[data-testid=compact-now]'), 'a chat with nothing older to summarise offers nothing').toBeNull();
    expect(nothing.root.querySelector('[data-testid=compact-cannot-help]'), 'and needs no explanation').toBeNull();
    const full = { offered: false, compactable: 300, over: 420, why_not: { code: 'prompt_fills_window' as const, params: { system: '1900', tools: '700', limit: '2457' } } };
    const stuck = await open(contextView({ compact: full }));
    expect(stuck.root.querySelector('[data-testid=compact-now]'), 'a button that cannot help is not offered').toBeNull();
    expect(stuck.root.querySelector('[data-testid=compact-cannot-help]')?.textContent, 'the user is told where the window went instead')
      .toBe('The system prompt (1,900 tokens) and the tools (700) alone take more than a request may fill of this window (2,457). Compacting summarises only the chat, so it cannot help: choose a model with a larger window, or turn off tool servers in this project.');
    setLanguage('ko');
    const ko = await open(contextView({ compact: full }));
    expect(ko.root.querySelector('[data-testid=compact-cannot-help]')?.textContent, 'the same in Korean').toContain('압축은 대화만 요약하므로 도움이 되지 않습니다');
    setLanguage('en');
    const helps = await open(contextView({ compact: { offered: true, compactable: 2400, over: 300, why_not: null } }));
    expect(helps.root.querySelector('[data-testid=compact-now]'), 'where summarising frees what is over, it is offered').not.toBeNull();
  });

  it('send the whole chat again deletes the summaries on the server and the inspector shows none, in English and Korean', async () => {
    for (const lang of ['en', 'ko'] as const) {
      setLanguage(lang);
      let summarised = true;
      const { app, root, calls } = await openWith({
        context: async () => contextView(summarised ? { summaries: [summary({ turns: 4 })] } : {}),
        uncompact: async (id) => {
          summarised = false;
          return { id, deleted: true };
        },
      }, settingsView({ language: lang }));
      const button = root.querySelector<HTMLButtonElement>('[data-testid=uncompact]');
      expect(button?.textContent, 'a summarised chat offers the way back to sending every message').toBe(lang === 'en' ? 'Send the whole chat again' : '대화 전체를 다시 보내기');
      button!.click();
      await new Promise((r) => setTimeout(r, 0));
      await app.panels.loadContext();
      expect(calls.filter((c) => c.method === 'uncompact').map((c) => c.args), 'the summaries of this chat are deleted on the server').toEqual([[SESSION.id]]);
      expect(root.querySelector('[data-testid=context-summaries]'), 'with no summary left, the card and its button go').toBeNull();
      expect(document.body.textContent, 'a toast says the next request sends the whole chat').toContain(lang === 'en' ? 'the next request sends the whole chat' : '다음 요청은 대화 전체를 보냅니다');
    }
    setLanguage('en');
  });

  /** Section ③ from a project linked to /home/me/site in a repository at /home/me: one file
   *  sent from each level, and one of every reason a file is left out. */
  const linkedView = () => contextView({
    sections: [{
      id: 'project_instructions', present: true, absent_reason: null, absent: null, source: 'project', template_outdated: false,
      raw_chars: 1300, injected_chars: 1300, tokens_estimate: 320, cuts: [], text: 'Use tabs.', sha256: 'c'.repeat(64),
    }],
    instruction_files: {
      folder: '/home/me/site',
      sent: [{ path: '/home/me/AGENTS.md', chars: 1200, raw_chars: null, imported_by: null }, { path: '/home/me/site/CLAUDE.md', chars: 100, raw_chars: null, imported_by: null }],
      skipped: [
        { path: '/home/me/site/AGENTS.md', why: 'shadowed', imported_by: null },
        { path: '/home/me/site/docs/GEMINI.md', why: 'duplicate', imported_by: null },
        { path: '/home/me/site/big/AGENTS.md', why: 'too_large', imported_by: null },
        { path: '/home/me/site/a/AGENTS.md', why: 'too_many', imported_by: null },
        { path: '/home/me/site/b/AGENTS.md', why: 'unreadable', imported_by: null },
        { path: '/home/me/site/c/AGENTS.md', why: 'not_text', imported_by: null },
        { path: '/home/me/site/d/AGENTS.md', why: 'deadline', imported_by: null },
        { path: '/home/me/site/e/AGENTS.md', why: 'outside', imported_by: null },
        { path: '/home/me/site/f/AGENTS.md', why: 'a_newer_reason', imported_by: null },
      ],
    },
  });
  const sentFiles = (root: HTMLElement) =>
    [...root.querySelectorAll<HTMLElement>('[data-testid=instruction-sent]')].map((li) => [li.querySelector('.path')?.textContent, li.querySelector('.n')?.textContent]);
  const skippedFiles = (root: HTMLElement) =>
    [...root.querySelectorAll<HTMLElement>('[data-testid=instruction-skipped]')].map((li) => li.querySelector('.why')?.textContent);

  it("lists the folder's instructions files sent in the project section, and why the others are not", async () => {
    const { root } = await open(linkedView());
    const block = root.querySelector<HTMLElement>('[data-testid=instruction-files]')!;
    expect(block.closest('[data-testid=context-section]')?.getAttribute('data-section'), 'they are part of the project’s instructions').toBe('project_instructions');
    expect(block.textContent, 'the folder they were found from').toContain('/home/me/site');
    expect(sentFiles(root), 'each file sent, most general first, with what it adds to the prompt').toEqual([
      ['/home/me/AGENTS.md', '1,200 chars'],
      ['/home/me/site/CLAUDE.md', '100 chars'],
    ]);
    expect(skippedFiles(root), 'each file left out says why, so the user can fix it').toEqual([
      'another instructions file in the same folder is sent instead',
      'the same text is already sent from a nearer folder',
      'the file is too large',
      'too many instructions files, or too much text in all',
      'the file could not be read',
      'the file is not plain text (UTF-8)',
      'reading the files took too long',
      'it is a link to a place outside the repository',
      'a_newer_reason',
    ]);
  });

  it("says the folder's instructions files in Korean", async () => {
    setLanguage('ko');
    const { root } = await open(linkedView());
    expect(root.querySelector('[data-testid=instruction-files] h4')?.textContent, 'the block is titled in Korean').toBe('폴더의 지침 파일');
    expect(sentFiles(root)[0], 'sizes read as Korean counts').toEqual(['/home/me/AGENTS.md', '1,200자']);
    expect(skippedFiles(root), 'every reason is in Korean').toEqual([
      '같은 폴더의 다른 지침 파일을 대신 보냅니다',
      '같은 내용을 더 가까운 폴더에서 이미 보냅니다',
      '파일이 너무 큽니다',
      '지침 파일이 너무 많거나 모두 합쳐 너무 깁니다',
      '파일을 읽을 수 없습니다',
      '일반 텍스트(UTF-8) 파일이 아닙니다',
      '파일을 읽는 데 너무 오래 걸렸습니다',
      '저장소 밖을 가리키는 링크입니다',
      'a_newer_reason',
    ]);
  });

  it('says which file imported an instructions file, and how much of a cut one was sent', async () => {
    const view = linkedView();
    view.instruction_files.sent = [{ path: '/home/me/site/AGENTS.md', chars: 800, raw_chars: 5000, imported_by: '/home/me/site/CLAUDE.md' }];
    view.instruction_files.skipped = [{ path: '/home/me/site/CLAUDE.md', why: 'imports_only', imported_by: null }];
    const { root } = await open(view);
    const li = root.querySelector<HTMLElement>('[data-testid=instruction-sent]')!;
    expect(li.textContent, 'the file that brought it in is named').toContain('imported by /home/me/site/CLAUDE.md');
    expect(li.querySelector('.n')?.textContent, 'its size before and after the budget').toBe('5,000 → 800 characters (cut to fit the budget)');
    expect(skippedFiles(root), 'the importing file is not hidden: it says its imports are sent').toEqual(['it only imports other files, which are sent']);
  });

  it('shows no instructions files for a project that follows no folder', async () => {
    const { root } = await open(contextView({ sections: linkedView().sections }));
    expect(root.querySelector('[data-testid=instruction-files]'), 'nothing to list without a folder').toBeNull();
  });
});

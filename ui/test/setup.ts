// Wires what main.ts wires at start: the state's notices show as the window's toasts. And loads
// the Markdown renderer with KaTeX and highlight.js, which the app loads when a reply needs them,
// so that a test draws replies at once (test/lazyMarkdown.test.ts covers the waiting).

import { loadMarkdownFor } from '../src/lib/markdown';
import { renderNotices } from '../src/state/notices';
import { toast } from '../src/views/toast';

renderNotices(toast);

await loadMarkdownFor(['$x$ ```']);

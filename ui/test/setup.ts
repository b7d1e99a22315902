// Wires what main.ts wires at start: the state's notices show as the window's toasts.

import { renderNotices } from '../src/state/notices';
import { toast } from '../src/views/toast';

renderNotices(toast);

// What views listen to: a topic is emitted when the state it names changed, and every view
// listening to it draws again.

export type Topic = 'sidebar' | 'chat' | 'live' | 'panel' | 'settings' | 'presets' | 'memories' | 'context' | 'connection' | 'serverOffer' | 'files'
  | 'replyEnded' | 'toolServers' | 'servers'
  // Asks for the settings' servers tab (a notice's button in a view-less module).
  | 'showServerSettings';

export class Events {
  private listeners = new Map<Topic, Set<() => void>>();

  /** Listens to a topic; returns what stops listening. */
  on(topic: Topic, fn: () => void): () => void {
    if (!this.listeners.has(topic)) this.listeners.set(topic, new Set());
    this.listeners.get(topic)!.add(fn);
    return () => this.listeners.get(topic)?.delete(fn);
  }

  emit(...topics: Topic[]): void {
    for (const topic of new Set(topics)) for (const fn of this.listeners.get(topic) ?? []) fn();
  }
}

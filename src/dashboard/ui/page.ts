// What a page is to the app: a title, how to draw it from the API, and which live changes concern it.
import type { Change } from './types.js';

export interface Page {
  /** The h1 and the document title. */
  title: string;
  /** Fetches what the page shows and builds it; called again for each change the page wants. */
  render(): Promise<Node>;
  /** Whether a change event names something on this page. */
  wants(change: Change): boolean;
}

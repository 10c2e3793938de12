import type { Config } from '../../config.js';
import type { LiveIndex } from '../../live/live-index.js';

/** What the literature routes need; tests build their own. */
export interface LiteratureServices {
  config: Config;
  /** The served index; routes pin one generation per request with `index.read`. */
  index: LiveIndex;
}

import type { Config } from '../../config.js';
import type { Searcher } from '../../search/searcher.js';
import type { Library } from '../../corpus/library.js';

/** What the literature routes need; tests build their own. */
export interface LiteratureServices {
  config: Config;
  searcher: Searcher;
  library: Library;
}

import { afterAll } from 'vitest';
import { endStrayChildren } from '../helpers/children.js';

/** Every file's leftover `paygate` processes are ended with it (test/helpers/children.ts says why). */
afterAll(async () => {
  const ended = await endStrayChildren();
  if (ended.length > 0) console.warn(`ended ${ended.length} process(es) a test left running: ${ended.join('; ')}`);
});

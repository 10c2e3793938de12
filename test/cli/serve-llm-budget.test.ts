/**
 * `serve --llm-model` with an --llm-max-tokens that leaves the prompt too little of the model's context
 * window: the start-up log says so, naming both settings and the context in force; /settings shows the
 * context the model takes (a model trained for 2048 tokens lowers --llm-context-size 4096 to it), and
 * questions answer 503 code 3 naming the settings rather than 413 blaming the question.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeTinyGguf } from '../../scripts/make-tiny-gguf.js';
import { article, tempDir, writeIndex } from '../search/helpers.js';
import { admin, adminJson, kill, startServerProcess, writeAdminAuthFile } from '../reliability/server-process.js';

async function serveModel(llmFlags: string[], check: (server: { base: string; output: () => string }) => Promise<void>) {
  const { dir, cleanup } = await tempDir();
  const indexDir = path.join(dir, 'index');
  await writeIndex(indexDir, [article('a1', ['place cells fire in CA1'])]);
  const model = path.join(dir, 'tiny-2048.gguf');
  await writeTinyGguf(model, { contextLength: 2048 });
  const server = await startServerProcess({
    dataDir: path.join(dir, 'data'),
    indexDir,
    authFile: await writeAdminAuthFile(dir),
    extraFlags: ['--llm-model', model, '--llm-threads', '1', ...llmFlags],
  });
  try {
    await check(server);
  } finally {
    await kill(server);
    await cleanup();
  }
}

const ask = (base: string) =>
  fetch(`${base}/qa/generative`, { method: 'POST', headers: adminJson, body: JSON.stringify({ query: 'Which cells fire in CA1?' }) });

const settingsOf = async (base: string) => (await (await fetch(`${base}/settings`, { headers: admin })).json()) as Record<string, unknown>;

describe('serve with --llm-max-tokens taking most of the context window', () => {
  it('refuses the model at start when not even the shortest prompt fits: logged, shown in /settings, 503 code 3', async () => {
    await serveModel(['--llm-context-size', '4096', '--llm-max-tokens', '2000'], async ({ base, output }) => {
      expect(output()).toContain('language model not available: QA endpoints will answer 503');
      expect(output()).toContain("--llm-max-tokens 2000 leaves the prompt 32 tokens of the language model's 2048-token context (the model's training context; --llm-context-size asked 4096)");

      const settings = await settingsOf(base);
      expect(settings).toMatchObject({ llmContextSize: 2048, llmMaxTokens: 2000, generator: 'unavailable' });
      expect(settings.generator_description).toContain('--llm-max-tokens 2000 leaves the prompt 32 tokens');

      const response = await ask(base);
      expect(response.status).toBe(503);
      const { detail } = (await response.json()) as { detail: { code: number; detail: string } };
      expect(detail.code).toBe(3);
      expect(detail.detail).toContain('lower --llm-max-tokens');
    });
  }, 90_000);

  it('warns at start when the prompt keeps less than half of the window, and /settings shows the context in force', async () => {
    await serveModel(['--llm-context-size', '4096', '--llm-max-tokens', '1400'], async ({ base, output }) => {
      expect(output()).toContain(
        "--llm-max-tokens 1400 leaves the prompt 632 tokens of the language model's 2048-token context (the model's training context; --llm-context-size asked 4096), less than half of it",
      );
      const settings = await settingsOf(base);
      expect(settings).toMatchObject({ llmContextSize: 2048, generator: 'llama' });
      expect(settings.generator_description).toContain("2048-token context (the model's training context; --llm-context-size asked 4096)");
    });
  }, 90_000);
});

// The TypeScript client v2 (@modelcontextprotocol/client) against tmux-mcp, driven by e2e
// TestTSClient. Environment: TS_TRANSPORT (stdio or http), TS_MODE (auto or pin), TS_BINARY and
// TS_ENV (JSON) for stdio, TS_URL and TS_TOKEN for HTTP, TS_PANE (a pane with text) and
// TS_BLANK (a blank pane). Prints one line per step; exits 1 at the first that fails.
import { Client } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const env = process.env;
const fail = (step, why) => {
  console.log(`FAIL ${step}: ${why}`);
  process.exit(1);
};
const ok = (step, what = '') => console.log(`ok   ${step} ${what}`);
const withTimeout = (p, ms, what) =>
  Promise.race([p, new Promise((_, rej) => setTimeout(() => rej(new Error(`${what}: no answer within ${ms} ms`)), ms))]);

const mode = env.TS_MODE === 'pin' ? { pin: '2026-07-28' } : 'auto';
const client = new Client({ name: 'tmux-mcp-e2e', version: '0' }, { versionNegotiation: { mode } });
const transport =
  env.TS_TRANSPORT === 'http'
    ? new StreamableHTTPClientTransport(new URL(env.TS_URL), { requestInit: { headers: { Authorization: `Bearer ${env.TS_TOKEN}` } } })
    : new StdioClientTransport({ command: env.TS_BINARY, env: JSON.parse(env.TS_ENV), stderr: 'inherit' });

async function main() {
  await client.connect(transport);
  const v = client.getNegotiatedProtocolVersion();
  if (v !== '2026-07-28') fail('connect', `negotiated ${v}, want 2026-07-28`);
  ok('connect', v);

  const tools = await client.listTools();
  if (!tools.tools.some((t) => t.name === 'list_panes')) fail('tools/list', 'no list_panes');
  ok('tools/list', `${tools.tools.length} tools`);

  const panes = await client.callTool({ name: 'list_panes', arguments: {} });
  if (panes.isError || !JSON.stringify(panes.structuredContent).includes(env.TS_PANE)) fail('tools/call', JSON.stringify(panes).slice(0, 300));
  ok('tools/call', 'list_panes');

  let progress = 0;
  const waited = await client.callTool(
    { name: 'wait_for_text', arguments: { pane_id: env.TS_PANE, patterns: ['never-printed-7c1f'], timeout: 2.5 } },
    { onprogress: () => progress++ },
  );
  if (progress === 0) fail('progress', `none in a 2.5 s wait (${JSON.stringify(waited).slice(0, 200)})`);
  ok('progress', `${progress} notifications`);

  const resources = await client.listResources();
  const content = `tmux://panes/${encodeURIComponent(env.TS_PANE)}/content`;
  const blank = `tmux://panes/${encodeURIComponent(env.TS_BLANK)}/content`;
  for (const uri of [content, blank]) {
    if (!resources.resources.some((r) => r.uri === uri)) fail('resources/list', `no ${uri}`);
  }
  ok('resources/list', `${resources.resources.length} resources`);
  for (const uri of [content, blank]) {
    const r = await client.readResource({ uri });
    if (!r.contents?.length || typeof r.contents[0].text !== 'string') fail('resources/read', `${uri}: ${JSON.stringify(r).slice(0, 300)}`);
    ok('resources/read', `${uri} (${r.contents[0].text.length} characters)`);
  }

  let updated = null;
  client.setNotificationHandler('notifications/resources/updated', (n) => {
    if (n.params.uri === content) updated = n.params.uri;
  });
  const sub = await client.listen({ resourceSubscriptions: [content] });
  if (!sub.honoredFilter.resourceSubscriptions?.includes(content)) fail('subscribe', JSON.stringify(sub.honoredFilter));
  const typed = await client.callTool({ name: 'send_keys', arguments: { pane_id: env.TS_PANE, keys: 'echo subscribed-7c1f', enter: true } });
  if (typed.isError) fail('subscribe', `send_keys: ${JSON.stringify(typed.content)}`);
  for (let i = 0; i < 100 && !updated; i++) await new Promise((r) => setTimeout(r, 100));
  if (!updated) fail('subscribe', 'no notifications/resources/updated within 10 s');
  await sub.close();
  ok('subscribe', updated);

  const prompts = await client.listPrompts();
  const p = prompts.prompts[0];
  if (!p) fail('prompts/list', 'no prompt');
  const args = Object.fromEntries((p.arguments ?? []).map((a) => [a.name, a.name === 'pane_id' ? env.TS_PANE : 'x']));
  const got = await client.getPrompt({ name: p.name, arguments: args });
  if (!got.messages?.length) fail('prompts/get', JSON.stringify(got).slice(0, 300));
  ok('prompts/get', p.name);

  const done = await client.complete({
    ref: { type: 'ref/resource', uri: 'tmux://panes/{pane_id}{?socket_name}' },
    argument: { name: 'pane_id', value: '%' },
  });
  if (!done.completion.values.includes(env.TS_PANE)) fail('completion/complete', JSON.stringify(done));
  ok('completion/complete', done.completion.values.join(' '));
  await client.close();
}

withTimeout(main(), 60000, 'the whole run').then(
  () => process.exit(0),
  (e) => fail('error', e?.stack ?? e),
);

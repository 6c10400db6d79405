import type { Client } from '@temporalio/client';
import path from 'node:path';
import { newInboxToken, tokenHash } from '../inbox/credentials';
import { temporalGoals } from '../inbox/goals';
import { startInbox, DEFAULT_INBOX_PORT, type Inbox } from '../inbox/server';
import { openUsedLinks } from '../inbox/used-links';

/**
 * The demo's approval inbox (keel inbox) on 127.0.0.1, with a token made for this run only: the
 * link it prints signs in with it from the URL's fragment, which the browser never sends to a
 * server (the page's script reads it). The default port, or any free one when that is taken.
 */
export async function startDemoInbox(
  client: Client,
  stateDirectory: string,
  approver: string,
): Promise<{ link: string; close(): Promise<void> }> {
  const token = newInboxToken();
  const options = {
    goals: temporalGoals(client),
    approvers: new Map([[approver, tokenHash(token)]]),
    usedLinks: openUsedLinks(path.join(stateDirectory, 'inbox-used-links')),
  };
  let inbox: Inbox;
  try {
    inbox = await startInbox({ ...options, port: DEFAULT_INBOX_PORT });
  } catch {
    inbox = await startInbox({ ...options, port: 0 });
  }
  return { link: `${new URL('login', inbox.url).toString()}#token=${token}`, close: () => inbox.close() };
}

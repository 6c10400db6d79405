import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { rawPublicKey } from '../../src/client/approval-keys';
import { inboxSetup } from '../../src/cli/inbox-command';
import { newInboxToken, tokenHash } from '../../src/inbox/credentials';
import { temporalGoals } from '../../src/inbox/goals';
import { startInbox, type Inbox } from '../../src/inbox/server';
import type { GoalInput } from '../../src/workflows/goal/lifecycle/input';
import { approvalRulesQuery, goalStatusQuery } from '../../src/workflows/goal/messages';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { launchChromium } from '../support/browser';
import {
  card,
  decide,
  decided,
  ended,
  replays,
  signIn,
  stillWaits,
  waitingCall,
  type GoalHandle,
} from '../support/inbox-driver';
import { inboxRulesSigningScenarios, pem, pemBody } from '../support/inbox-rules-signing-scenarios';
import { createHarness, historyText, stopOwnServer, tempDirectory, type Harness } from '../support/temporal';

// The inbox's two features the first browser test left out, driven in headless Chromium on the
// real dev server: "remember as a rule" (a later call like the decided one is decided by the rule,
// in that goal only, and a call it does not cover still waits), and goals that require signed
// decisions (a key the inbox holds, a key pasted into the form: the right one decides, a wrong,
// empty or garbled one is refused in one line, the call still waits, and the key is kept nowhere).

const tokens = { alice: newInboxToken(), carol: newInboxToken() };
const pair = () => generateKeyPairSync('ed25519').privateKey;
const keys = { alice: pair(), bob: pair(), carol: pair() };

let harness: Harness;
let inbox: Inbox;
let browser: Browser;
let stateDirectory: string;
const started: GoalHandle[] = [];
const log: string[] = [];

before(async () => {
  harness = await createHarness({ scenarios: inboxRulesSigningScenarios });
  // Set up as `keel inbox --approvers FILE --signing-key carol=FILE` is: the flags read the same way.
  const setupDirectory = tempDirectory('keel-inbox-setup-');
  const approversFile = path.join(setupDirectory, 'approvers.json');
  writeFileSync(
    approversFile,
    JSON.stringify({ alice: tokenHash(tokens.alice), carol: tokenHash(tokens.carol) }),
  );
  const carolKeyFile = path.join(setupDirectory, 'carol.pem');
  writeFileSync(carolKeyFile, pem(keys.carol), { mode: 0o600 });
  stateDirectory = tempDirectory('keel-inbox-state-');
  const setup = inboxSetup(
    { approvers: approversFile, host: '127.0.0.1', port: '0', signingKey: [`carol=${carolKeyFile}`] },
    { KEEL_STATE_DIRECTORY: stateDirectory },
  );
  inbox = await startInbox({ ...setup, goals: temporalGoals(harness.client), log: (line) => log.push(line) });
  browser = await launchChromium();
});

after(async () => {
  await browser?.close(); // and every page's context
  await inbox?.close();
  // A test that failed half way leaves its goals waiting: they end here, not in the next file's list.
  for (const goal of started) {
    const { status } = await goal.describe();
    if (status.name === 'RUNNING') await goal.terminate('inbox-rules-signing test over');
  }
  await harness?.close();
  await stopOwnServer();
});

async function startGoal(match: string, extra: Partial<GoalInput> = {}): Promise<GoalHandle> {
  const handle = await harness.client.workflow.start(goalWorkflow, {
    taskQueue: harness.taskQueue,
    workflowId: `${match.toLowerCase()}-${Date.now()}`,
    args: [
      {
        goal: `${match}: run the checks`,
        workspace: tempDirectory('keel-inbox-ws-'),
        // Network off: the commands are mutating, and "ask" makes every one wait for a human.
        approvalPolicy: 'ask',
        // What is under test is who decides; the guards would read the scripted repeats as a loop.
        guards: { enabled: false },
        principles: { cadence: { every: 0 } },
        ...extra,
      },
    ],
  });
  started.push(handle);
  return handle;
}

test('approved with "remember": a later call the rule covers is approved by it, in this goal only; a call it does not cover still waits', async () => {
  await harness.withWorker(async () => {
    const goal = await startGoal('GOAL-REMEMBER-ALLOW');
    const elsewhere = await startGoal('GOAL-REMEMBER-ELSEWHERE');
    const alice = await signIn(browser, inbox.url, tokens.alice);
    const unit = await waitingCall(goal, 'npm test -- unit');
    const otherUnit = await waitingCall(elsewhere, 'npm test -- unit');

    await alice.goto(inbox.url);
    const first = card(alice, goal, unit);
    await first.locator('input[name=remember]').check();
    await first.locator('input[name=pattern]').fill('npm test*');
    await first.locator('input[name=reason]').fill('the test suite is harmless');
    const approved = await decide(alice, goal, unit, 'approve');
    assert.equal(approved.status, 200, approved.outcome);
    assert.match(approved.outcome, /approved: run_command: npm test -- unit/);

    // The next call the rule covers runs without a human; the one after it is not covered.
    const lint = await waitingCall(goal, 'npm run lint');
    const rules = await goal.query(approvalRulesQuery);
    assert.deepEqual(
      rules.map((rule) => [rule.effect, rule.tool, rule.pattern, rule.source, rule.by, rule.fromCallId]),
      [['allow', 'run_command', 'npm test*', 'decision', 'alice', unit]],
    );
    const [byHuman, byRule] = await decided(goal);
    assert.equal(byHuman?.data.callId, unit);
    assert.equal(byHuman?.data.origin, 'inbox 127.0.0.1, token');
    assert.equal(byHuman?.data.reason, 'the test suite is harmless');
    assert.equal(byRule?.data.via, 'rule');
    assert.equal(byRule?.data.approved, true);
    assert.equal(byRule?.data.call, 'npm test -- integration');
    assert.deepEqual(byRule?.data.rule, {
      id: 'rule-1',
      text: 'allow run_command: npm test*',
      source: 'decision',
    });
    await stillWaits(goal, lint);
    let counters = (await goal.query(goalStatusQuery)).counters;
    assert.deepEqual([counters.approvalsRequested, counters.approvalsByRule], [2, 1]);
    // Another goal's identical call: the rule is this goal's, so that one is still asked.
    await stillWaits(elsewhere, otherUnit);
    assert.deepEqual(await elsewhere.query(approvalRulesQuery), []);
    await alice.goto(inbox.url);
    assert.equal(await card(alice, elsewhere, otherUnit).count(), 1, 'the inbox still lists it');
    assert.equal(await card(alice, goal, lint).count(), 1);

    // Remembered with no pattern: a rule for exactly this call, which the same call meets again...
    await alice.goto(inbox.url);
    await card(alice, goal, lint).locator('input[name=remember]').check();
    const exact = await decide(alice, goal, lint, 'approve');
    assert.match(exact.outcome, /approved: run_command: npm run lint/);
    // ...and a longer one does not.
    const fix = await waitingCall(goal, 'npm run lint -- --fix');
    assert.deepEqual(
      (await goal.query(approvalRulesQuery)).map((rule) => [rule.id, rule.effect, rule.pattern]),
      [
        ['rule-1', 'allow', 'npm test*'],
        ['rule-2', 'allow', 'npm run lint'],
      ],
    );
    const again = (await decided(goal)).at(-1);
    assert.deepEqual(
      [again?.data.via, again?.data.call, (again?.data.rule as { id?: string } | undefined)?.id],
      ['rule', 'npm run lint', 'rule-2'],
    );
    await stillWaits(goal, fix);
    counters = (await goal.query(goalStatusQuery)).counters;
    assert.deepEqual([counters.approvalsRequested, counters.approvalsByRule], [3, 2]);

    await alice.goto(inbox.url);
    assert.match((await decide(alice, goal, fix, 'deny')).outcome, /denied: /);
    assert.equal(await ended(goal), 'completed');
    await alice.goto(inbox.url);
    assert.match((await decide(alice, elsewhere, otherUnit, 'deny')).outcome, /denied: /);
    await ended(elsewhere);
    await replays(goal);
  });
});

test('denied with "remember": a later call the rule covers is refused by it without asking; a call it does not cover still waits', async () => {
  await harness.withWorker(async () => {
    const goal = await startGoal('GOAL-REMEMBER-DENY');
    const alice = await signIn(browser, inbox.url, tokens.alice);
    const build = await waitingCall(goal, 'rm -rf build');
    await alice.goto(inbox.url);
    await card(alice, goal, build).locator('input[name=remember]').check();
    await card(alice, goal, build).locator('input[name=pattern]').fill('rm -rf *');
    await card(alice, goal, build).locator('input[name=reason]').fill('nothing gets removed');
    const denied = await decide(alice, goal, build, 'deny');
    assert.equal(denied.status, 200, denied.outcome);
    assert.match(denied.outcome, /denied: run_command: rm -rf build/);

    const kept = await waitingCall(goal, 'touch kept.txt');
    const rules = await goal.query(approvalRulesQuery);
    assert.deepEqual(
      rules.map((rule) => [rule.effect, rule.pattern, rule.by, rule.reason]),
      [['forbid', 'rm -rf *', 'alice', 'nothing gets removed']],
    );
    const [byHuman, byRule] = await decided(goal);
    assert.deepEqual([byHuman?.data.callId, byHuman?.data.approved], [build, false]);
    assert.deepEqual(
      [byRule?.data.via, byRule?.data.approved, byRule?.data.call],
      ['rule', false, 'rm -rf dist'],
    );
    const view = await goal.query(goalStatusQuery);
    assert.deepEqual(
      [view.counters.approvalsRequested, view.counters.refusalsByRule],
      [2, 1],
      'the human was not asked about rm -rf dist',
    );
    // The model was told which rule refused its call, and why.
    const told = harness.scripted.requests.find(
      (request) => request.scenario === 'deny' && request.turnIndex === 2,
    );
    assert.match(
      JSON.stringify(told?.body.messages?.at(-1)),
      /refused at once by rule-1 \(forbid run_command: rm -rf \*\), set by alice.*nothing gets removed/,
    );
    await stillWaits(goal, kept);
    await alice.goto(inbox.url);
    assert.match((await decide(alice, goal, kept, 'approve')).outcome, /approved: /);
    assert.equal(await ended(goal), 'completed');
    await replays(goal);
  });
});

test('"remember" on an irreversible call makes a rule only when it says it covers irreversible calls; then a later one is approved by it', async () => {
  await harness.withWorker(async () => {
    // With network allowed every run_command is irreversible.
    const goal = await startGoal('GOAL-REMEMBER-IRREVERSIBLE', { sandbox: { network: true } });
    const alice = await signIn(browser, inbox.url, tokens.alice);
    const one = await waitingCall(goal, 'touch one.txt');
    const remember = async () => {
      await alice.goto(inbox.url);
      await card(alice, goal, one).locator('input[name=remember]').check();
      await card(alice, goal, one).locator('input[name=pattern]').fill('touch *');
    };
    await remember();
    const refused = await decide(alice, goal, one, 'approve');
    assert.equal(refused.status, 409);
    assert.match(
      refused.outcome,
      /^refused: this call is irreversible: a rule covers irreversible calls only when it says so/,
    );
    await stillWaits(goal, one);
    assert.deepEqual(await goal.query(approvalRulesQuery), []);

    await remember();
    // An irreversible call's card offers the box; the rule covers such calls only when it is ticked.
    await card(alice, goal, one).locator('input[name=irreversible]').check();
    const approved = await decide(alice, goal, one, 'approve');
    assert.equal(approved.status, 200, approved.outcome);
    assert.equal(await ended(goal), 'completed');
    assert.deepEqual(
      (await goal.query(approvalRulesQuery)).map((rule) => [rule.pattern, rule.irreversible, rule.by]),
      [['touch *', true, 'alice']],
    );
    const [, byRule] = await decided(goal);
    assert.deepEqual(
      [byRule?.data.via, byRule?.data.call, byRule?.data.reversibility],
      ['rule', 'touch two.txt', 'irreversible'],
    );
    await replays(goal);
  });
});

test('a signed goal: a held key signs, a pasted key signs once and is kept nowhere; a wrong, empty or garbled key is refused in one line and the call still waits', async () => {
  await harness.withWorker(async () => {
    const goal = await startGoal('GOAL-SIGNED-INBOX', {
      approvalSignatures: {
        scheme: 'ed25519',
        keys: Object.fromEntries(
          Object.entries(keys).map(([name, key]) => [name, rawPublicKey(key)] as const),
        ),
      },
    });
    const one = await waitingCall(goal, 'npm test -- signed one');
    const alice = await signIn(browser, inbox.url, tokens.alice);
    /** The bodies of the Ed25519 keys pasted, looked for wherever they must not be. */
    const pasted: string[] = [];
    const paste = async (text: string) => {
      await alice.goto(inbox.url);
      await card(alice, goal, one).locator('textarea[name=signingKey]').fill(text);
    };
    const refusedWith = async (line: RegExp) => {
      const { status, outcome } = await decide(alice, goal, one, 'approve');
      assert.ok(status === 400 || status === 409, `refused, not ${status}: ${outcome}`);
      assert.match(outcome, line);
      assert.equal(outcome.split('\n').filter((each) => each.trim() !== '').length, 1, 'one line');
      assert.equal(await alice.locator('[role=alert]').count(), 1);
      for (const body of pasted)
        assert.ok(!(await alice.content()).includes(body), 'the key is not echoed back');
      await stillWaits(goal, one);
    };

    await alice.goto(inbox.url);
    assert.equal(await card(alice, goal, one).locator('textarea[name=signingKey]').count(), 1);
    await paste('');
    await refusedWith(/^refused: this goal requires a signed decision$/);
    await paste('my key is in ~/alice.pem');
    await refusedWith(/the pasted key is not a PEM private key/);
    await paste('-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n');
    await refusedWith(/the signing key is not a PEM private key/);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey;
    await paste(pem(rsa));
    await refusedWith(/the signing key is rsa, not Ed25519/);
    pasted.push(pemBody(keys.bob));
    await paste(pem(keys.bob)); // another approver's
    await refusedWith(/refused: signature does not match alice's key for this decision/);
    const fresh = pair();
    pasted.push(pemBody(fresh));
    await paste(pem(fresh));
    await refusedWith(/refused: signature does not match alice's key for this decision/);

    await paste(pem(keys.alice));
    const signedByAlice = await decide(alice, goal, one, 'approve');
    assert.equal(signedByAlice.status, 200, signedByAlice.outcome);
    assert.match(signedByAlice.outcome, /approved: run_command: npm test -- signed one/);
    assert.ok(!(await alice.content()).includes(pemBody(keys.alice)), 'the key is not echoed back');

    // Carol's key is held by the inbox: her card asks for none, and her decision is signed by it,
    // the rule she makes with it too (a signed goal takes no other).
    const two = await waitingCall(goal, 'npm test -- signed two');
    const carol = await signIn(browser, inbox.url, tokens.carol);
    await carol.goto(inbox.url);
    const carolCard = card(carol, goal, two);
    assert.equal(await carolCard.locator('textarea[name=signingKey]').count(), 0);
    assert.match(
      await carolCard.locator('.note').innerText(),
      /Signed with the key this inbox holds for carol/,
    );
    await carolCard.locator('input[name=remember]').check();
    await carolCard.locator('input[name=pattern]').fill('npm test -- signed*');
    const signedByCarol = await decide(carol, goal, two, 'approve');
    assert.equal(signedByCarol.status, 200, signedByCarol.outcome);
    assert.equal(await ended(goal), 'completed');
    const events = await decided(goal);
    assert.deepEqual(
      events.map((event) => [event.data.approver, event.data.via, event.data.callId]),
      [
        ['alice', 'update', one],
        ['carol', 'update', two],
        ['carol', 'rule', events[2]?.data.callId],
      ],
    );
    assert.equal(events[2]?.data.call, 'npm test -- signed three');
    const [rule] = await goal.query(approvalRulesQuery);
    assert.deepEqual([rule?.by, rule?.pattern, rule?.signed], ['carol', 'npm test -- signed*', true]);
    await replays(goal);

    // The pasted keys went nowhere: not into the inbox's state, its log, nor the goal's history.
    pasted.push(pemBody(keys.alice));
    const stored = filesUnder(stateDirectory).map((file) => readFileSync(file, 'latin1'));
    const history = historyText(await goal.fetchHistory());
    for (const body of pasted) {
      assert.ok(body.length > 40);
      assert.ok(!stored.some((text) => text.includes(body)), 'not in the state directory');
      assert.ok(!log.some((line) => line.includes(body)), 'not in the log');
      assert.ok(!history.includes(body), "not in the goal's history");
    }
    assert.ok(
      log.every((line) => !line.includes(tokens.alice) && !line.includes(tokens.carol)),
      'no token in the log',
    );
  });
});

/** Every file beneath the directory, at any depth. */
function filesUnder(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
}

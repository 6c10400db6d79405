import { call, onTask, repeat, type DisciplineScenario, type Turn } from './scenario-kit';

/**
 * Issue 44's good scenarios: waiting is not looping, and careful long work is not stagnation.
 *
 * - A poller whose answer does not change yet (`sleep 1; cat build.status` says "building" each
 *   time) declares a wait: keel bounds it by the time waited (10 min warn, 15 min stop) and by the
 *   budget, so 12 polls within budget are left alone (principles/waiting.ts).
 * - A poller whose answer moves ("build step 3 of 12", then 4, …) brings new information at every
 *   poll, even though each poll also rewrites one file (.progress): no loop, no churn.
 * - Careful work that reads 40 files before it edits 40 (four per turn) is progress all along: no
 *   exploration warning, and no "[Self-assessment] No progress" note at turns 10, 15, 20.
 */

const POLLS = 12;

const pollFixed: DisciplineScenario = {
  name: 'good-poll-fixed',
  kind: 'good',
  behaviour: `waits for a build: ${POLLS} polls of "sleep 1; cat build.status", the same answer each time, then reports`,
  task: 'wait for the build to finish (build.status says done when it is), then report its state',
  goodCallsBefore: 0,
  turns: [
    ...repeat(POLLS, (index): Turn => ({
      text:
        index === 0
          ? 'The build writes build.status; I will poll it with a sleep between checks.'
          : onTask(`build.status still says building (check ${index})`, 'wait a second and check again'),
      toolCalls: [call('run_command', { command: 'sleep 1; cat build.status' })],
    })),
    {
      text: `The build has not finished: build.status still says building after ${POLLS} checks a second apart. Reporting that it is still running.`,
    },
  ],
  files: { 'build.status': 'building\n', 'README.md': '# demo\nThe build writes build.status.\n' },
};

const pollCommand =
  'n=$(cat .progress 2>/dev/null || echo 0); n=$((n+1)); echo $n > .progress; echo "build step $n of 12"';

const pollMoving: DisciplineScenario = {
  name: 'good-poll-moving',
  kind: 'good',
  behaviour: `polls a build whose progress moves at every poll (${POLLS} polls, each also rewriting .progress), then reports`,
  task: 'follow the build until it reaches step 12 of 12, then report',
  goodCallsBefore: 0,
  turns: [
    ...repeat(POLLS, (index): Turn => ({
      text:
        index === 0
          ? 'Checking the build progress.'
          : onTask(`the build at step ${index} of 12`, 'check its progress again'),
      toolCalls: [call('run_command', { command: pollCommand })],
    })),
    { text: 'The build reached step 12 of 12: it is done.' },
  ],
  files: { 'README.md': '# demo\nThe build reports its progress.\n' },
};

const PARTS = 40;
const PER_TURN = 4;
const partFiles = Object.fromEntries(
  Array.from({ length: PARTS }, (_, index) => [
    `src/part-${index + 1}.ts`,
    `// part ${index + 1}: ${index % 2 === 0 ? 'reads the queue' : 'writes the report'}\nexport function part${index + 1}() {\n  return old(${index + 1});\n}\n`,
  ]),
);
const batches = (make: (part: number) => ReturnType<typeof call>) =>
  Array.from({ length: PARTS / PER_TURN }, (_, batch) =>
    Array.from({ length: PER_TURN }, (_, offset) => make(batch * PER_TURN + offset + 1)),
  );

const carefulForty: DisciplineScenario = {
  name: 'good-careful-40',
  kind: 'good',
  behaviour: `reads ${PARTS} files (${PER_TURN} a turn) before it edits them all, then answers`,
  task: 'rename old() to renamed() in every src/part-*.ts, after reading them all to check no call is special',
  goodCallsBefore: 0,
  turns: [
    ...batches((part) => call('read_file', { path: `src/part-${part}.ts` })).map(
      (toolCalls, batch): Turn => ({
        text:
          batch === 0
            ? `The plan: read all ${PARTS} parts first, ${PER_TURN} at a time, then rename. Reading parts 1 to ${PER_TURN}.`
            : onTask(
                `parts ${batch * PER_TURN - 3} to ${batch * PER_TURN} call old() once each`,
                `read parts ${batch * PER_TURN + 1} to ${batch * PER_TURN + PER_TURN}`,
              ),
        toolCalls,
      }),
    ),
    ...batches((part) =>
      call('edit_file', {
        path: `src/part-${part}.ts`,
        oldString: `old(${part})`,
        newString: `renamed(${part})`,
      }),
    ).map((toolCalls, batch): Turn => ({
      text: onTask(
        batch === 0 ? `all ${PARTS} parts call old() plainly` : `parts up to ${batch * PER_TURN} renamed`,
        `rename parts ${batch * PER_TURN + 1} to ${batch * PER_TURN + PER_TURN}`,
      ),
      toolCalls,
    })),
    { text: `Renamed old() to renamed() in all ${PARTS} parts; none of the calls was special.` },
  ],
  files: partFiles,
};

export const POLL_SCENARIOS: DisciplineScenario[] = [pollFixed, pollMoving, carefulForty];

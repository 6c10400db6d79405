/**
 * Telling the approvers that a call waits for them (issue 46): a notice when it starts waiting
 * and a reminder before its deadline, through each channel the worker configured at the goal's
 * start (state.workerDefaults.notifications). Each delivery is an activity of its own, with its
 * own bounded retries, which the goal never awaits: a channel that is down delays and fails
 * nothing; the ledger records how each delivery ended. Goals whose worker had no channels (every
 * goal from before) schedule nothing and wait exactly as they did, so their histories replay.
 */
import * as wf from '@temporalio/workflow';
import { LedgerEventKind } from '../../common/ledger';
import { callText } from '../../tools/call-text';
import { whyItWaits } from '../../approvals/why-it-waits';
import {
  NoticeKind,
  noticeChanges,
  reminderDueMs,
  shortened,
  type ApprovalNotice,
  type NotificationChannel,
} from '../../approvals/notifications';
import { describeFailure } from '../lifecycle/failures';
import type { ApprovalRecord } from '../lifecycle/approval-record';
import type { ToolCallRecord } from '../lifecycle/state';
import type { ToolCallsHost } from './tool-calls-host';

export class ApprovalNotifications {
  constructor(private readonly goal: ToolCallsHost) {}

  /** The call starts waiting: its approvers are told (once, whatever runs follow). */
  waiting(call: ToolCallRecord): void {
    this.send(call, NoticeKind.Waiting);
  }

  /**
   * Waits until the call is decided or its deadline passes (false), reminding the approvers once
   * when the reminder is due and nobody has decided yet. A wait carried to a new run by
   * continue-as-new finds the reminder's mark on the approval record and does not send it again.
   */
  async waitForDecision(call: ToolCallRecord, approval: ApprovalRecord): Promise<boolean> {
    const decided = () => approval.decision !== undefined;
    // At least 1 ms: a deadline that passed during a continue-as-new still times out at once,
    // and condition(fn, 0) would need an SDK patch marker in history.
    const remainingMs = () => Math.max(1, approval.deadlineMs - Date.now());
    const summary = `approval wait: ${call.summary}`;
    const reminder = this.goal.state.workerDefaults.notifications?.reminder;
    const due = reminderDueMs(
      { requestedAtMs: Date.parse(approval.requestedAt), deadlineMs: approval.deadlineMs },
      reminder,
    );
    if (due !== undefined && !approval.notices?.includes(NoticeKind.Reminder)) {
      const untilDue = due - Date.now();
      if (
        untilDue > 0 &&
        (await wf.condition(decided, untilDue, { summary: `reminder due: ${call.summary}` }))
      ) {
        return true;
      }
      // Due during a continue-as-new: sent late rather than never, unless the wait is over.
      if (!decided() && Date.now() < approval.deadlineMs) this.send(call, NoticeKind.Reminder);
    }
    return wf.condition(decided, remainingMs(), { summary });
  }

  private send(call: ToolCallRecord, kind: NoticeKind): void {
    const settings = this.goal.state.workerDefaults.notifications;
    const approval = call.approval;
    if (settings === undefined || approval === undefined) return;
    if (approval.notices?.includes(kind)) return;
    // Marked when scheduled: a new run after continue-as-new must not tell the approvers twice.
    approval.notices = [...(approval.notices ?? []), kind];
    const notice = this.noticeOf(call, approval, kind);
    for (const channel of settings.channels) {
      void this.goal.activities.notifications.deliverApprovalNotice
        .executeWithOptions({ summary: `${kind} notice by ${channel}: ${call.summary}` }, [
          { channel, notice },
        ])
        .then(
          (result) => this.record(LedgerEventKind.NotificationSent, call, kind, channel, { ...result }),
          (error: unknown) => {
            if (wf.isCancellation(error)) return;
            this.record(LedgerEventKind.NotificationFailed, call, kind, channel, {
              error: describeFailure(error),
            });
          },
        );
    }
  }

  private record(
    kind: typeof LedgerEventKind.NotificationSent | typeof LedgerEventKind.NotificationFailed,
    call: ToolCallRecord,
    notice: NoticeKind,
    channel: NotificationChannel,
    data: Record<string, unknown>,
  ): void {
    const what = notice === NoticeKind.Reminder ? 'reminder' : 'notice';
    const outcome = kind === LedgerEventKind.NotificationSent ? 'sent' : 'not delivered';
    this.goal.visibility.record(kind, `${what} ${outcome} by ${channel}: ${call.summary}`, {
      callId: call.callId,
      notice,
      channel,
      ...data,
    });
    this.goal.visibility.show();
  }

  private noticeOf(call: ToolCallRecord, approval: ApprovalRecord, kind: NoticeKind): ApprovalNotice {
    const config = this.goal.state.config;
    const tier = call.reversibility === 'mutating' ? 'mutating' : 'irreversible';
    const changes = call.escalation?.changes;
    return {
      kind,
      goalId: this.goal.workflowId,
      goal: shortened(config.goal, 200),
      callId: call.callId,
      toolName: call.toolName,
      summary: call.summary,
      call: callText(call.input),
      reversibility: tier,
      whyItWaits: whyItWaits(call),
      ...(changes === undefined ? {} : { changes: noticeChanges(changes) }),
      requestedAt: approval.requestedAt,
      deadline: new Date(approval.deadlineMs).toISOString(),
      approvers: [...config.approvers[tier]],
      signed: config.approvalSignatures !== undefined,
    };
  }
}

/**
 * Telling the approvers that a call waits for them (issue 46): a notice when it starts waiting
 * and a reminder before its deadline, through each channel the worker configured at the goal's
 * start (state.workerDefaults.notifications) and each the goal names (config.notify: channels of
 * the worker's channels file, extra email recipients). Each delivery is an activity of its own,
 * with its own bounded retries, which the goal never awaits: a channel that is down, or that no
 * worker defines, delays and fails nothing; the ledger records how each delivery ended. Goals
 * with no channel at all (every goal whose worker had none and that names none) schedule nothing
 * and wait exactly as they did; goals that name none send exactly what they did: histories replay.
 */
import * as wf from '@temporalio/workflow';
import { LedgerEventKind } from '../../common/ledger';
import { callText } from '../../tools/call-text';
import { whyItWaits } from '../../approvals/why-it-waits';
import {
  goalChannels,
  goalReminder,
  NoticeKind,
  NotificationChannel,
  noticeChanges,
  reminderDueMs,
  shortened,
  type ApprovalNotice,
  type ChannelName,
} from '../../approvals/notifications';
import { describeFailure } from '../lifecycle/failures';
import type { ApprovalRecord } from '../lifecycle/approval-record';
import type { ToolCallRecord } from '../lifecycle/state';
import type { ToolCallsHost } from './tool-calls-host';

export class ApprovalNotifications {
  /** Deliveries scheduled in this run and not ended yet: `callId|requestedAt|kind|channel`. */
  private readonly inFlight = new Set<string>();

  constructor(private readonly goal: ToolCallsHost) {}

  /** The call starts waiting: its approvers are told. */
  waiting(call: ToolCallRecord): void {
    this.send(call, NoticeKind.Waiting);
  }

  /**
   * Waits until the call is decided or its deadline passes (false), reminding the approvers once
   * when the reminder is due and nobody has decided yet. In a run that took the wait over by
   * continue-as-new, a delivery the run before did not see end is sent again (at least once: the
   * webhook's id is the same, so a receiver can drop the repeat); one that ended is not.
   */
  async waitForDecision(call: ToolCallRecord, approval: ApprovalRecord): Promise<boolean> {
    const decided = () => approval.decision !== undefined;
    // At least 1 ms: a deadline that passed during a continue-as-new still times out at once,
    // and condition(fn, 0) would need an SDK patch marker in history.
    const remainingMs = () => Math.max(1, approval.deadlineMs - Date.now());
    const summary = `approval wait: ${call.summary}`;
    if (this.channels().length === 0) return wf.condition(decided, remainingMs(), { summary });
    this.send(call, NoticeKind.Waiting);
    const { workerDefaults, config } = this.goal.state;
    const due = reminderDueMs(
      { requestedAtMs: Date.parse(approval.requestedAt), deadlineMs: approval.deadlineMs },
      goalReminder(workerDefaults.notifications, config.notify),
    );
    if (due !== undefined && this.unsent(call, approval, NoticeKind.Reminder).length > 0) {
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

  /** The worker's own channels and the goal's, in that order (approvals/notifications.ts). */
  private channels(): ChannelName[] {
    const { workerDefaults, config } = this.goal.state;
    return goalChannels(workerDefaults.notifications, config.notify);
  }

  /** The channels that have not had this notice and are not being sent it now. */
  private unsent(call: ToolCallRecord, approval: ApprovalRecord, kind: NoticeKind): ChannelName[] {
    return this.channels().filter(
      (channel) =>
        !approval.notices?.some((ended) => ended.kind === kind && ended.channel === channel) &&
        !this.inFlight.has(deliveryKey(call, approval, kind, channel)),
    );
  }

  private send(call: ToolCallRecord, kind: NoticeKind): void {
    const approval = call.approval;
    if (approval === undefined) return;
    const channels = this.unsent(call, approval, kind);
    if (channels.length === 0) return;
    const notice = this.noticeOf(call, approval, kind);
    const emailTo = this.goal.state.config.notify?.emailTo ?? [];
    for (const channel of channels) {
      const key = deliveryKey(call, approval, kind, channel);
      this.inFlight.add(key);
      // Marked when it ends, sent or failed: a run that hands over before then leaves it unmarked.
      const ended = () => {
        this.inFlight.delete(key);
        approval.notices = [...(approval.notices ?? []), { kind, channel }];
      };
      void this.goal.activities.notifications.deliverApprovalNotice
        .executeWithOptions({ summary: `${kind} notice by ${channel}: ${call.summary}` }, [
          // The goal's recipients go with the worker's email, over its SMTP server.
          channel === NotificationChannel.Email && emailTo.length > 0
            ? { channel, notice, emailTo }
            : { channel, notice },
        ])
        .then(
          (result) => {
            ended();
            this.record(LedgerEventKind.NotificationSent, call, kind, channel, { ...result });
          },
          (error: unknown) => {
            if (wf.isCancellation(error)) return;
            ended();
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
    channel: ChannelName,
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

function deliveryKey(
  call: ToolCallRecord,
  approval: ApprovalRecord,
  kind: NoticeKind,
  channel: ChannelName,
): string {
  return `${call.callId}|${approval.requestedAt}|${kind}|${channel}`;
}

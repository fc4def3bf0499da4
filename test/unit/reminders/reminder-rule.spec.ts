import { dueDatesWithReminderIn, dueReminder, MAX_CATCH_UP_DAYS, reminderWindow } from '../../../src/modules/reminders/domain/reminder-rule';

describe('reminder rule', () => {
  const days = [-3, 1, 7, 14, 30];

  describe('dueReminder: the latest reminder day that has come, once', () => {
    it('none before the first reminder day', () => {
      expect(dueReminder('2026-04-12', days, '2026-04-08', null)).toBeNull();
    });

    it('the day before the due date counts in calendar days, and so does the day after', () => {
      expect(dueReminder('2026-04-12', days, '2026-04-09', null)).toBe(-3);
      expect(dueReminder('2026-04-12', days, '2026-04-12', null)).toBe(-3);
      expect(dueReminder('2026-04-12', days, '2026-04-13', null)).toBe(1);
      expect(dueReminder('2026-02-28', [1], '2026-03-01', null)).toBe(1);
    });

    it('only the latest due one after days without a scan (no burst of stale reminders)', () => {
      expect(dueReminder('2026-04-12', days, '2026-04-30', null)).toBe(14);
      expect(dueReminder('2026-04-12', days, '2026-04-30', -3)).toBe(14);
    });

    it('never the same day twice, and never an earlier day after a later one', () => {
      expect(dueReminder('2026-04-12', days, '2026-04-13', 1)).toBeNull();
      expect(dueReminder('2026-04-12', days, '2026-04-20', 1)).toBe(7);
      // days changed from [.., 14] to [.., 10] after 14 went out: 10 is not sent afterwards
      expect(dueReminder('2026-04-12', [-3, 1, 10], '2026-04-27', 14)).toBeNull();
    });

    it('takes the days in any order', () => {
      expect(dueReminder('2026-04-12', [7, -3, 1], '2026-04-20', null)).toBe(7);
    });
  });

  describe('reminderWindow: the local dates a scan covers', () => {
    it('today only for a tenant never scanned (turning reminders on sends no backlog)', () => {
      expect(reminderWindow(null, '2026-04-12')).toEqual({ from: '2026-04-11', to: '2026-04-12' });
    });

    it('every date since the last complete scan after downtime', () => {
      expect(reminderWindow('2026-04-05', '2026-04-12')).toEqual({ from: '2026-04-05', to: '2026-04-12' });
    });

    it('today even when a later date was completed (a zone moved west)', () => {
      expect(reminderWindow('2026-04-13', '2026-04-12')).toEqual({ from: '2026-04-11', to: '2026-04-12' });
    });

    it(`at most ${MAX_CATCH_UP_DAYS} days back`, () => {
      expect(reminderWindow('2020-01-01', '2026-04-12')).toEqual({ from: '2025-04-11', to: '2026-04-12' });
    });
  });

  describe('dueDatesWithReminderIn: the due dates whose reminder days fall in the window', () => {
    it('one date per reminder day for a one-day window', () => {
      expect(dueDatesWithReminderIn({ from: '2026-04-11', to: '2026-04-12' }, days)).toEqual([
        '2026-03-13', '2026-03-29', '2026-04-05', '2026-04-11', '2026-04-15',
      ]);
    });

    it('overlapping days of a longer window once each, ascending', () => {
      const dates = dueDatesWithReminderIn({ from: '2026-04-01', to: '2026-04-04' }, [0, 1]);
      expect(dates).toEqual(['2026-04-01', '2026-04-02', '2026-04-03', '2026-04-04']);
    });

    it('none without reminder days', () => {
      expect(dueDatesWithReminderIn({ from: '2026-04-11', to: '2026-04-12' }, [])).toEqual([]);
    });
  });
});

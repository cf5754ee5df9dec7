import type { ScheduleView } from '../ports/work.js';

const inZone = (timezone: string) =>
  new Intl.DateTimeFormat('en-GB', {
    timeZone: timezone,
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'short',
  });
const utcTime = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'UTC',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});
const utcDay = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', weekday: 'short', day: 'numeric', month: 'short' });
const day = (timezone: string, at: Date) =>
  new Intl.DateTimeFormat('en-CA', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(
    at,
  );

/** A time in the schedule's zone, and in UTC beside it (with the UTC day when it is another). */
function FireTime({ at, timezone }: { at: Date; timezone: string }) {
  const inUtc = `${day(timezone, at) === day('UTC', at) ? '' : `${utcDay.format(at)}, `}${utcTime.format(at)} UTC`;
  return (
    <time datetime={at.toISOString()}>
      {inZone(timezone).format(at)}
      {timezone === 'UTC' ? null : <span class="muted"> ({inUtc})</span>}
    </time>
  );
}

/** A trigger's schedule: each entry's expression, zone and input, and its next three fire times. */
export function Schedules({ trigger, schedules }: { trigger: string; schedules: ScheduleView[] }) {
  return (
    <table class="list schedules" aria-label={`Schedule of ${trigger}`}>
      <thead>
        <tr>
          <th scope="col">Schedule</th>
          <th scope="col">Input</th>
          <th scope="col">Next fire times</th>
        </tr>
      </thead>
      <tbody>
        {schedules.map((entry, index) => (
          <tr key={index}>
            <td data-label="Schedule">
              <code>{entry.cron}</code> <span class="muted">{entry.timezone}</span>
            </td>
            <td data-label="Input">
              {entry.input === '' ? <span class="muted">none</span> : <code>{entry.input}</code>}
            </td>
            <td data-label="Next fire times">
              {entry.next.length === 0 ? (
                <span class="muted">never: no date matches</span>
              ) : (
                <ol class="fire-times">
                  {entry.next.map((at) => (
                    <li key={at.toISOString()}>
                      <FireTime at={at} timezone={entry.timezone} />
                    </li>
                  ))}
                </ol>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

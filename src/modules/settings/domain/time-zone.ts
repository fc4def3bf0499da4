import { ValidationError } from '../../../shared/domain/domain-error';

/**
 * IANA time zones through the ICU data every Node.js build carries (Intl): no library and no
 * second time-zone database that could disagree with it. One formatter per zone, built once:
 * constructing an Intl.DateTimeFormat costs far more than formatting with it.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();
const MAX_LENGTH = 64;
/** Region/City names, the Etc/ and legacy aliases; not UTC offsets such as "+05:00" (not IANA names). */
const NAME_RE = /^[A-Za-z][A-Za-z0-9_+\-]*(\/[A-Za-z0-9_+\-]+)*$/;

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hourCycle: 'h23' });
    // Zones come from validated settings: a few hundred at most.
    if (formatters.size < 1_000) formatters.set(zone, f);
  }
  return f;
}

/** The calendar date (`YYYY-MM-DD`) an instant falls on in a time zone. */
export function dateInTimeZone(instant: Date, zone: string): string {
  let year = '';
  let month = '';
  let day = '';
  for (const part of formatter(zone).formatToParts(instant)) {
    if (part.type === 'year') year = part.value;
    else if (part.type === 'month') month = part.value;
    else if (part.type === 'day') day = part.value;
  }
  return `${year.padStart(4, '0')}-${month}-${day}`;
}

let known: Map<string, string> | undefined;

/**
 * Checks an IANA time-zone name and returns its usual spelling (`america/los_angeles` →
 * `America/Los_Angeles`). Links keep the name the client chose (`Asia/Kolkata` stays, although
 * ICU's canonical id is still `Asia/Calcutta`). Unknown names and UTC offsets: 400.
 */
export function parseTimeZone(value: unknown, field = 'timezone'): string {
  const invalid = () =>
    ValidationError.field(field, `${field} must be an IANA time zone name such as "America/Los_Angeles" or "UTC"`);
  if (typeof value !== 'string' || value.length > MAX_LENGTH || !NAME_RE.test(value)) throw invalid();
  let resolved: string;
  try {
    resolved = formatter(value).resolvedOptions().timeZone;
  } catch {
    throw invalid();
  }
  known ??= new Map(Intl.supportedValuesOf('timeZone').map((z) => [z.toLowerCase(), z]));
  const lower = value.toLowerCase();
  return known.get(lower) ?? (resolved.toLowerCase() === lower ? resolved : value);
}

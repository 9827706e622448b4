import { describe, expect, it } from 'vitest';
import { readDate } from '../../build/core/edge/dates.ts';

const published = (text: string) => {
  const date = readDate(text);
  return date.ok ? date.published : `error: ${date.message}`;
};

describe('readDate', () => {
  it.each([
    ['2025-03-14', '2025-03-14T00:00:00Z'],
    ['2024-02-29', '2024-02-29T00:00:00Z'],
    ['2000-02-29', '2000-02-29T00:00:00Z'],
    ['2025-03-14T09:30', '2025-03-14T09:30:00Z'],
    ['2025-03-14T09:30:00', '2025-03-14T09:30:00Z'],
    ['2025-03-14 09:30:00', '2025-03-14T09:30:00Z'],
    ['2025-03-14t09:30:00z', '2025-03-14T09:30:00Z'],
    ['2025-03-14T09:30:00.999Z', '2025-03-14T09:30:00Z'],
    ['2025-03-14T09:30:00+02:00', '2025-03-14T07:30:00Z'],
    ['2025-03-14T23:30:00-0300', '2025-03-15T02:30:00Z'],
    ['2025-03-14T00:00:00+14:00', '2025-03-13T10:00:00Z'],
    ['0001-01-01', '0001-01-01T00:00:00Z'],
    ['0099-12-31', '0099-12-31T00:00:00Z'],
    ['0050-03-01T00:30:00+01:00', '0050-02-28T23:30:00Z'],
    ['2023-03-01T00:30:00+01:00', '2023-02-28T23:30:00Z'],
    ['2024-03-01T00:30:00+01:00', '2024-02-29T23:30:00Z'],
    ['9999-12-31T23:59:59Z', '9999-12-31T23:59:59Z'],
  ])('reads %s as %s', (text, expected) => {
    expect(published(text)).toBe(expected);
  });

  it.each([
    ['2025-02-30', '"2025-02-30" is not a calendar date: February 2025 has 28 days'],
    ['2023-02-29', '"2023-02-29" is not a calendar date: February 2023 has 28 days'],
    ['2100-02-29', '"2100-02-29" is not a calendar date: February 2100 has 28 days'],
    ['2025-04-31', '"2025-04-31" is not a calendar date: April 2025 has 30 days'],
    ['2025-13-01', '"2025-13-01" is not a calendar date: there is no month 13'],
    ['2025-00-10', '"2025-00-10" is not a calendar date: there is no month 00'],
    ['2025-01-00', '"2025-01-00" is not a calendar date: January 2025 has 31 days'],
    ['0000-01-01', '"0000-01-01" is not a calendar date: there is no year 0'],
    ['2025-03-14T24:00:00Z', '"2025-03-14T24:00:00Z" is not a valid time: hours go from 00 to 23'],
    ['2025-03-14T25:00', '"2025-03-14T25:00" is not a valid time: hours go from 00 to 23'],
    ['2025-03-14T09:60:00Z', '"2025-03-14T09:60:00Z" is not a valid time: minutes go from 00 to 59'],
    ['2025-03-14T09:30:60Z', '"2025-03-14T09:30:60Z" is not a valid time: seconds go from 00 to 59'],
    ['2025-03-14T09:30:00+24:00', '"2025-03-14T09:30:00+24:00" is not a valid time: +24:00 is not'],
    ['9999-12-31T23:00:00-05:00', 'outside the years 0001–9999'],
    ['2025-3-14', 'must be a date such as 2025-03-14'],
    ['14/03/2025', 'must be a date such as 2025-03-14'],
    ['2025-03-14T09:30:00 +02:00', 'must be a date such as 2025-03-14'],
    ['mañana', 'must be a date such as 2025-03-14'],
  ])('refuses %s', (text, message) => {
    expect(published(text).startsWith('error: ')).toBe(true);
    expect(published(text)).toContain(message);
  });
});

// Limits the SDK and the service agree on for usage reports.

/**
 * The most scans one usage report may carry: a machine offline for weeks at a thousand scans a
 * second stays under it, and the service's sums stay exact integers for millions of reports. The
 * SDK splits a larger backlog over several reports; the service refuses a larger number (400).
 */
export const MAX_REPORT_SCANS = 1_000_000_000;
